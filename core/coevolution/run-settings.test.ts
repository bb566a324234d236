import { describe, expect, it } from 'vitest';
import { DEFAULT_CONFIG } from '../config';
import { PAPER_FAITHFUL_GYMS, PRESETS } from '../presets';
import { grpoConfig, settingsOf } from './run-settings';

const paper = PRESETS.paper.config;
const phase = (json: string, name: string) => settingsOf(json, 'R1', 1)!.grpo.find((g) => g.phase === name)!;

describe('settingsOf: what a run runs with, as its runner resolves the config', () => {
  it("spells out the paper preset's gyms, GRPO's optional defaults included", () => {
    const s = settingsOf(JSON.stringify(paper), 'R1', 1)!;
    expect(s.grpo.map((g) => g.phase)).toEqual(['DA0 warm-up', 'CA0 pressure', 'DA gym', 'CA gym']);
    const da = s.grpo[2]!;
    expect(da).toMatchObject({ K: 16, steps: 120, lr: PAPER_FAITHFUL_GYMS.da.lr, klBeta: 0.3, clipEps: 0.2, maxKl: 1, maxPasses: 8, trainer: 'builtin' });
    // Absent from the preset: the defaults the GRPO step runs with.
    expect(da).toMatchObject({ temperature: 1, oversample: 1, entropyCoef: 0, explore: 0, enumerate: false });
    expect(s.grpo[3]).toMatchObject({ K: 8, steps: 200, oversample: 2, lrSchedule: 'cosine', maxKl: null, maxPasses: null });
    expect(s.grpo[1]).toMatchObject({ steps: PAPER_FAITHFUL_GYMS.caPressureSteps, trainer: null });
    expect(s.failureShare).toBe(0.7);
    expect(s.gymMatches).toBe(PAPER_FAITHFUL_GYMS.matches);
    expect(s.daFailure).toBe('lost');
    expect(s.caDecisions).toBe('every-turn');
    expect(s.daOtherIntents).toBe(0);
    expect(s.daReward).toEqual(DEFAULT_CONFIG.daReward);
    expect(s.caReward).toEqual(DEFAULT_CONFIG.caReward);
  });

  it('shows what a config sets over the defaults: a temperature, a reward weight, an external trainer', () => {
    const c = structuredClone(paper) as typeof paper & { caReward?: Record<string, number> };
    c.gym.da = { ...c.gym.da, temperature: 2, trainer: 'external', explore: 0.1, enumerate: true };
    c.gym.ca = { ...c.gym.ca, explore: 0.1 };
    c.gym.matches = 3;
    c.gym.daFailure = 'unresolved';
    c.gym.caDecisions = 'openings';
    c.gym.daOtherIntents = 8;
    c.caReward = { invDaMisroute: 2 };
    const s = settingsOf(JSON.stringify(c), 'R1', 1)!;
    expect(s.grpo[2]).toMatchObject({ temperature: 2, trainer: 'external', explore: 0.1, enumerate: true });
    expect(s.grpo[3]!.explore).toBe(0); // the CA's gyms name no valid actions: ε is not used there
    expect(s.grpo[3]!.enumerate).toBe(false);
    expect(s.caReward).toEqual({ ...DEFAULT_CONFIG.caReward, invDaMisroute: 2 });
    expect(s.gymMatches).toBe(3);
    expect(s.daFailure).toBe('unresolved');
    expect(s.caDecisions).toBe('openings');
    expect(s.daOtherIntents).toBe(8);
  });

  it("takes an IB-RL schedule's per-role rate over the gym budget's, as the runner's gyms do", () => {
    const json = JSON.stringify({ ...paper, schedule: { kind: 'ib-rl', stagger: { daEvery: 1, caEvery: 2, caLr: 3e-4 } } });
    expect(phase(json, 'CA gym').lr).toBe(3e-4);
    expect(phase(json, 'DA gym').lr).toBe(PAPER_FAITHFUL_GYMS.da.lr);
    // Bootstrap phases keep their own budgets.
    expect(phase(json, 'CA0 pressure').lr).toBe(paper.bootstrap.caPressure.lr);
  });

  it('is null for a stored config that no longer parses', () => {
    expect(settingsOf('{"arena": 3}', 'R1', 1)).toBeNull();
    expect(settingsOf('not json', 'R1', 1)).toBeNull();
  });

  it("grpoConfig keeps the budget's optional settings only when set", () => {
    const g = grpoConfig(paper.gym.ca, 'CA', 7);
    expect(g).toMatchObject({ K: 8, seed: 7, oversample: 2 });
    expect('temperature' in g).toBe(false);
  });
});
