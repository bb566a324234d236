/**
 * The configuration of a co-evolution run: the method's constants (core/config.ts) plus the
 * training budgets of bootstrap, gyms and evaluation. JSON, validated with errors that name the
 * field; two presets: `quick` (small, for tests and demos) and `paper` (RL-ADA's numbers).
 */
import { z } from 'zod';
import { DEFAULT_CONFIG } from '../config';
import type { SparringConfig } from '../config';
import { PROVIDER_CHOICES } from '../contract/device';

const pos = z.number().positive();
const posInt = z.number().int().positive();
const frac = z.number().min(0).max(1);

const grpoBudget = z.strictObject({
  /** Optimiser steps. */
  steps: posInt,
  /** Decision points per step. */
  promptsPerStep: posInt,
  /** K: sampled actions per decision point. */
  K: z.number().int().min(2),
  lr: pos,
  /** β toward the reference (the checkpoint the gym started from). */
  klBeta: z.number().min(0),
  clipEps: pos.max(1),
  lrSchedule: z.enum(['constant', 'cosine']),
  /** Trust region: the gym ends at the first step whose KL to the reference exceeds this (nats). */
  maxKl: pos.optional(),
  /** At most this many passes over the gym's decision points (steps are cut to fit). */
  maxPasses: pos.optional(),
  /**
   * Added to a group's reward standard deviation before Â = (r − mean) / (std + advEps): a floor
   * that keeps a reward difference far below the reward's scale (a −0.05 speak cost, say) from
   * becoming a full-size advantage. Default 1e-4.
   */
  advEps: z.number().min(0).optional(),
});
export type GrpoBudget = z.infer<typeof grpoBudget>;

/**
 * Where the run's policy graphs execute (models/device.ts chooses; the run records what it got).
 * Absent: the CPU. `sparring run --provider P` sets `provider`.
 */
const deviceBlock = z.strictObject({
  /** An onnxruntime execution provider, or `auto`: a GPU provider on a hardware device when present, else the CPU. */
  provider: z.enum(PROVIDER_CHOICES),
  /** Intra-op threads per session (default: cores, at most 4). */
  threads: posInt.max(256).optional(),
  /**
   * Where arena matches and held-out evaluation run: 'provider' (default: with everything else)
   * or 'cpu'. Their forwards are small (micro-batches of at most 32 observations), which a GPU
   * may run slower than the CPU, while gym and SFT steps (batches of 64–256) stay on the provider.
   */
  play: z.enum(['provider', 'cpu']).optional(),
});
export type DeviceConfig = z.infer<typeof deviceBlock>;

export const runConfigSchema = z.strictObject({
  arena: z.strictObject({ episodesPerScenario: posInt, maxDaTurns: posInt.max(50) }),
  stopping: z.strictObject({
    tauDa: frac, P: posInt, epsilon: frac, nMin: posInt, nMax: posInt.max(50), rCa: frac, deploymentGate: frac,
  }).refine((s) => s.nMin <= s.nMax, { message: 'nMin must be ≤ nMax', path: ['nMin'] }),
  daReward: z.record(z.string(), z.number()).optional(),
  caReward: z.record(z.string(), z.number()).optional(),
  bootstrap: z.strictObject({
    /** DA0: SFT on routing demonstrations (the bank's train slice, expert episodes). */
    sft: z.strictObject({
      epochs: posInt, batchSize: posInt, lr: pos, expertEpisodesPerIntent: z.number().int().min(0),
      /** Routing demos per train sentence dressed as a CA opening (tone, hedge, detail, decoy); default 3. */
      camouflaged: z.number().int().min(0).optional(),
      /**
       * Share of the bank's train slice kept out of DA0's SFT and warm-up and spoken only by the
       * training CAs (core/rl/demos.ts bankSlices); default 0. Against a DA0 that has seen every
       * sentence the CA can say, the CA has no misroute to earn and its gyms learn little.
       */
      caOnlyShare: z.number().min(0).max(0.9).optional(),
    }),
    /** DA0: GRPO warm-up against the judge-based reward. */
    daWarmup: grpoBudget,
    /** CA0: reward pressure alone against the frozen DA0 (no SFT). */
    caPressure: grpoBudget,
  }),
  gym: z.strictObject({
    da: grpoBudget,
    ca: grpoBudget,
    /** Share of failure transcripts (the training agent lost) in the gym data: 0.7 in RL-ADA. */
    failureShare: frac,
    /**
     * Human-played episodes in the gym of the opposite role: a person's customer episodes train
     * the DA, a person's agent episodes train the CA. Absent: none.
     */
    humanEpisodes: z.strictObject({
      /** Copies of each human episode per arena transcript in the gym data (0.5: every other one, 2: each twice). */
      weight: pos.max(10),
      /** At most this many human episodes (the newest played before the match), before weighting. */
      cap: z.number().int().min(0).max(10_000),
    }).optional(),
  }),
  eval: z.strictObject({ runs: posInt, episodesPerScenario: posInt, gateEpisodesPerScenario: posInt }),
  /**
   * MADS adversities in every match, gym and evaluation of the run: scenarios without their own
   * get `DEFAULT_ADVERSITY_PROFILE` (core/world/adversities.ts). Off when absent.
   */
  adversities: z.boolean().optional(),
  device: deviceBlock.optional(),
});
export type RunConfig = z.infer<typeof runConfigSchema>;

/**
 * The DA's GRPO after SFT: a small learning rate, a trust region and a cap on passes. At lr 1e-3
 * (the SFT scale) a DA gym on a strong DA's few failures (6–12 episodes of 180) took the KL to its
 * start to 5–9 nats, W_DA from 97.9% to 61.1% and held-out routing from 95.8% to 50% (paper with
 * τ_DA 0.97, seed 1); at 1e-4 with maxKl 1 and 8 passes the same forced gyms raised W_DA
 * (94.4 → 98.6%, 94.4 → 96.5%) or held it (97.9%) on seeds 1–3.
 */
const paperGymDa: GrpoBudget = { steps: 60, promptsPerStep: 16, K: 16, lr: 1e-4, klBeta: 0.04, clipEps: 0.2, lrSchedule: 'constant', maxKl: 1, maxPasses: 8 };
const paperGymCa: GrpoBudget = { steps: 60, promptsPerStep: 16, K: 8, lr: 2e-3, klBeta: 0.05, clipEps: 0.2, lrSchedule: 'cosine' };

/**
 * DA0's SFT in the paper preset: 16 expert episodes per intent against each customer (plain and
 * camouflaged) and 8 camouflaged variants per train sentence. Against the same opponents (the
 * final CAs of seeds 1–3 of runs with the earlier 2 and 3), the DA0s of seeds 1–3 routed 92.6%
 * of 960 arena episodes (whole bank) with 2 and 3, 94.8% with 8 and 6, 94.7% with 16 and 8; and
 * 92.6 / 94.3 / 95.7% of 1,152 held-out episodes. The arena could not tell 8 from 16 apart; the
 * held-out set favoured 16 by a point. The larger set removed misroutes of sentences DA0 had
 * trained on, buried in hedges and decoys; the held-out misroutes left are paraphrases it never saw.
 */
const paperSft = { epochs: 6, batchSize: 64, lr: 3e-3, expertEpisodesPerIntent: 16, camouflaged: 8 };

export const PRESETS: Record<'quick' | 'paper', { description: string; config: RunConfig }> = {
  paper: {
    description: 'RL-ADA numbers: 10 scenarios × 18 episodes per match, τ_DA 0.60, P 2, ε 0.05, n_min 3, n_max 8; K 16 (DA) / 8 (CA)',
    config: {
      arena: { ...DEFAULT_CONFIG.arena },
      stopping: { ...DEFAULT_CONFIG.stopping },
      bootstrap: {
        sft: paperSft,
        daWarmup: { ...paperGymDa, steps: 30 },
        caPressure: { ...paperGymCa, steps: 40 },
      },
      gym: { da: paperGymDa, ca: paperGymCa, failureShare: 0.7 },
      eval: { runs: 2, episodesPerScenario: 1, gateEpisodesPerScenario: 9 },
    },
  },
  quick: {
    description: 'small and fast, for tests and demos: 3 episodes per scenario, at most 3 matches, short gyms',
    config: {
      arena: { episodesPerScenario: 3, maxDaTurns: DEFAULT_CONFIG.arena.maxDaTurns },
      stopping: { ...DEFAULT_CONFIG.stopping, nMax: 3 },
      bootstrap: {
        sft: { epochs: 2, batchSize: 64, lr: 3e-3, expertEpisodesPerIntent: 1, camouflaged: 1 },
        daWarmup: { ...paperGymDa, steps: 3, promptsPerStep: 8 },
        caPressure: { ...paperGymCa, steps: 4, promptsPerStep: 8 },
      },
      gym: { da: { ...paperGymDa, steps: 4, promptsPerStep: 8 }, ca: { ...paperGymCa, steps: 4, promptsPerStep: 8 }, failureShare: 0.7 },
      eval: { runs: 1, episodesPerScenario: 1, gateEpisodesPerScenario: 2 },
    },
  },
};

export type PresetName = keyof typeof PRESETS;

/** A problem with a run config: the field path and what was expected. */
export class RunConfigError extends Error {
  constructor(
    readonly source: string,
    readonly field: string,
    readonly problem: string,
  ) {
    super(`${source}: ${field ? `field ${field}: ` : ''}${problem}`);
    this.name = 'RunConfigError';
  }
}

/** Parse a JSON config (from a file or the config editor) and check it. */
export function parseRunConfig(text: string, source = 'config'): RunConfig {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    throw new RunConfigError(source, '', `not valid JSON (${(e as Error).message})`);
  }
  const r = runConfigSchema.safeParse(value);
  if (!r.success) {
    const issue = r.error.issues[0]!;
    throw new RunConfigError(source, issue.path.map(String).join('.'), issue.message);
  }
  const cfg = r.data;
  for (const [section, known] of [['daReward', DEFAULT_CONFIG.daReward], ['caReward', DEFAULT_CONFIG.caReward]] as const) {
    for (const k of Object.keys(cfg[section] ?? {})) {
      if (!(k in known)) throw new RunConfigError(source, `${section}.${k}`, `unknown reward term; known: ${Object.keys(known).join(', ')}`);
    }
  }
  return cfg;
}

/** The method constants a run config implies. */
export function sparringConfigOf(c: RunConfig): SparringConfig {
  return {
    daReward: { ...DEFAULT_CONFIG.daReward, ...(c.daReward ?? {}) },
    caReward: { ...DEFAULT_CONFIG.caReward, ...(c.caReward ?? {}) },
    arena: { ...c.arena },
    stopping: { ...c.stopping },
  };
}
