import { describe, expect, it } from 'vitest';
import type { ArmSummary } from '../../core/coevolution/study-summary';
import { meanInterval } from '../../core/stats/intervals';
import { featureSplits } from '../../core/labels/tactic-evidence';
import { caPolicyHeadChart, shapeView, tacticConvergenceView } from './study-report';
import { fmt } from '../../core/stats/format';

describe('shapeView', () => {
  it('gives study show and the report one table: counts with their Wilson interval, ΔW_DA as points', () => {
    const m = (xs: number[]) => meanInterval(xs);
    const arm = {
      arm: 'full',
      measures: {
        matches: m([4, 5, 6]),
        daGyms: m([1, 1, 1]),
        caGyms: m([2, 3, 4]),
        wDaAfterCaGym: m([-0.05, -0.03, -0.04]),
        wDaAfterDaGym: m([0.3, 0.25, 0.2]),
      },
      daTrained: { k: 10, n: 10, ci: [0.722, 1] },
      nonMonotonic: { k: 7, n: 10, ci: [0.397, 0.892] },
    } as unknown as ArmSummary;
    const v = shapeView([arm]);
    expect(v.header).toEqual(['arm', 'matches', 'DA gyms', 'CA gyms', 'DA trained', 'W_DA non-monotonic', 'ΔW_DA after a CA gym', 'after a DA gym']);
    expect(v.rows).toEqual([
      [
        'full',
        fmt(m([4, 5, 6]), false),
        fmt(m([1, 1, 1]), false),
        fmt(m([2, 3, 4]), false),
        '10/10 [72–100%]',
        '7/10 [40–89%]',
        fmt(m([-0.05, -0.03, -0.04]), true),
        fmt(m([0.3, 0.25, 0.2]), true),
      ],
    ]);
    expect(v.rows[0]![6]).toMatch(/^-4\.0 \[/);
  });
});

describe('tacticConvergenceView', () => {
  it('gives the feature splits of the last match and of the first, one row per feature', () => {
    const opening = (text: string, daWon: boolean) => ({ text, expectedTool: 'dispute_charge' as const, daWon });
    const dense = 'On March 3rd at 9pm I paid $42.10 at TESCO in Leeds contactless, then $18 online at AMZN MKTP yesterday.';
    const plain = 'I want to dispute a charge on my card.';
    const first = [opening(dense, false), opening(plain, true), opening(plain, true)];
    const last = [opening(plain, false), opening(plain, true)];
    const arm = {
      arm: 'full',
      measures: {},
      tactic: {
        first: [],
        last: [],
        converged: null,
        seedsAgreeing: { k: 0, n: 1 },
        splits: featureSplits(last),
        firstSplits: featureSplits(first),
      },
    } as unknown as ArmSummary;
    const v = tacticConvergenceView(arm)!;
    const row = (rows: string[][]) => rows.find((r) => r[0]!.startsWith('dense detail'))!.slice(1, 3);
    // Dense openings won in the first match (1 of 1) and are gone by the last.
    expect(row(v.firstSplits)).toEqual(['100% (n=1)', '0% (n=2)']);
    expect(row(v.splits)).toEqual(['–', '50% (n=2)']);
    expect(v.firstSplits.map((r) => r[0])).toEqual(v.splits.map((r) => r[0]));
  });
});

describe('caPolicyHeadChart', () => {
  it('draws one dumbbell per arm and value, hollow at the first match, filled at the last, on a 0–1 axis', () => {
    const mi = (xs: number[]) => meanInterval(xs, 0.95, [0, 1]);
    const row = (value: string, first: number[], last: number[]) => ({
      head: 'withhold',
      value,
      first: mi(first),
      last: mi(last),
      change: meanInterval(last.map((l, i) => l - first[i]!)),
      up: last.filter((l, i) => l > first[i]!).length,
      down: last.filter((l, i) => l < first[i]!).length,
    });
    const rows = [row('false', [0.5, 0.4], [0.1, 0.2]), row('true', [0.5, 0.6], [0.9, 0.8])];
    const svg = caPolicyHeadChart('withhold', [
      { arm: 'full', colour: '#2563eb', rows },
      { arm: 'other', colour: '#ea580c', rows: [rows[1]!] },
    ]);
    expect(svg).toContain(`aria-label="the CA's withhold, first match → last"`);
    // Three dumbbells (full: false and true; other: true only), each a hollow and a filled circle.
    expect(svg.match(/<circle [^>]*fill="#fff"/g)).toHaveLength(3);
    expect(svg.match(/<circle [^>]*r="3\.5"/g)).toHaveLength(3);
    // x = 118 + p × (300 − 118 − 14): full's "true" runs from 0.55 (x 210.4) to 0.85 (x 260.8).
    expect(svg).toMatch(/<circle cx="210\.4\d*" cy="46" r="3" fill="#fff"/);
    expect(svg).toMatch(/<circle cx="260\.8\d*" cy="46" r="3\.5"/);
    // Two seeds: each figure says it has too few for an interval (a t interval over 2 would span most of 0–1).
    expect(svg).toContain('full withhold = true: 0.55 (n=2: too few for an interval) → 0.85');
  });
});
