/**
 * What a run runs with, resolved from its config the way the runner resolves it: each GRPO phase's
 * budget as the algorithm's settings (the role's GRPO_PRESETS under the budget, IB-RL's per-role
 * rate over it, GRPO's optional defaults spelled out), and r_DA's and r_CA's weights over the
 * defaults. The runner's gyms and the run screens read the same functions.
 */
import { GRPO_PRESETS, withGrpoDefaults } from '../rl/grpo';
import type { GrpoConfig } from '../rl/grpo';
import { ibRlSettings, isIbRl } from './ib-rl';
import { sparringConfigOf, storedRunConfig, trainerLabel } from './run-config';
import type { GrpoBudget, RunConfig } from './run-config';

/** One GRPO phase of a run (the DA's warm-up, the CA's pressure, each role's gyms) as the runner resolves its budget. */
export interface GrpoSettingsView {
  /** 'DA0 warm-up', 'CA0 pressure', 'DA gym', 'CA gym'. */
  phase: string;
  K: number;
  lr: number;
  lrSchedule: string;
  /** β of the KL penalty to the phase's reference. */
  klBeta: number;
  /** ε of the clipped ratio. */
  clipEps: number;
  /** T: the temperature the K actions are sampled at. */
  temperature: number;
  steps: number;
  promptsPerStep: number;
  oversample: number;
  entropyCoef: number;
  /** ε-greedy exploration's share of samples (the DA's gyms only; 0 elsewhere). */
  explore: number;
  /** Every valid action tried once per decision point (the DA's gyms only; false elsewhere). */
  enumerate: boolean;
  /** Trust region (nats) and pass cap; null: none. */
  maxKl: number | null;
  maxPasses: number | null;
  /** Who trains the gym ('builtin', or 'external' for a trainer such as TRL or verl); null for bootstrap phases. */
  trainer: string | null;
}

/** What a run runs with beyond its stopping constants: GRPO per phase, the gym mix and r_DA / r_CA's weights. */
export interface RunSettings {
  grpo: GrpoSettingsView[];
  /** The share of failure transcripts in a gym's data (RL-ADA's 70:30). */
  failureShare: number;
  /** How many of the run's latest arena matches feed a gym (RunConfig gym.matches; 1: the latest alone). */
  gymMatches: number;
  /** Which transcripts are the DA's failures in its gym's mix (RunConfig gym.daFailure): lost, or lost or left unresolved. */
  daFailure: 'lost' | 'unresolved';
  /** Which customer turns are the CA gym's decision points (RunConfig gym.caDecisions): each one, or the openings only. */
  caDecisions: 'every-turn' | 'openings';
  /** Episodes per intent of each DA gym's match beyond the arena's intents (RunConfig gym.daOtherIntents); 0: none. */
  daOtherIntents: number;
  daReward: Record<string, number>;
  caReward: Record<string, number>;
}

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
