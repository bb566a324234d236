/** Progress bars with ETA on stderr (stdout stays clean for --json). */
import cliProgress from 'cli-progress';

export interface Progress {
  update(done: number, total: number): void;
  stop(): void;
}

export function progressBar(label: string): Progress {
  if (!process.stderr.isTTY) {
    // Not a terminal (CI, pipes): a line every 10%, so logs show that work moves.
    let lastDecile = -1;
    return {
      update(done, total) {
        const decile = Math.floor((done / total) * 10);
        if (decile !== lastDecile) {
          lastDecile = decile;
          process.stderr.write(`${label}: ${done}/${total}\n`);
        }
      },
      stop() {},
    };
  }
  const bar = new cliProgress.SingleBar(
    { stream: process.stderr, format: `${label} [{bar}] {percentage}% | {value}/{total} | ETA {eta_formatted}`, hideCursor: true },
    cliProgress.Presets.shades_classic,
  );
  let started = false;
  return {
    update(done, total) {
      if (!started) {
        bar.start(total, 0);
        started = true;
      }
      bar.update(done);
    },
    stop() {
      if (started) bar.stop();
    },
  };
}
