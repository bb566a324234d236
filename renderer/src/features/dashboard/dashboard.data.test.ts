import { describe, expect, it } from 'vitest';
import type { GymSummary, MatchSummary } from '../../../../core/contract/contract';
import { ema, gymPanels, keepIndices } from './gym-curves.data';
import { integerTicks } from './create-gym-curves-chart';
import { fitLabel } from './create-phase-timeline-chart';
import { phaseSegments } from './phase-timeline.data';
import { scenarioBars } from './scenario-bars.data';
import { winRateData } from './win-rate.data';

const STOPPING = { tauDa: 0.6, epsilon: 0.05, nMax: 8 };

const tactics = { n: 0, meanTokens: 0, meanEntityDensity: 0, meanEntities: 0, decoyRate: 0, hedgeRate: 0 };
function match(index: number, wDa: number, over: Partial<MatchSummary['stop']> = {}, next: 'DA' | 'CA' | null = 'DA'): MatchSummary {
  return {
    matchId: `R-M${index}`,
    index,
    da: 'DA0',
    ca: 'CA0',
    wDa,
    fraudRate: null,
    tactics,
    stop: { stop: false, reason: null, t: index, streak: 0, delta: null, competencyGate: false, stabilityGate: false, explanation: `after ${index}`, ...over },
    next: next && { role: next, daShortfall: 0, caShortfall: 0, explanation: '' },
  };
}
const gym = (afterMatch: number, role: 'DA' | 'CA'): GymSummary => ({ role, from: `${role}0`, to: `${role}1`, afterMatch, note: null });

describe('win-rate chart data', () => {
  it('pairs W_DA with W_CA, draws the ε window around the previous match, and labels gyms', () => {
    const d = winRateData([match(2, 0.62, { stabilityGate: true, competencyGate: true }), match(1, 0.4)], [gym(1, 'DA')], STOPPING, 'gym');
    expect(d.points.map((p) => p.match)).toEqual([1, 2]);
    expect(d.points[0]!.epsWindow).toBeNull();
    expect(d.points[1]!.wCa).toBeCloseTo(0.38);
    expect(d.points[1]!.epsWindow!.lo).toBeCloseTo(0.35);
    expect(d.points[1]!.epsWindow!.hi).toBeCloseTo(0.45);
    expect(d.points[1]!.stabilityGate).toBe(true);
    // Gym after match 1 done; gym after match 2 is in progress (phase gym, no record yet).
    expect(d.gyms).toEqual([
      { afterMatch: 1, role: 'DA', label: 'DA gym · DA0→DA1', active: false },
      { afterMatch: 2, role: 'DA', label: 'DA gym · training', active: true },
    ]);
    expect(d.tau).toBe(0.6);
    expect(d.xMax).toBe(3);
  });
});

describe('phase timeline data', () => {
  it('lists bootstrap, matches and gyms in order, with the current phase active', () => {
    const s = phaseSegments({ phase: 'match', status: 'running', matchSummaries: [match(1, 0.3), match(2, 0.5)], gyms: [gym(1, 'CA')] });
    expect(s.map((x) => `${x.label}:${x.state}`)).toEqual(['Bootstrap:done', 'Match 1:done', 'CA gym 1:done', 'Match 2:done', 'Match 3:active']);
    expect(s[2]!.role).toBe('CA');
  });

  it('shows a gym handed to an external trainer as the active gym, the planned role (a schedule) trained', () => {
    const m1 = { ...match(1, 0.8, {}, 'CA'), gyms: ['DA' as const] };
    const s = phaseSegments({ phase: 'waiting-for-trainer', status: 'running', matchSummaries: [m1], gyms: [] });
    expect(s.map((x) => `${x.label}:${x.state}`)).toEqual(['Bootstrap:done', 'Match 1:done', 'DA gym 1 (external trainer):active']);
    expect(s[2]!.role).toBe('DA');
    const w = winRateData([m1], [], STOPPING, 'waiting-for-trainer');
    expect(w.gyms).toEqual([{ afterMatch: 1, role: 'DA', label: 'DA gym · waiting for an external trainer', active: true }]);
  });

  it('shows a finished run ending in evaluation, and a fresh one bootstrapping', () => {
    const done = phaseSegments({ phase: 'done', status: 'finished', matchSummaries: [match(1, 0.7, { stop: true }, null)], gyms: [] });
    expect(done.map((x) => x.kind)).toEqual(['bootstrap', 'match', 'evaluate', 'done']);
    const fresh = phaseSegments({ phase: 'bootstrap', status: 'running', matchSummaries: [], gyms: [] });
    expect(fresh).toEqual([{ key: 'bootstrap', kind: 'bootstrap', label: 'Bootstrap', short: 'Boot', role: null, state: 'active' }]);
  });

  it('shortens a label that would not fit its box instead of cutting it ("Held-out evaluatio")', () => {
    const evaluation = { label: 'Held-out evaluation', short: 'Evaluation' };
    expect(fitLabel(evaluation, 130, false)).toBe('Held-out evaluation');
    // A 1,024 px window with a long run: boxes about 70 px wide.
    expect(fitLabel(evaluation, 72, true)).toBe('Evaluation');
    expect(fitLabel(evaluation, 40, true)).toBe('Evaluation');
    expect(fitLabel({ label: 'DA gym 3', short: 'DA 3' }, 45, true)).toBe('DA 3 …');
  });
});

describe('gym curves data', () => {
  it('smooths with a debiased EMA (0 leaves values alone)', () => {
    expect(ema([1, 2, 3], 0)).toEqual([1, 2, 3]);
    const s = ema([1, 1, 1, 1], 0.9);
    s.forEach((v) => expect(v).toBeCloseTo(1, 10)); // debiased: no pull toward 0 at the start
    const step = ema([0, 10], 0.5);
    expect(step[1]).toBeCloseTo((10 * 0.5) / 0.75, 10);
  });

  it('bands the reward mean with its std and keeps the raw points', () => {
    const series = {
      'gym/reward_mean': [
        { step: 2, value: 1 },
        { step: 1, value: 0 },
      ],
      'gym/reward_std': [
        { step: 1, value: 0.5 },
        { step: 2, value: 0.5 },
      ],
      'gym/kl': [{ step: 1, value: 0.01 }],
    };
    const [reward, kl, loss] = gymPanels(series, 0);
    expect(reward!.segments[0]!.points).toEqual([
      { step: 1, value: 0, lo: -0.5, hi: 0.5 },
      { step: 2, value: 1, lo: 0.5, hi: 1.5 },
    ]);
    expect(reward!.segments[0]!.raw.map((p) => p.step)).toEqual([1, 2]);
    expect(kl!.segments[0]!.points).toEqual([{ step: 1, value: 0.01 }]);
    expect(loss!.segments).toEqual([]);
  });

  it('bands only the steps that have a std, when the two series do not line up', () => {
    const series = {
      'gym/reward_mean': [
        { step: 1, value: 0 },
        { step: 2, value: 1 },
        { step: 3, value: 2 },
      ],
      'gym/reward_std': [
        { step: 3, value: 0.5 },
        { step: 1, value: 0.25 },
      ],
    };
    const [reward] = gymPanels(series, 0);
    expect(reward!.segments[0]!.points).toEqual([
      { step: 1, value: 0, lo: -0.25, hi: 0.25 },
      { step: 2, value: 1 },
      { step: 3, value: 2, lo: 1.5, hi: 2.5 },
    ]);
  });

  it('gives each agent its own row and each phase its own segment, labelled, smoothed only within itself', () => {
    const at = (phase: string, from: number, values: number[]) => values.map((value, i) => ({ step: from + i, value, phase }));
    const series = {
      'gym/reward_mean': [
        ...at('bootstrap:DA0-grpo', 0, [6, 6, 6]),
        ...at('bootstrap:CA0', 3, [0, 0]),
        ...at('gym:DA1', 5, [7, 7]),
        ...at('gym:CA1', 7, [1, 1]),
      ],
      'gym/kl': [
        ...at('bootstrap:DA0-grpo', 0, [0.1, 0.1, 0.1]),
        ...at('bootstrap:CA0', 3, [0.2, 0.2]),
        ...at('gym:DA1', 5, [0.1, 0.1]),
        ...at('gym:CA1', 7, [0.3, 0.3]),
      ],
    };
    const panels = gymPanels(series, 0.9);
    expect(panels.map((p) => p.key)).toEqual(['DA:gym/reward_mean', 'DA:gym/kl', 'DA:gym/loss', 'CA:gym/reward_mean', 'CA:gym/kl', 'CA:gym/loss']);
    expect(panels.map((p) => p.title)).toEqual([
      'DA · Reward mean ± std',
      'DA · KL to reference',
      'DA · Loss',
      'CA · Reward mean ± std',
      'CA · KL to reference',
      'CA · Loss',
    ]);
    const [daReward, , , caReward] = panels;
    expect(daReward!.yTitle).toBe('r_DA per episode');
    expect(caReward!.yTitle).toBe('r_CA per episode');
    expect(panels[1]!.yTitle).toBe('KL (nats per token)');
    // Gyms numbered in the order they ran, both agents counted.
    expect(daReward!.segments.map((s) => s.label)).toEqual(['DA warm-up', 'gym 1 → DA1']);
    expect(caReward!.segments.map((s) => s.label)).toEqual(['CA pressure', 'gym 2 → CA1']);
    // A heavy smoothing restarts at each join: the CA gym's first point is its own value, not pulled toward 7.
    expect(caReward!.segments[1]!.points[0]!.value).toBeCloseTo(1, 10);
    expect(daReward!.segments[1]!.points[0]!.value).toBeCloseTo(7, 10);
  });

  it('leaves a non-finite value where it is and smooths around it', () => {
    expect(ema([1, Number.NaN, 1], 0.5)).toEqual([1, Number.NaN, 1]);
  });
});

describe('scenario bars data', () => {
  it('puts CA-winnable scenarios first and fraud references last', () => {
    const bars = scenarioBars({
      perScenario: [
        { scenarioId: 'fraud-a', fraudReference: true, episodes: 4, daWins: 4, daWinRate: 1 },
        { scenarioId: 'x', fraudReference: false, episodes: 4, daWins: 1, daWinRate: 0.25 },
      ],
    });
    expect(bars.map((b) => b.scenarioId)).toEqual(['x', 'fraud-a']);
    expect(bars[0]).toEqual({ scenarioId: 'x', rate: 0.25, wins: 1, episodes: 4, fraud: false });
    expect(scenarioBars(null)).toEqual([]);
  });
});

describe('gym curves drawing budget', () => {
  it('keeps first, last and each slice’s extremes, in order, when there are too many points', () => {
    const values = Array.from({ length: 10_000 }, (_, i) => Math.sin(i / 50) + (i === 4321 ? 9 : 0));
    const keep = keepIndices(values, 600);
    expect(keep.length).toBeLessThanOrEqual(600);
    expect(keep[0]).toBe(0);
    expect(keep.at(-1)).toBe(9_999);
    expect(keep).toEqual([...keep].sort((a, b) => a - b));
    expect(keep).toContain(4321); // the spike survives
    expect(keepIndices([3, 1, 2], 600)).toEqual([0, 1, 2]);
  });

  it('smooths over every step but draws at most the budget', () => {
    const series = { 'gym/kl': Array.from({ length: 5000 }, (_, step) => ({ step, value: step % 7 })) };
    const kl = gymPanels(series, 0.9, 300)[1]!.segments[0]!;
    expect(kl.raw.length).toBeLessThanOrEqual(300);
    expect(kl.points).toHaveLength(kl.raw.length);
    const full = gymPanels(series, 0.9, 10_000)[1]!.segments[0]!;
    const last = kl.points.at(-1)!;
    expect(last).toEqual(full.points.at(-1));
  });
});

describe('gym curves axis', () => {
  it('ticks steps with whole numbers only, never the same label twice', () => {
    expect(integerTicks([0, 1.5], 6)).toEqual([0, 1]);
    expect(integerTicks([0, 2], 8)).toEqual([0, 1, 2]);
    expect(integerTicks([3, 240], 4)).toEqual([50, 100, 150, 200]);
  });
});
