/** Pure helpers of the knob console (KnobConsole.tsx): what it says, and when. */
import type { KnobWriteResult, KnobWriteView, RunStatus } from '../../../../core/contract/contract';

const fmt = (x: number) => (Number.isInteger(x) ? String(x) : Number(x.toPrecision(4)).toString());

/** A series of evidence as a few points: the first and the last three, the rest counted (a long one made the table 2,800 px wide). */
export function seriesText(points: readonly (readonly [number, number])[]): string {
  const one = ([x, y]: readonly [number, number]) => `${x}:${fmt(y)}`;
  if (points.length <= 6) return points.map(one).join(' ');
  return `${points.slice(0, 3).map(one).join(' ')} … (${points.length - 6} more) … ${points.slice(-3).map(one).join(' ')}`;
}

/** Whether the console can write: only while the run lives. */
export function consoleLive(status: RunStatus): boolean {
  return status === 'running' || status === 'paused' || status === 'created';
}

/** Why Write, Accept, Dismiss and Revert are off, or null while they are on. */
export function readOnlyReason(status: RunStatus): string | null {
  if (consoleLive(status)) return null;
  return `Write, Accept, Dismiss and Revert are off: this run is ${status}, so its knobs no longer change. The log and proposals below are its record.`;
}

/** The "W3 queued" note stays until the run applies that write; then the log says it. */
export function showQueued(outcome: KnobWriteResult | null, writes: readonly KnobWriteView[]): boolean {
  if (!outcome?.ok) return false;
  return writes.find((w) => w.id === outcome.write.id)?.status !== 'applied';
}
