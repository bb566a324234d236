/**
 * GRPO (Shao et al. 2024), as RL-ADA's gyms use it (§3.5, Appendix B): for each prompt — a
 * decision point of the training agent — sample K actions from the current policy, score each,
 * normalise the rewards within the prompt's group, and take a clipped-ratio policy-gradient step
 * with a KL penalty toward a frozen reference policy. No value function.
 *
 * Read top to bottom in the order a step runs: config → rollouts → rewards → advantages →
 * update → metrics. Generic over the policy port, so the same file trains the DA and the CA.
 *
 * Where the loss lives: this file computes advantages and drives the update; the clipped
 * surrogate and the KL penalty themselves are graph nodes in models/policy-loss.ts
 * (`policyGradientLoss`), built into each network's train graph (models/da-net.ts,
 * models/ca-net.ts) and run by the model's `policyGradientStep` behind the PolicyModel port (./ports.ts).
 *
 * Per-role isolation (IB-RL): everything a run learns lives in the model instance it is given
 * (weights and optimiser state); this module keeps no state between calls, so a DA run and a CA
 * run never share advantages, baselines or optimiser moments.
 */
import { deriveSeed, Rng } from '../random';
import type { ModelSnapshot, PolicyModel, StepMetrics } from './ports';
import { PAPER_GYM_CA, PAPER_GYM_DA } from '../presets';

// ----------------------------------------------------------------------------------- config

/** What GrpoConfig's optional settings are when absent: plain GRPO at the policy's own temperature. */
export const GRPO_OPTIONAL_DEFAULTS = { temperature: 1, oversample: 1, entropyCoef: 0 } as const;

/** A GrpoConfig with its optional sampling settings spelled out (what a step runs with). */
export function withGrpoDefaults(c: GrpoConfig): GrpoConfig & { temperature: number; oversample: number; entropyCoef: number } {
  return {
    ...c,
    temperature: c.temperature ?? GRPO_OPTIONAL_DEFAULTS.temperature,
    oversample: c.oversample ?? GRPO_OPTIONAL_DEFAULTS.oversample,
    entropyCoef: c.entropyCoef ?? GRPO_OPTIONAL_DEFAULTS.entropyCoef,
  };
}

export interface GrpoConfig {
  /** K: actions sampled per prompt (the group size). */
  K: number;
  /** ε of the clipped ratio min(ρÂ, clip(ρ, 1 − ε, 1 + ε)Â). */
  clipEps: number;
  /** β: weight of the KL penalty toward the reference policy. */
  klBeta: number;
  /**
   * c: an entropy bonus, the loss takes −c·H(π(·|s)) averaged over the batch's rows (for a
   * factored policy H is the sum over its heads). Keeps a head from settling on one value that the
   * gym then never samples against a changed opponent. Absent or 0: none (plain GRPO).
   */
  entropyCoef?: number;
  /**
   * T: the temperature the K actions are sampled at, as TRL's and verl's GRPO sample completions
   * (their `temperature`). The policy the step samples, scores against the reference and updates
   * is then π_T(a|s) ∝ π(a|s)^(1/T), the logits over T, in the loss too (models/policy-loss.ts);
   * the greedy action is the same at every T. Above 1 the gym tries actions that the policy holds
   * unlikely (an action 7 nats below the favourite is drawn about once in 1,100 samples at T = 1,
   * once in 33 at T = 2) and learns from what they earn. Absent or 1: the policy itself.
   */
  temperature?: number;
  /**
   * ε-greedy exploration: each of a step's samples is, with probability ε, replaced by an action
   * drawn uniformly from those valid at its prompt (GrpoArgs.explorable; trainers without it
   * ignore ε), and scored and updated as if the policy had drawn it: its old log-probability is
   * the policy's own, so ρ = 1 at the first iteration and no importance weight shrinks it. Biased,
   * as ε-greedy is, but an action many nats below the favourite, which neither T = 1 nor T = 4
   * ever draws (a retry of a dispute call after INVALID_ARGUMENTS, core/presets.ts), is tried
   * about εK / |valid| times per group and learnt from what it earns. Absent or 0: none.
   */
  explore?: number;
  /**
   * Every valid action tried at every prompt: the first |valid| of each group's K samples are the
   * actions valid at its prompt (GrpoArgs.explorable), one each, the rest drawn from the policy;
   * each is scored and updated as if the policy had drawn it (ρ = 1 at the first iteration, as
   * ε-greedy's). A group then always holds the action many nats below the favourite, at the
   * state where it pays as at the states where it does not, and the advantage compares them all.
   * Biased as ε-greedy is. Absent or false: none.
   */
  enumerate?: boolean;
  /** Peak learning rate. */
  lr: number;
  /** 'constant', or 'cosine' decay from lr to lr · lrFinalRatio over `steps`. */
  lrSchedule: 'constant' | 'cosine';
  /** Where the cosine schedule ends, as a fraction of lr. */
  lrFinalRatio: number;
  /** Optimiser steps (each on a fresh batch of prompts). */
  steps: number;
  /** Prompts (decision points) per step; a step scores promptsPerStep × K actions. */
  promptsPerStep: number;
  /**
   * Dynamic sampling (DAPO, Yu et al. 2025, §3.2): each step draws oversample × promptsPerStep
   * decision points, scores K actions at each, and updates on promptsPerStep groups, those whose
   * rewards differ first (in draw order), then zero-variance ones to fill the batch. A group whose
   * K actions all score the same (every variant loses, or the choice cannot change the outcome)
   * carries no policy gradient; without it most of a CA gym's batch was such groups. 1 (default):
   * the batch is the draw, as in plain GRPO.
   */
  oversample?: number;
  /** μ: policy-gradient iterations on each sampled batch (1 = on-policy, ratio ρ = 1 at the first). */
  mu: number;
  /** Added to the group's standard deviation before dividing: Â = (r − mean) / (std + advEps). */
  advEps: number;
  /** Seeds prompt order and action sampling; the same seed and model give the same run. */
  seed: number;
  /**
   * A trust region on the whole run (PPO's `target_kl`): the run ends early, keeping the weights
   * it has, at the first step where the sampled KL to the reference, averaged over the last
   * `KL_WINDOW` steps, exceeds this many nats (one step's k3 estimate alone jumps to 4–5 nats
   * when a rare action is drawn). Absent: no bound. A gym on a few decision points otherwise
   * walks far from its start (KL of 3–9 nats seen) and forgets what it knew outside them.
   */
  maxKl?: number;
  /**
   * At most this many passes over the prompts: `steps` is cut to ⌈maxPasses · prompts /
   * promptsPerStep⌉, so a gym with little data takes few steps instead of replaying the same
   * decision points dozens of times. Absent: no cap.
   */
  maxPasses?: number;
}

/**
 * The two gyms' settings (RL-ADA §3.5, Appendix B; DESIGN.md §1): the DA samples more actions
 * per prompt (K = 16; its structured output needs more rollout diversity), the CA fewer (K = 8)
 * with a tighter KL (β = 0.05) and a cosine learning rate. The learning rates suit the builtin
 * networks (AdamW on small MLPs), not the paper's LoRA on 3B/7B models. They are the paper gyms
 * of the defaults table (core/presets.ts), so a run's gym and a bare GRPO call agree.
 */
export const GRPO_PRESETS = {
  DA: grpoDefaults(PAPER_GYM_DA),
  CA: grpoDefaults(PAPER_GYM_CA),
} satisfies Record<'DA' | 'CA', GrpoConfig>;

/** A gym budget of the defaults table (core/presets.ts) as the algorithm's settings; the trust region and pass cap stay the gym's. */
function grpoDefaults(b: typeof PAPER_GYM_DA): GrpoConfig {
  return {
    K: b.K,
    clipEps: b.clipEps,
    klBeta: b.klBeta,
    lr: b.lr,
    lrSchedule: b.lrSchedule,
    lrFinalRatio: 0,
    steps: b.steps,
    promptsPerStep: b.promptsPerStep,
    mu: 1,
    advEps: 1e-4,
    seed: 1,
  };
}

export const DA_GRPO: GrpoConfig = GRPO_PRESETS.DA;
export const CA_GRPO: GrpoConfig = GRPO_PRESETS.CA;

/** Throws on a config that cannot run, naming the field. */
export function checkGrpoConfig(c: GrpoConfig): void {
  const int = (name: keyof GrpoConfig, min: number) => {
    const v = c[name] as number;
    if (!Number.isInteger(v) || v < min) throw new RangeError(`GRPO config: ${name} must be an integer ≥ ${min}, got ${v}`);
  };
  const num = (name: keyof GrpoConfig, lo: number, hi = Infinity) => {
    const v = c[name] as number;
    if (!Number.isFinite(v) || v < lo || v > hi) throw new RangeError(`GRPO config: ${name} must be a number in [${lo}, ${hi}], got ${v}`);
  };
  int('K', 2); // a group of one has no variance to learn from
  int('steps', 0);
  int('promptsPerStep', 1);
  int('mu', 1);
  num('clipEps', 0, 1);
  num('klBeta', 0);
  num('lr', 0);
  num('lrFinalRatio', 0, 1);
  num('advEps', 0);
  if (c.maxKl !== undefined) num('maxKl', 0);
  if (c.maxPasses !== undefined) num('maxPasses', 0);
  if (c.oversample !== undefined) int('oversample', 1);
  if (c.entropyCoef !== undefined) num('entropyCoef', 0);
  if (c.explore !== undefined) num('explore', 0, 1);
  if (c.temperature !== undefined && !(Number.isFinite(c.temperature) && c.temperature > 0))
    throw new RangeError(`GRPO config: temperature must be a positive number, got ${c.temperature}`);
  if (c.lrSchedule !== 'constant' && c.lrSchedule !== 'cosine')
    throw new RangeError(`GRPO config: lrSchedule must be 'constant' or 'cosine', got '${String(c.lrSchedule)}'`);
}

/** Learning rate of step `step` (0-based) of `c.steps`. */
export function learningRate(c: Pick<GrpoConfig, 'lr' | 'lrSchedule' | 'lrFinalRatio' | 'steps'>, step: number): number {
  if (c.lrSchedule === 'constant' || c.steps <= 1) return c.lr;
  const floor = c.lr * c.lrFinalRatio;
  return floor + 0.5 * (c.lr - floor) * (1 + Math.cos((Math.PI * step) / c.steps));
}

// ---------------------------------------------------------------------------------- inputs

/**
 * Scores sampled actions. Either one (prompt, action) at a time, or a whole step's worth at once
 * (`batch`), which lets a rollout reward run its episodes in lock-step and batch the policy calls.
 */
export type GrpoReward<P, Act> =
  ((prompt: P, action: Act) => number | Promise<number>) | { batch(items: readonly { prompt: P; action: Act }[]): Promise<readonly number[]> };

/** log π_ref(a|s) (at the gym's temperature): a frozen reference model, or any function giving the same numbers. */
export type ReferencePolicy<Obs, Act> =
  Pick<PolicyModel<Obs, Act, never>, 'logProbs'> | ((obs: readonly Obs[], actions: readonly Act[], temperature: number) => Promise<Float32Array>);

export interface GrpoArgs<P, Obs, Act> {
  /** The policy being trained; it holds the weights and the optimiser state (and nothing else does). */
  model: PolicyModel<Obs, Act, never>;
  /** The frozen reference for the KL penalty (usually a copy of the model as the run starts). */
  reference: ReferencePolicy<Obs, Act>;
  /** Decision points to train on; each step takes promptsPerStep of them, in a seeded order. */
  prompts: readonly P[];
  /** The actions valid at an observation, for ε-greedy exploration (GrpoConfig.explore). */
  explorable?: (obs: Obs) => readonly Act[];
  /**
   * The policy's observation at a prompt in a step (sampling, the reference and the update all see
   * this one, so an augmented observation, drawn per step, keeps the ratio and the KL consistent).
   */
  observe: (prompt: P, step: number) => Obs;
  reward: GrpoReward<P, Act>;
  config: GrpoConfig;
  /**
   * When given, actions with the same key in one group are scored once. Only for rewards that
   * are deterministic in (prompt, action) — e.g. a rollout with a greedy policy and seeded world.
   */
  actionKey?: (action: Act) => string;
  /** Called after every step with its metrics (registry keys, see `GRPO_METRIC_KEYS`) and the config it ran with. */
  onStep?: (metrics: GrpoStepMetrics, step: number, config: GrpoConfig) => void;
  /**
   * Polled at every step boundary, before the step: the whole config that step runs with (EAU
   * knobs hot-swap K, lr, β and clip ε between two steps, never within one). Its `steps`,
   * `promptsPerStep`, `maxPasses` and `seed` are ignored: the run's plan stays `config`'s.
   */
  configForStep?: (step: number) => GrpoConfig;
  /** Polled before each step; true ends the run early (not an error). */
  shouldStop?: () => boolean;
  /** First step to run (to resume a run; the prompt order and samples depend only on seed and step). */
  startStep?: number;
}

/** One step's figures under the metrics registry's keys. */
export type GrpoStepMetrics = StepMetrics & {
  'gym/reward_mean': number;
  'gym/reward_std': number;
  'gym/kl': number;
  'gym/skipped_groups': number;
  'gym/lr': number;
};

/** The keys a GRPO step reports; the model's train step adds `gym/loss`, `gym/clip_frac`, `gym/grad_norm`. */
export const GRPO_METRIC_KEYS = [
  'gym/reward_mean',
  'gym/reward_std',
  'gym/kl',
  'gym/loss',
  'gym/clip_frac',
  'gym/grad_norm',
  'gym/skipped_groups',
  'gym/lr',
] as const;

export interface GrpoResult {
  /** Metrics of every step run, in order. */
  history: GrpoStepMetrics[];
  /** Steps completed (startStep + history.length). */
  stepsDone: number;
  /** True when shouldStop ended the run before config.steps. */
  stopped: boolean;
  /** The steps the run was set to take: config.steps, or fewer under maxPasses. */
  plannedSteps: number;
  /** Why the run ended before plannedSteps without being stopped: the KL bound `maxKl` was crossed by the KL_WINDOW mean `kl` at step `step`. */
  earlyStop: { reason: 'max_kl'; step: number; kl: number; maxKl: number } | null;
}

/** Steps whose sampled KL the trust region (maxKl) averages. */
export const KL_WINDOW = 5;

/** Mean gym/kl of the last KL_WINDOW steps (fewer at the start). */
function recentKl(history: readonly GrpoStepMetrics[]): number {
  const last = history.slice(-KL_WINDOW);
  return last.reduce((s, m) => s + m['gym/kl'], 0) / Math.max(1, last.length);
}

/** The steps a run takes: config.steps, cut by maxPasses over `prompts` decision points. */
export function plannedSteps(c: Pick<GrpoConfig, 'steps' | 'promptsPerStep' | 'maxPasses'>, prompts: number): number {
  if (c.maxPasses === undefined) return c.steps;
  return Math.min(c.steps, Math.max(1, Math.ceil((c.maxPasses * prompts) / c.promptsPerStep)));
}

/** A step produced a non-finite reward or loss; the model is as it was before that step (restored from a snapshot if the update had run). */
export class GrpoDivergenceError extends Error {
  override name = 'GrpoDivergenceError';
  constructor(
    readonly step: number,
    readonly reason: string,
    /** Metrics of the steps that completed before this one. */
    readonly history: readonly GrpoStepMetrics[],
  ) {
    super(`GRPO step ${step}: ${reason}; training stopped with the model as it was before step ${step}`);
  }
}

// --------------------------------------------------------------------------------- the run

/** Runs config.steps GRPO steps (from startStep) and returns every step's metrics. */
export async function runGrpo<P, Obs, Act>(args: GrpoArgs<P, Obs, Act>): Promise<GrpoResult> {
  const c = args.config;
  checkGrpoConfig(c);
  if (args.prompts.length === 0) throw new Error('GRPO: no prompts to train on');
  const history: GrpoStepMetrics[] = [];
  const start = args.startStep ?? 0;
  const planned = plannedSteps(c, args.prompts.length);
  for (let step = start; step < planned; step++) {
    if (args.shouldStop?.()) return { history, stepsDone: step, stopped: true, plannedSteps: planned, earlyStop: null };
    const stepConfig = args.configForStep ? forStep(c, args.configForStep(step)) : c;
    const m = await grpoStep(stepConfig === c ? args : { ...args, config: stepConfig }, step, history);
    history.push(m);
    args.onStep?.(m, step, stepConfig);
    // gym/kl is measured at sampling time, before this step's update: the weights kept are those
    // that first left the trust region, one update past its edge.
    const kl = recentKl(history);
    if (c.maxKl !== undefined && kl > c.maxKl) {
      return { history, stepsDone: step + 1, stopped: false, plannedSteps: planned, earlyStop: { reason: 'max_kl', step, kl, maxKl: c.maxKl } };
    }
  }
  return { history, stepsDone: Math.max(start, planned), stopped: false, plannedSteps: planned, earlyStop: null };
}

/** A step's config from the run's and the knobs' (the plan stays the run's), checked and frozen for the step. */
function forStep(run: GrpoConfig, knobs: GrpoConfig): GrpoConfig {
  const c = {
    ...knobs,
    steps: run.steps,
    promptsPerStep: run.promptsPerStep,
    seed: run.seed,
    ...(run.maxPasses !== undefined ? { maxPasses: run.maxPasses } : {}),
  };
  checkGrpoConfig(c);
  return Object.freeze(c);
}

/**
 * One GRPO step. Restores the model and throws `GrpoDivergenceError` when a reward or the loss
 * is not finite, so the model is never left with NaN weights.
 */
export async function grpoStep<P, Obs, Act>(args: GrpoArgs<P, Obs, Act>, step: number, history: readonly GrpoStepMetrics[] = []): Promise<GrpoStepMetrics> {
  const { model } = args;
  const c = withGrpoDefaults(args.config);
  const K = c.K;
  // Sampling and scoring leave the model as it is; only the update can break it, so the state
  // to fall back to is taken right before the update (and not at all when nothing updates).
  let before: ModelSnapshot | null = null;
  const fail = async (reason: string): Promise<never> => {
    if (before) await model.restore(before);
    throw new GrpoDivergenceError(step, reason, history);
  };

  // ------------------------------------------------------------------ rollouts
  const drawn = c.promptsPerStep * c.oversample;
  const prompts = promptsForStep(args.prompts.length, drawn, c.seed, step).map((i) => args.prompts[i]!); // G prompts
  const obs: Obs[] = []; // [G·K], group g occupies rows g·K … g·K + K − 1
  for (const p of prompts) {
    const o = args.observe(p, step);
    for (let k = 0; k < K; k++) obs.push(o);
  }
  const rng = new Rng(deriveSeed(c.seed, 'grpo-sample', step));
  const T = c.temperature;
  const sampled = await model.sample(obs, () => rng.next(), T);
  if (sampled.length !== obs.length) throw new Error(`GRPO: the model sampled ${sampled.length} actions for ${obs.length} observations`);
  const actions = sampled.map((s) => s.action);
  const oldLogProbs = Float32Array.from(sampled, (s) => s.logProb); // [G·K]
  // Rows whose action the policy did not draw: ε-greedy's, then enumerate's (which win where both chose).
  const replaced = new Map<number, Act>();
  if (args.explorable) {
    if (c.explore) for (const [i, a] of exploreRows(args.explorable, c.explore, deriveSeed(c.seed, 'grpo-explore', step), obs)) replaced.set(i, a);
    if (c.enumerate) for (const [i, a] of enumerateRows(args.explorable, K, obs)) replaced.set(i, a);
  }
  await replaceRows(model, replaced, obs, actions, oldLogProbs, T);

  // ------------------------------------------------------------------- rewards
  const rewards = await scoreActions(args, prompts, actions); // [G·K]
  const bad = rewards.findIndex((r) => !Number.isFinite(r));
  if (bad >= 0) return fail(`reward ${rewards[bad]} for sample ${bad % K} of prompt ${Math.floor(bad / K)} (not a finite number)`);

  // ---------------------------------------------------------------- advantages
  const adv = groupAdvantages(rewards, K, c.advEps);
  const signal = groupsWithSignal(adv, K);
  const batchGroups = dynamicBatch(signal, c.promptsPerStep);

  // -------------------------------------------------------------------- update
  const refLogProbs = await referenceLogProbs(args.reference, obs, actions, T); // [G·K]
  // k3 estimates KL(π ‖ π_ref) over π's own draws only: a replaced row's action, one the reference
  // may hold 10 nats down, read as a 10-nat divergence, and the trust region (maxKl) then ended
  // gyms with enumerate after 20–45 of their 120 steps. Those rows are left out of the estimate.
  const own = replaced.size ? Array.from({ length: obs.length }, (_, i) => i).filter((i) => !replaced.has(i)) : null;
  const kl = own
    ? meanKl(
        Float32Array.from(own, (i) => oldLogProbs[i]!),
        Float32Array.from(own, (i) => refLogProbs[i]!),
      )
    : meanKl(oldLogProbs, refLogProbs);
  if (!Number.isFinite(kl)) return fail(`gym/kl = ${kl} (the reference gave log-probabilities that are not finite)`);
  // Rows of the groups with any variance carry the policy gradient. With a KL penalty every row
  // of the batch is updated (Â = 0 in the others, as in standard GRPO): a group whose samples all
  // agree is where the policy has concentrated, and leaving it out removed the one term that pulls
  // such a policy back toward the reference (a DA gym collapsed onto one action there, KL 7–9 nats).
  const rows = batchGroups.flatMap((g) => Array.from({ length: K }, (_, k) => g * K + k));
  const keep = c.klBeta > 0 ? rows : rows.filter((i) => signal[Math.floor(i / K)]);
  const lr = learningRate(c, step);
  const updates: StepMetrics[] = [];
  if (keep.length > 0) {
    const batch = {
      obs: keep.map((i) => obs[i]!),
      actions: keep.map((i) => actions[i]!),
      advantages: Float32Array.from(keep, (i) => adv.advantages[i]!),
      oldLogProbs: Float32Array.from(keep, (i) => oldLogProbs[i]!),
      refLogProbs: Float32Array.from(keep, (i) => refLogProbs[i]!),
    };
    before = await model.snapshot();
    for (let it = 0; it < c.mu; it++) {
      let m: StepMetrics;
      try {
        m = await model.policyGradientStep(batch, {
          lr,
          clipEps: c.clipEps,
          klBeta: c.klBeta,
          ...(c.entropyCoef ? { entropyCoef: c.entropyCoef } : {}),
          temperature: T,
        });
      } catch (e) {
        await model.restore(before);
        throw e;
      }
      const nonFinite = Object.entries(m).find(([, v]) => !Number.isFinite(v));
      if (nonFinite) return fail(`${nonFinite[0]} = ${nonFinite[1]} in policy-gradient iteration ${it + 1} of ${c.mu}`);
      updates.push(m);
    }
  }

  // ------------------------------------------------------------------- metrics
  // The model's own figures (gym/loss, gym/clip_frac, gym/grad_norm, …) averaged over the μ
  // iterations; gym/kl is this step's k3 estimate over the samples the policy drew, at sampling time, so every
  // model reports the same quantity (the model's in-update estimate covers only kept groups).
  return {
    ...meanOf(updates),
    'gym/reward_mean': mean(rewards),
    'gym/reward_std': std(rewards),
    'gym/kl': kl,
    'gym/skipped_groups': batchGroups.filter((g) => !signal[g]).length,
    'gym/lr': lr,
  };
}

/**
 * Indices of the prompts for `step`: a seeded permutation per pass over the prompts, so every
 * prompt is used once before any is used twice, and a step's batch depends only on (seed, step).
 */
export function promptsForStep(n: number, perStep: number, seed: number, step: number): number[] {
  const out: number[] = [];
  for (let j = step * perStep; j < (step + 1) * perStep; j++) {
    const pass = Math.floor(j / n);
    out.push(permutation(n, deriveSeed(seed, 'grpo-prompts', pass))[j % n]!);
  }
  return out;
}

const permCache = new Map<string, number[]>();
function permutation(n: number, seed: number): number[] {
  const key = `${n}:${seed}`;
  let p = permCache.get(key);
  if (!p) {
    const rng = new Rng(seed);
    p = Array.from({ length: n }, (_, i) => i);
    for (let i = n - 1; i > 0; i--) {
      const j = rng.int(0, i);
      [p[i], p[j]] = [p[j]!, p[i]!];
    }
    if (permCache.size > 64) permCache.clear();
    permCache.set(key, p);
  }
  return p;
}

async function scoreActions<P, Obs, Act>(args: GrpoArgs<P, Obs, Act>, prompts: readonly P[], actions: readonly Act[]): Promise<number[]> {
  const K = args.config.K;
  // Which rows need scoring: all of them, or the first of each (group, action key).
  const rowsToScore: number[] = [];
  const sameAs = new Int32Array(actions.length).fill(-1);
  for (let g = 0; g < prompts.length; g++) {
    const seen = new Map<string, number>();
    for (let k = 0; k < K; k++) {
      const i = g * K + k;
      const key = args.actionKey?.(actions[i]!);
      const first = key === undefined ? undefined : seen.get(key);
      if (first !== undefined) sameAs[i] = first;
      else {
        if (key !== undefined) seen.set(key, i);
        rowsToScore.push(i);
      }
    }
  }
  const items = rowsToScore.map((i) => ({ prompt: prompts[Math.floor(i / K)]!, action: actions[i]! }));
  const r = args.reward;
  const scores = typeof r === 'function' ? await Promise.all(items.map(async (it) => r(it.prompt, it.action))) : await r.batch(items);
  if (scores.length !== items.length) throw new Error(`GRPO: the reward scored ${scores.length} of ${items.length} actions`);
  const out = new Array<number>(actions.length);
  rowsToScore.forEach((row, j) => (out[row] = scores[j]!));
  for (let i = 0; i < out.length; i++) if (sameAs[i]! >= 0) out[i] = out[sameAs[i]!]!;
  return out;
}

/** GrpoConfig.explore: the rows to replace, each with probability ε, by an action drawn uniformly from those valid at it. */
function exploreRows<Obs, Act>(explorable: (obs: Obs) => readonly Act[], eps: number, seed: number, obs: readonly Obs[]): Map<number, Act> {
  const rng = new Rng(seed);
  const rows = new Map<number, Act>();
  obs.forEach((o, i) => {
    if (rng.next() >= eps) return;
    const valid = explorable(o);
    if (valid.length > 0) rows.set(i, valid[Math.floor(rng.next() * valid.length)]!);
  });
  return rows;
}

/** GrpoConfig.enumerate: each group's first rows, replaced by the actions valid at its prompt, one each. */
function enumerateRows<Obs, Act>(explorable: (obs: Obs) => readonly Act[], K: number, obs: readonly Obs[]): Map<number, Act> {
  const rows = new Map<number, Act>();
  for (let g = 0; g * K < obs.length; g++)
    explorable(obs[g * K]!)
      .slice(0, K)
      .forEach((a, j) => rows.set(g * K + j, a));
  return rows;
}

/** Puts the replacement actions in place, each with the policy's own log-probability as its old one (ρ = 1 at the first iteration). */
async function replaceRows<Obs, Act>(
  model: Pick<PolicyModel<Obs, Act, never>, 'logProbs'>,
  rows: ReadonlyMap<number, Act>,
  obs: readonly Obs[],
  actions: Act[],
  oldLogProbs: Float32Array,
  T: number,
): Promise<void> {
  const at = [...rows.keys()];
  if (at.length === 0) return;
  for (const [i, a] of rows) actions[i] = a;
  const lp = await model.logProbs(
    at.map((i) => obs[i]!),
    at.map((i) => actions[i]!),
    T,
  );
  at.forEach((i, j) => (oldLogProbs[i] = lp[j]!));
}

async function referenceLogProbs<Obs, Act>(ref: ReferencePolicy<Obs, Act>, obs: readonly Obs[], actions: readonly Act[], T: number): Promise<Float32Array> {
  const lp = typeof ref === 'function' ? await ref(obs, actions, T) : await ref.logProbs(obs, actions, T);
  if (lp.length !== actions.length) throw new Error(`GRPO: the reference gave ${lp.length} log-probabilities for ${actions.length} actions`);
  return lp;
}

// ------------------------------------------------------------------------ advantage math

export interface GroupAdvantages {
  /** Â per row, [G·K]; 0 in skipped groups. */
  advantages: Float32Array;
  /** Rows of the groups that carry a gradient (std > 0), in order. */
  keep: number[];
  /** Groups whose rewards were all equal: no signal, left out of the update. */
  skippedGroups: number;
  /** Per-group mean and sample standard deviation of the rewards, [G]. */
  groupMean: Float64Array;
  groupStd: Float64Array;
}

/**
 * Group-normalised advantages (GRPO): rows are grouped K at a time (one prompt's K samples) and
 * Â_i = (r_i − mean_g) / (std_g + eps), with std_g the sample standard deviation (n − 1, as in
 * TRL's GRPO trainer). A group whose rewards are all equal has no preferred action: its Â would
 * be 0 anyway, so it is skipped and counted rather than fed to the update (where it would only
 * contribute the KL term).
 */
export function groupAdvantages(rewards: readonly number[] | Float32Array | Float64Array, K: number, eps: number): GroupAdvantages {
  if (!Number.isInteger(K) || K < 2) throw new RangeError(`groupAdvantages: K must be an integer ≥ 2, got ${K}`);
  if (rewards.length % K !== 0) throw new RangeError(`groupAdvantages: ${rewards.length} rewards do not split into groups of ${K}`);
  const G = rewards.length / K;
  const advantages = new Float32Array(rewards.length);
  const groupMean = new Float64Array(G);
  const groupStd = new Float64Array(G);
  const keep: number[] = [];
  let skippedGroups = 0;
  for (let g = 0; g < G; g++) {
    let sum = 0;
    for (let k = 0; k < K; k++) sum += rewards[g * K + k]!;
    const mu = sum / K;
    let ss = 0;
    for (let k = 0; k < K; k++) ss += (rewards[g * K + k]! - mu) ** 2;
    const sd = Math.sqrt(ss / (K - 1));
    groupMean[g] = mu;
    groupStd[g] = sd;
    // Equal rewards can leave a rounding residue in ss; treat anything below that as zero.
    if (sd <= 1e-12 * Math.max(1, Math.abs(mu))) {
      skippedGroups++;
      continue;
    }
    for (let k = 0; k < K; k++) {
      const i = g * K + k;
      advantages[i] = (rewards[i]! - mu) / (sd + eps);
      keep.push(i);
    }
  }
  return { advantages, keep, skippedGroups, groupMean, groupStd };
}

/** Per group: do its rewards differ (the group is not skipped by `groupAdvantages`)? */
export function groupsWithSignal(adv: Pick<GroupAdvantages, 'keep' | 'groupStd'>, K: number): boolean[] {
  const out = Array.from(adv.groupStd, () => false);
  for (const i of adv.keep) out[Math.floor(i / K)] = true;
  return out;
}

/**
 * The groups a step updates on (dynamic sampling, `GrpoConfig.oversample`): `size` of the drawn
 * groups, those with signal first, then the others, each in draw order; returned in draw order.
 * With as many groups drawn as the batch holds, every group.
 */
export function dynamicBatch(signal: readonly boolean[], size: number): number[] {
  const withSignal = signal.flatMap((s, g) => (s ? [g] : []));
  const without = signal.flatMap((s, g) => (s ? [] : [g]));
  return [...withSignal, ...without].slice(0, size).sort((a, b) => a - b);
}

/**
 * Mean KL(π ‖ π_ref) over sampled actions, with the unbiased, always-positive estimator GRPO's
 * penalty uses: exp(ref − logp) − (ref − logp) − 1, at the policy that sampled them.
 */
export function meanKl(logp: Float32Array, ref: Float32Array): number {
  if (logp.length === 0) return 0;
  let s = 0;
  for (let i = 0; i < logp.length; i++) {
    const d = ref[i]! - logp[i]!;
    s += Math.exp(d) - d - 1;
  }
  return s / logp.length;
}

// ------------------------------------------------------------------------------ helpers

function mean(xs: readonly number[]): number {
  return xs.length ? xs.reduce((s, x) => s + x, 0) / xs.length : 0;
}

/** Population standard deviation (a batch statistic, not an estimator). */
function std(xs: readonly number[]): number {
  const m = mean(xs);
  return xs.length ? Math.sqrt(xs.reduce((s, x) => s + (x - m) ** 2, 0) / xs.length) : 0;
}

/** Key-wise mean of the μ iterations' metrics. */
function meanOf(ms: readonly StepMetrics[]): StepMetrics {
  const out: StepMetrics = {};
  if (ms.length === 0) return out;
  for (const m of ms) for (const [k, v] of Object.entries(m)) out[k] = (out[k] ?? 0) + v / ms.length;
  return out;
}
