import { describe, expect, it } from 'vitest';
import type { KnobWriteResult, KnobWriteView } from '../../../../core/contract/contract';
import { readOnlyReason, seriesText, showQueued } from './knob-console.data';

describe('knob console words', () => {
  it('writes a long evidence series as its ends and a count, so the proposals table fits its box', () => {
    const points = Array.from({ length: 200 }, (_, i) => [i, i / 3] as const);
    const text = seriesText(points);
    expect(text).toBe('0:0 1:0.3333 2:0.6667 … (194 more) … 197:65.67 198:66 199:66.33');
    expect(seriesText([[1, 0.5]])).toBe('1:0.5');
  });

  it('says why writing is off on a finished run, and nothing while it lives', () => {
    expect(readOnlyReason('finished')).toMatch(/^Write, Accept, Dismiss and Revert are off: this run is finished/);
    expect(readOnlyReason('stopped')).toMatch(/this run is stopped/);
    expect(readOnlyReason('running')).toBeNull();
    expect(readOnlyReason('paused')).toBeNull();
  });

  it('shows "queued" until the run applies the write', () => {
    const outcome = { ok: true, write: { id: 3 } } as unknown as KnobWriteResult;
    const w = (status: string) => [{ id: 3, status }] as unknown as KnobWriteView[];
    expect(showQueued(outcome, w('queued'))).toBe(true);
    expect(showQueued(outcome, [])).toBe(true);
    expect(showQueued(outcome, w('applied'))).toBe(false);
    expect(showQueued(null, w('queued'))).toBe(false);
  });
});
