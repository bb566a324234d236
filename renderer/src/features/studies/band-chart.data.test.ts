import { describe, expect, it } from 'vitest';
import { bandGeometry } from './band-chart.data';

describe('bandGeometry', () => {
  it('places the mean line and closes the band from the upper bounds back along the lower ones', () => {
    const g = bandGeometry(
      [
        {
          name: 'full',
          points: [
            { n: 2, mean: 0.5, ci: [0.25, 0.75] },
            { n: 2, mean: 1, ci: [0.5, 1] },
          ],
        },
      ],
      { width: 148, height: 138, rate: true },
    );
    // x spans 48..136, y maps 1 → 12 and 0 → 112.
    expect(g.xTicks.map((t) => t.x)).toEqual([48, 136]);
    expect(g.series[0]!.line).toBe('48,62 136,12');
    expect(g.series[0]!.band).toBe('48,37 136,12 136,62 48,87');
    expect(g.series[0]!.dots[0]!.title).toBe('full M1: 50.0% [25.0%, 75.0%] (n=2)');
  });

  it('draws no band with a single interval, and skips matches no seed played', () => {
    const g = bandGeometry(
      [
        {
          name: 'a',
          points: [
            { n: 1, mean: 0.5, ci: null },
            { n: 0, mean: Number.NaN, ci: null },
          ],
        },
      ],
      { width: 148, height: 138, rate: true, tau: 0.6 },
    );
    expect(g.series[0]!.band).toBeNull();
    expect(g.series[0]!.dots).toHaveLength(1);
    expect(g.tau!.label).toBe('τ_DA = 0.60');
  });
});

describe('bandGeometry ticks', () => {
  it('labels the y axis with enough decimals to tell the ticks apart', () => {
    const g = bandGeometry([{ name: 'a', points: [{ n: 2, mean: 0.05, ci: [0.03, 0.07] }] }], { width: 148, height: 138, rate: false });
    const labels = g.yTicks.map((t) => t.label);
    expect(new Set(labels).size).toBe(5);
  });

  it('gives a chart with no spread (no finished seed, or equal values) distinct ticks and no "-0"', () => {
    for (const points of [[], [{ n: 0, mean: 0, ci: null }], [{ n: 3, mean: 0, ci: [0, 0] as [number, number] }], [{ n: 3, mean: 2, ci: null }]]) {
      const labels = bandGeometry([{ name: 'a', points }], { width: 148, height: 138, rate: false }).yTicks.map((t) => t.label);
      expect(new Set(labels).size, labels.join(' ')).toBe(5);
      expect(labels.join(' ')).not.toMatch(/-0(\.0*)?(\s|$)/);
    }
  });
});
