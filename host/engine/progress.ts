/**
 * Progress of a long request as engine events: at most one every `everyMs`, and always the last
 * (done = total), so a progress bar ends full without flooding the transport.
 */
export function throttledProgress(everyMs: number, report: (done: number, total: number) => void): (done: number, total: number) => void {
  let last = -Infinity;
  return (done, total) => {
    const now = Date.now();
    if (done < total && now - last < everyMs) return;
    last = now;
    report(done, total);
  };
}
