import { describe, expect, it } from 'vitest';
import { binaryConfusion, binaryF1, binaryScores, confusionSummary, formatConfusion, spearman } from './metrics';

describe('binary F1', () => {
  it('computes precision, recall and F1 on a hand-counted example', () => {
    // labels:    T T F F T F
    // predicted: T F T F T F  → tp 2 (items 0, 4), fn 1 (item 1), fp 1 (item 2), tn 2
    const labels = [true, true, false, false, true, false];
    const pred = [true, false, true, false, true, false];
    expect(binaryConfusion(labels, pred)).toEqual({ tp: 2, fp: 1, fn: 1, tn: 2 });
    const s = binaryF1(labels, pred);
    expect(s.precision).toBeCloseTo(2 / 3, 12);
    expect(s.recall).toBeCloseTo(2 / 3, 12);
    // F1 = 2·tp / (2·tp + fp + fn) = 4 / 6
    expect(s.f1).toBeCloseTo(2 / 3, 12);
  });

  it('is the harmonic mean of precision and recall when they differ', () => {
    // tp 1, fp 3, fn 0: P = 1/4, R = 1, F1 = 2·(1/4)·1 / (1/4 + 1) = 0.4 = 2 / (2 + 3)
    const s = binaryScores({ tp: 1, fp: 3, fn: 0, tn: 5 });
    expect(s).toEqual({ precision: 0.25, recall: 1, f1: 0.4 });
  });

  it('defines F1 = 1 when there are no positives and no predicted positives', () => {
    expect(binaryF1([false, false, false], [false, false, false])).toMatchObject({ precision: 1, recall: 1, f1: 1 });
    expect(binaryF1([], [])).toMatchObject({ f1: 1 });
  });

  it('scores 0 when positives exist and none is found, or only false ones are claimed', () => {
    expect(binaryF1([true, false], [false, false])).toMatchObject({ recall: 0, f1: 0 });
    expect(binaryF1([false, false], [true, false])).toMatchObject({ precision: 0, recall: 1, f1: 0 });
  });

  it('rejects inputs of different lengths', () => {
    expect(() => binaryF1([true], [true, false])).toThrow(/differ in length \(1 vs 2\)/);
  });
});

describe('Spearman rho', () => {
  it('gives tied values their average rank', () => {
    // x = [1, 2, 2, 3] → ranks [1, 2.5, 2.5, 4]; y = [1, 3, 2, 4] → ranks [1, 3, 2, 4]; both means 2.5.
    // deviations dx = [−1.5, 0, 0, 1.5], dy = [−1.5, 0.5, −0.5, 1.5]
    // Σdx·dy = 2.25 + 0 + 0 + 2.25 = 4.5; Σdx² = 4.5; Σdy² = 2.25 + 0.25 + 0.25 + 2.25 = 5
    // ρ = 4.5 / √(4.5 · 5) = √(4.5 / 5) = √0.9 ≈ 0.948683
    expect(spearman([1, 2, 2, 3], [1, 3, 2, 4])).toBeCloseTo(Math.sqrt(0.9), 12);
  });

  it('does not depend on the order of the pairs when there are ties', () => {
    const x = [4, 4, 3, 2, 1, 1];
    const y = [3, 4, 4, 2, 2, 1];
    const perm = [5, 2, 0, 4, 1, 3];
    expect(
      spearman(
        perm.map((i) => x[i]!),
        perm.map((i) => y[i]!),
      ),
    ).toBeCloseTo(spearman(x, y), 12);
  });

  it('handles tiers with many ties (labels vs judged)', () => {
    // labels [4, 4, 3, 1], judged [4, 3, 3, 1]: ranks [3.5, 3.5, 2, 1] and [4, 2.5, 2.5, 1], means 2.5
    // dx = [1, 1, −0.5, −1.5], dy = [1.5, 0, 0, −1.5]; Σdx·dy = 1.5 + 0 + 0 + 2.25 = 3.75
    // Σdx² = 1 + 1 + 0.25 + 2.25 = 4.5; Σdy² = 2.25 + 0 + 0 + 2.25 = 4.5 → ρ = 3.75 / 4.5 = 0.8333…
    expect(spearman([4, 4, 3, 1], [4, 3, 3, 1])).toBeCloseTo(3.75 / 4.5, 12);
  });

  it('is ±1 for monotone relations and NaN where undefined', () => {
    expect(spearman([1, 2, 3, 4], [10, 20, 30, 1000])).toBeCloseTo(1, 12);
    expect(spearman([1, 2, 3, 4], [4, 3, 2, 1])).toBeCloseTo(-1, 12);
    expect(spearman([1, 2, 3], [2, 2, 2])).toBeNaN();
    expect(spearman([1], [1])).toBeNaN();
    expect(() => spearman([1, 2], [1])).toThrow(/differ in length/);
  });
});

describe('confusion summary', () => {
  it('counts labels against predictions, with accuracy and within-one agreement', () => {
    const s = confusionSummary([4, 4, 3, 2, 1, 1], [4, 3, 3, 1, 1, 4], [1, 2, 3, 4]);
    expect(s.counts).toEqual([
      [1, 0, 0, 1],
      [1, 0, 0, 0],
      [0, 0, 1, 0],
      [0, 0, 1, 1],
    ]);
    expect(s.n).toBe(6);
    expect(s.accuracy).toBeCloseTo(3 / 6, 12);
    expect(s.withinOne).toBeCloseTo(5 / 6, 12);
    expect(formatConfusion(s).split('\n')).toHaveLength(5);
  });

  it('infers sorted classes and rejects unknown ones', () => {
    expect(confusionSummary(['b', 'a'], ['a', 'a']).classes).toEqual(['a', 'b']);
    expect(() => confusionSummary([1, 5], [1, 1], [1, 2])).toThrow(/5 is not one of the classes/);
  });
});
