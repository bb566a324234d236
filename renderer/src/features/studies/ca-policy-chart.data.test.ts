import { describe, expect, it } from 'vitest';
import type { MeanInterval, StudyCaPolicyArm } from '../../../../core/contract/contract';
import { CA_POLICY_CHART, caPolicyGeometry } from './ca-policy-chart.data';

/** Two seeds' mean with a stand-in interval (mean ± 0.3, as the engine clamps it to [0, 1]); the geometry only reads mean, ci and n. */
const mi = (xs: number[]): MeanInterval => {
  const mean = (xs[0]! + xs[1]!) / 2;
  return { n: xs.length, mean, sd: 0, ci: [Math.max(0, mean - 0.3), Math.min(1, mean + 0.3)], t: null, df: xs.length - 1 };
};
const row = (head: string, value: string, first: number[], last: number[]) => ({
  head,
  value,
  first: mi(first),
  last: mi(last),
  change: { ...mi(last.map((l, i) => l - first[i]!)), ci: null },
  up: last.filter((l, i) => l > first[i]!).length,
  down: last.filter((l, i) => l < first[i]!).length,
});

describe('caPolicyGeometry', () => {
  it("places one dumbbell per arm and value of the head, from the first match's mean to the last's, on a 0–1 axis", () => {
    const arms: StudyCaPolicyArm[] = [
      {
        arm: 'full',
        seeds: [1, 2],
        rows: [row('withhold', 'false', [0.5, 0.4], [0.1, 0.2]), row('withhold', 'true', [0.5, 0.6], [0.9, 0.8]), row('hedge', 'true', [0.5, 0.5], [0.5, 0.5])],
      },
      { arm: 'other', seeds: [1, 2], rows: [row('withhold', 'true', [0.5, 0.6], [0.5, 0.6])] },
    ];
    const g = caPolicyGeometry('withhold', arms);
    const { width, left, right } = CA_POLICY_CHART;
    const x = (p: number) => left + p * (width - left - right);
    expect(g.values.map((v) => v.label)).toEqual(['false', 'true']);
    expect(g.dumbbells.map((d) => d.arm)).toEqual(['full', 'full', 'other']);
    const [f, t, o] = g.dumbbells;
    expect(f!.first).toBeCloseTo(x(0.45), 9);
    expect(f!.last).toBeCloseTo(x(0.15), 9);
    expect(t!.first).toBeCloseTo(x(0.55), 9);
    expect(t!.last).toBeCloseTo(x(0.85), 9);
    // The last match's interval, clamped to the axis.
    expect(t!.ci![1]).toBeCloseTo(x(1), 9);
    expect(o!.first).toBeCloseTo(o!.last, 9);
    // Rows of one value share its band; the two arms sit apart within it.
    expect(o!.y - t!.y).toBe(CA_POLICY_CHART.perArm);
    expect(t!.title).toBe('full withhold = true: 0.55 → 0.85 (2 up / 0 down of 2 seeds)');
    expect(g.x0).toBe(left);
    expect(g.x1).toBe(width - right);
  });
});
