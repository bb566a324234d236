/**
 * Time left in a phase of a run (SFT, a gym, a match, an evaluation), from the speed measured
 * since its first progress report: the first step carries the phase's start-up (loading models,
 * onnxruntime's first session run, building the demonstrations), so a rate that counted it
 * promised minutes for a run that took about a minute (issue 52: "10 min" at the start of a 68 s
 * run). Null until a second report gives a rate.
 */
export function phaseEta(now: () => number = Date.now): (done: number, total: number) => number | null {
  let first: { at: number; done: number } | null = null;
  return (done, total) => {
    const at = now();
    if (!first) {
      first = { at, done };
      return null;
    }
    if (done <= first.done || at <= first.at) return null;
    return ((at - first.at) / 1000 / (done - first.done)) * Math.max(0, total - done);
  };
}
