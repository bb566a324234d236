import { describe, expect, it } from 'vitest';
import { estimateKind, estimateScenarioView, estimateTables, estimateView } from './study-estimate';
import type { ArenaEstimateFigures } from './study-estimate';

/** A run's stored figures with DA0 and final routing rates (strict PASS half of each). */
const run = (arm: string, seed: number, da0: number, final: number): ArenaEstimateFigures & { arm: string; seed: number } => ({
  arm,
  seed,
  speak: 'train',
  da0: `DA0-${arm}-${seed}`,
  finalDa: `DA-${arm}-${seed}`,
  finalCa: `CA-${arm}-${seed}`,
  matchSeed: 1000 + seed,
  matches: { da0: 'M1', finalDa: 'M2' },
  da0Metrics: { routing: da0, strictPass: da0 / 2, episodes: 180 },
  finalMetrics: { routing: final, strictPass: final / 2, episodes: 180 },
});

// t(0.975, 2 df), Student's table.
const T2 = 4.302653;

describe('estimateTables', () => {
  const runs = [
    run('full', 1, 0.5, 0.7),
    run('full', 2, 0.6, 0.7),
    run('full', 3, 0.7, 0.9),
    run('x', 1, 0.5, 0.6),
    run('x', 2, 0.6, 0.7),
    run('x', 3, 0.6, 0.9),
  ];

  it('gives the gain in points per arm, mean [95% t] over seeds, and each arm paired against the baseline', () => {
    const t = estimateTables('train', ['full', 'x'], runs, 'full');
    const full = t.arms[0]!;
    // Gains 20, 10, 20: mean 16.67, sd √(100/3), se √(100/3)/√3 = 10/3.
    expect(full.seeds).toBe(3);
    expect(full.routing.gain.mean).toBeCloseTo(50 / 3, 9);
    expect(full.routing.gain.ci![0]).toBeCloseTo(50 / 3 - T2 * (10 / 3), 4);
    expect(full.routing.da0.mean).toBeCloseTo(60, 9);
    expect(full.strictPass.gain.mean).toBeCloseTo(25 / 3, 9);
    expect(full.routing.gainVsBaseline).toBeUndefined();
    // x's gains 10, 10, 30 against full's 20, 10, 20: differences −10, 0, +10, mean 0, se 10/√3.
    const paired = t.arms[1]!.routing.gainVsBaseline!;
    expect(paired.mean).toBeCloseTo(0, 9);
    expect(paired.ci![1]).toBeCloseTo(T2 * (10 / Math.sqrt(3)), 4);
    expect(paired.seeds).toEqual([1, 2, 3]);
  });

  it('pairs only the seeds both arms have, and prints one row per arm and measure', () => {
    const t = estimateTables('validation', ['full', 'x'], runs.slice(0, 5), 'full');
    expect(t.arms[1]!.seeds).toBe(2);
    expect(t.arms[1]!.routing.gainVsBaseline!.seeds).toEqual([1, 2]);
    const v = estimateView(t);
    expect(v.title).toContain('validation slice');
    expect(v.header.at(-1)).toBe("gain − full's (paired)");
    expect(v.rows.map((r) => r.slice(0, 3))).toEqual([
      ['full', 'routing', '3'],
      ['full', 'strict PASS', '3'],
      ['x', 'routing', '2'],
      ['x', 'strict PASS', '2'],
    ]);
    expect(v.rows[0]![5]).toMatch(/^\+16\.7 \[/);
    expect(v.rows[0]![6]).toBe('(baseline)');
    // x on seeds 1–2: gains 10, 10 against 20, 10: −5, and two seeds are too few for a t interval
    // (it would be [−68.5, +58.5], t 12.706, se 5).
    expect(v.rows[2]![6]).toBe('-5.0 (n=2: too few for an interval)');
  });
});

describe('estimateTables: rates stay inside 0–100', () => {
  it('cuts a rate in points to [0, 100] and a gain to [−100, 100] (three seeds near the ceiling)', () => {
    // Final routing 80, 100, 100 on three seeds: the t interval's top (114.1) would pass 100%.
    const t = estimateTables('train', ['full'], [run('full', 1, 0.7, 0.8), run('full', 2, 0.9, 1), run('full', 3, 0.95, 1)], 'full');
    const final = t.arms[0]!.routing.final;
    expect(final.mean).toBeCloseTo(93.333, 3);
    expect(final.ci![0]).toBeCloseTo(93.333 - T2 * (11.547 / Math.sqrt(3)), 2);
    expect(final.ci![1]).toBe(100);
    for (const row of estimateView(t).rows)
      for (const cell of row.slice(3, 6)) {
        const m = /\[(-?[\d.]+), \+?(-?[\d.]+)\]/.exec(cell);
        if (!m) continue;
        expect(Number(m[1])).toBeGreaterThanOrEqual(-100);
        expect(Number(m[2])).toBeLessThanOrEqual(100);
      }
  });
  it('prints no interval for two seeds, and says why (the arena-only estimate printed "90.0 [5.3, 174.7]")', () => {
    // 85 and 95: mean 90, sd 7.07; t(0.975, 1) 12.71 gave [26.5, 153.5] before.
    const t = estimateTables('train', ['full'], [run('full', 1, 0.5, 0.85), run('full', 2, 0.5, 0.95)], 'full');
    const v = estimateView(t);
    expect(v.rows[0]![4]).toBe('90.0 (n=2: too few for an interval)');
  });
});

describe('estimateTables per arena scenario', () => {
  const withScenarios = (arm: string, seed: number, rows: [string, number, number][]) => ({
    ...run(arm, seed, 0.5, 0.6),
    perScenario: rows.map(([scenarioId, da0, final]) => ({ scenarioId, da0, final })),
  });

  it("gives each scenario's DA0, final and gain in points over the seeds that carry it, first-seen order", () => {
    const t = estimateTables(
      'train',
      ['full', 'x'],
      [
        withScenarios('full', 1, [
          ['a', 0.5, 0.75],
          ['b', 0.9, 0.8],
        ]),
        withScenarios('full', 2, [
          ['a', 0.25, 0.75],
          ['b', 0.8, 0.8],
          ['c', 0.1, 0.2],
        ]),
        run('x', 1, 0.5, 0.6),
      ],
      'full',
    );
    const [a, b, c] = t.arms[0]!.scenarios;
    expect(t.arms[0]!.scenarios.map((s) => s.scenarioId)).toEqual(['a', 'b', 'c']);
    // a: gains 25, 50 → mean 37.5 over two seeds: too few for an interval.
    expect(a!.da0.mean).toBeCloseTo(37.5, 9);
    expect(a!.final.mean).toBeCloseTo(75, 9);
    expect(a!.gain.mean).toBeCloseTo(37.5, 9);
    expect(a!.gain.ci).toBeNull();
    expect(b!.gain.mean).toBeCloseTo(-5, 9);
    expect(c!.gain.n).toBe(1);
    expect(c!.gain.ci).toBeNull();
    // An arm whose runs' matches are not in the lab has no scenario rows.
    expect(t.arms[1]!.scenarios).toEqual([]);
    const v = estimateScenarioView(t)!;
    expect(v.header).toEqual(['scenario', 'full DA0 → final', 'full gain']);
    // Two seeds (one for c): the gain without an interval, saying why (it was "+37.5 [-121.3, +196.3]").
    expect(v.rows[0]).toEqual(['a', '37.5 → 75.0', '+37.5 (n=2: too few for an interval)']);
    expect(v.rows[1]![2]).toBe('-5.0 (n=2: too few for an interval)');
    expect(v.rows[2]).toEqual(['c', '10.0 → 20.0', '+10.0 (n=1: too few for an interval)']);
  });

  it('has no view when no run carries scenario rows', () => {
    expect(estimateScenarioView(estimateTables('train', ['full'], [run('full', 1, 0.5, 0.6)], 'full'))).toBeNull();
  });
});

describe('an estimate beyond the arena', () => {
  it('is stored under its own kind and says what its matches played', () => {
    expect(estimateKind('train')).toBe('arena-estimate:train');
    expect(estimateKind('validation', 'arena')).toBe('arena-estimate:validation');
    expect(estimateKind('train', 'other-intents')).toBe('other-intents-estimate:train');
    const t = estimateTables('train', ['full'], [run('full', 1, 0.5, 0.6)], 'full', 'other-intents');
    expect(t.scenarios).toBe('other-intents');
    expect(estimateView(t).title).toMatch(/synthetic scenarios of the intents no arena, held-out or gym scenario names \(8 episodes each\)/);
    expect(estimateView(estimateTables('train', ['full'], [run('full', 1, 0.5, 0.6)], 'full')).title).toContain('arena scenarios');
  });
});
