import { describe, expect, it } from 'vitest';
import type { TacticReport } from '../../../../core/contract/contract';
import { fmtStat, kappaWords, measureStrip, tacticBars } from './labels.data';

const report: TacticReport = {
  queueId: 'T1',
  labels: ['A', 'B', 'C'],
  annotators: ['ann', 'bo'],
  perMatch: [{ matchId: 'M1', caSpec: 'CA0', items: 2, shares: { A: 0.5, B: 0.25, C: 0.25 } }],
  agreement: { pairs: [], fleiss: null, alpha: null },
  items: [
    { pos: 0, matchId: 'M1', consensus: 'A', byAnnotator: {}, tokens: 10, entityDensity: 0.1, decoyCues: 0, auto: 'A' },
    { pos: 1, matchId: 'M1', consensus: 'A', byAnnotator: {}, tokens: 20, entityDensity: 0.3, decoyCues: 1, auto: 'B' },
    { pos: 2, matchId: 'M1', consensus: null, byAnnotator: {}, tokens: 99, entityDensity: 0.9, decoyCues: 2, auto: 'C' },
  ],
  auto: { consensus: { n: 2, value: 0 }, perAnnotator: [] },
};

describe('labels data', () => {
  it("stacks each match's shares in label order", () => {
    const [bar] = tacticBars(report);
    expect(bar!.segments.map((s) => [s.label, s.start, s.share])).toEqual([
      ['A', 0, 0.5],
      ['B', 0.5, 0.25],
      ['C', 0.75, 0.25],
    ]);
  });

  it("plots measures of items with a consensus only, with each label's mean", () => {
    const s = measureStrip(report, 'tokens');
    expect(s.points.map((p) => p.value)).toEqual([10, 20]);
    expect(s.means[0]).toEqual({ label: 'A', mean: 15, n: 2 });
    expect(s.means[1]!.mean).toBeNaN();
  });

  it('formats statistics and names κ bands', () => {
    expect(fmtStat(0.4)).toBe('0.400');
    expect(fmtStat(null)).toBe('—');
    expect(fmtStat(Number.NaN)).toBe('—');
    expect(kappaWords(0.4)).toBe('fair');
    expect(kappaWords(-0.1)).toBe('worse than chance');
  });
});
