/**
 * A study worker dies promptly with its parent (issue 51, item 9): a parent killed with SIGKILL
 * cannot tell its workers, and a worker busy in a synchronous step never sees its IPC channel
 * close. The fixture blocks its event loop; with the watcher it is gone within a second or two of
 * its parent's kill -9, without it it would spin on.
 */
import { spawn } from 'node:child_process';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';

const FIXTURE = path.join(import.meta.dirname, 'parent-watch.fixture.ts');
const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};
const started: number[] = [];
afterEach(() => {
  for (const pid of started.splice(0)) if (alive(pid)) process.kill(pid, 'SIGKILL');
});

/** A parent (an intermediate node process) whose child runs the fixture; resolves with both pids once the child is ready. */
function family(mode: 'watch' | 'none'): Promise<{ parent: number; child: number }> {
  const script = `
    const c = require('node:child_process').spawn(process.execPath, ['--import', 'tsx', ${JSON.stringify(FIXTURE)}, ${JSON.stringify(mode)}], { stdio: ['ignore', 'pipe', 'inherit'] });
    c.stdout.on('data', (d) => { if (String(d).includes('ready')) process.stdout.write(c.pid + '\\n'); });
    setInterval(() => {}, 1000);`;
  const parent = spawn(process.execPath, ['-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
  started.push(parent.pid!);
  return new Promise((resolve, reject) => {
    parent.stdout.on('data', (d: Buffer) => {
      const child = Number(String(d).trim());
      started.push(child);
      resolve({ parent: parent.pid!, child });
    });
    parent.on('exit', (code) => reject(new Error(`the parent exited (${code}) before its child was ready`)));
  });
}

async function gone(pid: number, withinMs: number): Promise<number | null> {
  const t0 = Date.now();
  while (Date.now() - t0 < withinMs) {
    if (!alive(pid)) return Date.now() - t0;
    await new Promise((r) => setTimeout(r, 50));
  }
  return null;
}

describe('study worker parent watch', () => {
  it('a worker with a blocked event loop dies within 5 s of its parent killed with SIGKILL', async () => {
    const { parent, child } = await family('watch');
    process.kill(parent, 'SIGKILL');
    const ms = await gone(child, 5_000);
    expect(ms, `worker ${child} still alive 5 s after its parent's kill -9`).not.toBeNull();
  }, 30_000);

  it('without the watch the same worker outlives its parent (what the watch is for)', async () => {
    const { parent, child } = await family('none');
    process.kill(parent, 'SIGKILL');
    expect(await gone(child, 1_000)).toBeNull();
  }, 30_000);
});
