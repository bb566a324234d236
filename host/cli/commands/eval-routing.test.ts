/** `eval --routing --baseline`: the per-split comparison and its table, on hand-made reports. */
import { describe, expect, it } from 'vitest';
import type { BaselineRoutingReport, RoutingReport } from '../../routing-eval';
import { compare, comparisonTable } from './eval';

const da = (accuracy: number, n = 200) => ({ accuracy, n }) as RoutingReport;
const base = (accuracy: number, toolMassAccuracy = accuracy): BaselineRoutingReport => ({ n: 200, accuracy, toolMassAccuracy, toolLabelAccuracy: 0.9 });

describe('DA against the TF-IDF baseline, split by split', () => {
  it('pairs each split, means both and gives the t-interval of the difference', () => {
    const c = compare([
      { seed: 1, da: da(0.9), baseline: base(0.88) },
      { seed: 2, da: da(0.95), baseline: base(0.9) },
      { seed: 3, da: da(0.92), baseline: base(0.93) },
    ]);
    expect(c.perSplit.map((r) => Number(r.diff.toFixed(6)))).toEqual([0.02, 0.05, -0.01]);
    expect(c.daMean).toBeCloseTo(0.92333, 5);
    expect(c.baselineMean).toBeCloseTo(0.90333, 5);
    expect(c.diff.mean).toBeCloseTo(0.02, 9);
    // diffs 0.02, 0.05, −0.01: sd 0.03; t(0.975, 2) = 4.302653, half-width 4.302653 · 0.03 / √3 = 0.074524
    expect(c.diff.sd).toBeCloseTo(0.03, 9);
    expect(c.diff.ci95![0]).toBeCloseTo(-0.054524, 6);
    expect(c.diff.ci95![1]).toBeCloseTo(0.094524, 6);
    const text = comparisonTable('bank held-out slice:', c);
    expect(text).toMatch(/^bank held-out slice:\nsplit/);
    expect(text).toContain('+2.0 points, 95% t-interval over 3 splits [−5.5, +9.5]');
    expect(text.split('\n').filter((l) => /^[123] /.test(l))).toHaveLength(3);
  });

  it('one split: the difference without an interval', () => {
    expect(comparisonTable('x', compare([{ seed: 1, da: da(0.9), baseline: base(0.8) }]))).toContain('one split: no interval');
  });
});
