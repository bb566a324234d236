import { describe, expect, it } from 'vitest';
import type { TacticReport } from '../../../../core/contract/contract';
import type { AuditReport } from '../../../../core/contract/contract';
import { byMatchOrder, fmtStat, impactBadge, impactWords, kappaWords, measureStrip, missingAuditFields, nextHallucination, tacticBars } from './labels.data';

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

describe('Table 5 rows', () => {
  it('lists matches in the order they were played (M2 before M10)', () => {
    const perMatch = ['M10', 'M2', 'M1'].map((matchId) => ({ matchId, caSpec: 'CA1', items: 1, shares: { A: 1 } }));
    expect(tacticBars({ ...report, perMatch }).map((b) => b.matchId)).toEqual(['M1', 'M2', 'M10']);
    expect(['S1-M3', 'M10', 'M9'].sort(byMatchOrder)).toEqual(['M9', 'M10', 'S1-M3']);
  });
});

describe('judge audit', () => {
  const row = (o: Partial<AuditReport['perMatch'][number]>): AuditReport['perMatch'][number] => ({
    matchId: 'M1',
    audited: 2,
    wDa: 0.5,
    wJudge: 0.5,
    wHuman: 0.5,
    exceedsEpsilon: false,
    flips: false,
    stopJudge: null,
    stopHuman: null,
    ...o,
  });

  it('claims nothing for a match with no audited episode', () => {
    expect(impactBadge(row({ audited: 0 }))).toEqual({ tone: 'neutral', text: 'not audited' });
    expect(impactWords(row({ audited: 0 }), 0.05)).toMatch(/no episode of this match audited/);
    expect(impactBadge(row({}))).toEqual({ tone: 'ok', text: 'holds' });
    expect(impactBadge(row({ flips: true }))).toEqual({ tone: 'warn', text: 'changes' });
  });

  it('names the fields a verdict still lacks', () => {
    expect(missingAuditFields({ resolved: true, tier: null, hallucination: null })).toEqual(['quality tier (1–4)', 'hallucination (H)']);
    expect(missingAuditFields({ resolved: false, tier: 2, hallucination: false })).toEqual([]);
  });

  it('answers "no" on the first H and switches on the next ones', () => {
    expect(nextHallucination(null)).toBe(false);
    expect(nextHallucination(false)).toBe(true);
    expect(nextHallucination(true)).toBe(false);
  });
});
