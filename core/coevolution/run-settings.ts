/**
 * What a run runs with, resolved from its config the way the runner resolves it: each GRPO phase's
 * budget as the algorithm's settings (the role's GRPO_PRESETS under the budget, IB-RL's per-role
 * rate over it, GRPO's optional defaults spelled out), and r_DA's and r_CA's weights over the
 * defaults. The runner's gyms and the run screens read the same functions.
 */
import type { GrpoSettingsView, RunSettings } from '../contract/contract';
import { GRPO_PRESETS, withGrpoDefaults } from '../rl/grpo';
import type { GrpoConfig } from '../rl/grpo';
import { ibRlSettings, isIbRl } from './ib-rl';
import { sparringConfigOf, storedRunConfig, trainerLabel } from './run-config';
import type { GrpoBudget, RunConfig } from './run-config';

/** A gym budget of the run config as the GRPO settings a gym runs with (the role's GRPO_PRESETS under it). */
export function grpoConfig(b: GrpoBudget, role: 'DA' | 'CA', seed: number): GrpoConfig {
  return {
    ...GRPO_PRESETS[role],
    K: b.K,
    lr: b.lr,
    klBeta: b.klBeta,
    clipEps: b.clipEps,
    lrSchedule: b.lrSchedule,
    steps: b.steps,
    promptsPerStep: b.promptsPerStep,
    seed,
    ...(b.maxKl !== undefined ? { maxKl: b.maxKl } : {}),
    ...(b.maxPasses !== undefined ? { maxPasses: b.maxPasses } : {}),
    ...(b.advEps !== undefined ? { advEps: b.advEps } : {}),
    ...(b.oversample !== undefined ? { oversample: b.oversample } : {}),
    ...(b.entropyCoef !== undefined ? { entropyCoef: b.entropyCoef } : {}),
    ...(b.temperature !== undefined ? { temperature: b.temperature } : {}),
    ...(b.explore !== undefined ? { explore: b.explore } : {}),
    ...(b.enumerate !== undefined ? { enumerate: b.enumerate } : {}),
  };
}

/** A role's gym budget at its own IB-RL learning rate (schedule.stagger.daLr / caLr), when one is set. */
export function roleBudget(b: GrpoBudget, lr: number | undefined): GrpoBudget {
  return lr === undefined ? b : { ...b, lr };
}

/** A stored run's settings (`runSettings`); null when its config no longer parses. */
export function settingsOf(configJson: string, runId: string, seed: number): RunSettings | null {
  const c = storedRunConfig(configJson, `run ${runId}`);
  return c && runSettings(c, seed);
}

/**
 * A run's settings as its runner resolves them (grpoConfig and GRPO's defaults for each phase,
 * r_DA's and r_CA's weights over the defaults).
 */
export function runSettings(c: RunConfig, seed: number): RunSettings {
  const sparring = sparringConfigOf(c);
  // An IB-RL schedule's per-role rate takes precedence over the gym budget's (as in the runner's gyms).
  const ib = isIbRl(c.schedule) ? ibRlSettings(c.schedule) : null;
  const view = (phase: string, b: GrpoBudget, role: 'DA' | 'CA', trainer: string | null, lr?: number): GrpoSettingsView => {
    const g = withGrpoDefaults(grpoConfig(roleBudget(b, lr), role, seed));
    return {
      phase,
      K: g.K,
      lr: g.lr,
      lrSchedule: g.lrSchedule,
      klBeta: g.klBeta,
      clipEps: g.clipEps,
      temperature: g.temperature,
      steps: g.steps,
      promptsPerStep: g.promptsPerStep,
      oversample: g.oversample,
      entropyCoef: g.entropyCoef,
      // Only the DA's gyms name their valid actions (GrpoArgs.explorable); elsewhere ε is not used.
      explore: phase === 'DA gym' ? (g.explore ?? 0) : 0,
      enumerate: phase === 'DA gym' ? (g.enumerate ?? false) : false,
      maxKl: g.maxKl ?? null,
      maxPasses: g.maxPasses ?? null,
      trainer,
    };
  };
  return {
    grpo: [
      view('DA0 warm-up', c.bootstrap.daWarmup, 'DA', null),
      view('CA0 pressure', c.bootstrap.caPressure, 'CA', null),
      view('DA gym', c.gym.da, 'DA', trainerLabel(c.gym.da.trainer), ib?.daLr),
      view('CA gym', c.gym.ca, 'CA', trainerLabel(c.gym.ca.trainer), ib?.caLr),
    ],
    failureShare: c.gym.failureShare,
    gymMatches: c.gym.matches ?? 1,
    daFailure: c.gym.daFailure ?? 'lost',
    caDecisions: c.gym.caDecisions ?? 'every-turn',
    daOtherIntents: c.gym.daOtherIntents ?? 0,
    daReward: { ...sparring.daReward },
    caReward: { ...sparring.caReward },
  };
}
