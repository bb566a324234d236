/**
 * The configuration of a co-evolution run: the method's constants (core/config.ts) plus the
 * training budgets of bootstrap, gyms and evaluation. JSON, validated with errors that name the
 * field; two presets: `quick` (small, for tests and demos) and `paper` (RL-ADA's numbers).
 */
import { z } from 'zod';
import { DEFAULT_CONFIG } from '../config';
import type { SparringConfig } from '../config';
import { PROVIDER_CHOICES } from '../device';
import { issueRule } from '../issue-text';

const pos = z.number().positive();
const posInt = z.number().int().positive();
const frac = z.number().min(0).max(1);

/**
 * Upper bounds of a run config's numbers (issue 51): what one process holds in memory at once and
 * finishes in hours on a laptop, a few times the largest value any preset or study uses. A value
 * above one is refused by the schema, naming the field, the bound and why, before a run exists.
 */
export const RUN_CONFIG_BOUNDS = {
  gymSteps: [10_000, 'optimiser steps of one gym or bootstrap phase'],
  promptsPerStep: [1_024, 'decision points held in memory per step'],
  K: [256, 'rollouts per prompt held in memory at once'],
  oversample: [16, 'times promptsPerStep drawn and held per step'],
  maxPasses: [1_000, 'passes over the gym data'],
  lr: [10, 'a learning rate; larger diverges at the first step'],
  coefficient: [1_000, 'a loss coefficient; larger swamps the loss'],
  temperature: [100, 'sampling temperature'],
  episodesPerScenario: [1_000, 'episodes per scenario of one match, held in memory with their turns'],
  stoppingMatches: [50, 'arena matches of a run'],
  epochs: [1_000, 'SFT epochs'],
  batchSize: [4_096, 'SFT examples per batch held in memory'],
  episodesPerIntent: [1_000, 'demonstration episodes per intent held in memory'],
  camouflaged: [100, 'demonstrations per train sentence held in memory'],
  evalRuns: [100, 'held-out evaluation repeats'],
  reward: [1_000, 'a reward weight; larger overflows GRPO advantages'],
} as const satisfies Record<string, readonly [number, string]>;

/** `t` bounded above by RUN_CONFIG_BOUNDS[b], refused as "at most MAX (why)". */
function upTo<T extends z.ZodNumber>(t: T, b: keyof typeof RUN_CONFIG_BOUNDS): T {
  const [max, why] = RUN_CONFIG_BOUNDS[b];
  return t.max(max, `at most ${max} (${why})`);
}
/** A reward weight: finite, |w| ≤ the bound. */
const rewardWeight = upTo(z.number(), 'reward').min(-RUN_CONFIG_BOUNDS.reward[0], `at least ${-RUN_CONFIG_BOUNDS.reward[0]} (${RUN_CONFIG_BOUNDS.reward[1]})`);
/** Longest text of a run config (a model or judge name). */
export const CONFIG_TEXT_MAX = 200;
const name = z.string().min(1).max(CONFIG_TEXT_MAX, `at most ${CONFIG_TEXT_MAX} characters`);

const grpoBudget = z.strictObject({
  /** Optimiser steps. */
  steps: upTo(posInt, 'gymSteps'),
  /** Decision points per step. */
  promptsPerStep: upTo(posInt, 'promptsPerStep'),
  /** K: sampled actions per decision point. */
  K: upTo(z.number().int().min(2), 'K'),
  lr: upTo(pos, 'lr'),
  /** β toward the reference (the checkpoint the gym started from). */
  klBeta: upTo(z.number().min(0), 'coefficient'),
  clipEps: pos.max(1),
  lrSchedule: z.enum(['constant', 'cosine']),
  /** Trust region: the gym ends at the first step whose KL to the reference exceeds this (nats). */
  maxKl: upTo(pos, 'coefficient').optional(),
  /** At most this many passes over the gym's decision points (steps are cut to fit). */
  maxPasses: upTo(pos, 'maxPasses').optional(),
  /**
   * Added to a group's reward standard deviation before Â = (r − mean) / (std + advEps): a floor
   * that keeps a reward difference far below the reward's scale (a −0.05 speak cost, say) from
   * becoming a full-size advantage. Default 1e-4.
   */
  advEps: upTo(z.number().min(0), 'coefficient').optional(),
  /**
   * Dynamic sampling (DAPO): draw this many times promptsPerStep decision points per step and
   * update on promptsPerStep groups, those whose K rewards differ first. Default 1 (plain GRPO).
   */
  oversample: upTo(posInt, 'oversample').optional(),
  /** Entropy bonus c of the GRPO loss (−c·H(π)); default 0. */
  entropyCoef: upTo(z.number().min(0), 'coefficient').optional(),
  /** T: the gym samples its K actions from π_T ∝ π^(1/T) and trains π_T (core/rl/grpo.ts); default 1. */
  temperature: upTo(pos, 'temperature').optional(),
  /** ε-greedy exploration in the DA's gyms (other phases ignore it): a share ε of the samples drawn uniformly from the valid actions (core/rl/grpo.ts); default 0. */
  explore: frac.optional(),
  /** Every valid action tried once per decision point in the DA's gyms (other phases ignore it; core/rl/grpo.ts); default false. */
  enumerate: z.boolean().optional(),
});
export type GrpoBudget = z.infer<typeof grpoBudget>;

/**
 * A role's gym: its GRPO budget, and who trains it. 'builtin' (default): the run's own GRPO on
 * the builtin policy. 'external': the run exports the gym (`sparring gym export`), records a gym
 * job and waits ('waiting-for-trainer') until `sparring checkpoints add` registers the checkpoint
 * a trainer such as TRL or verl produced from it (trainers/), or `sparring gym cancel` ends the wait.
 */
const trainerKind = z.enum(['builtin', 'external']);
/**
 * A managed trainer (`{"kind": "trl", …}`): the run hands the gym out as 'external' does, then
 * trains it itself: `python` runs trainers/train_da.py or train_ca.py (TRL GRPO with LoRA on the
 * exported decision points, the gym's budget from job.json, against `env serve` in the run's world),
 * the merged model becomes a GGUF (trainers/write_gguf.py) registered as the role's next checkpoint,
 * and the run goes on. `model`: the Hugging Face folder (or id) the role's first gym starts from;
 * later gyms start from the previous gym's merged model.
 */
const managedTrainer = z.strictObject({
  kind: z.literal('trl'),
  /** The Python interpreter with trainers/requirements.txt installed (e.g. .venv/bin/python). */
  python: z.string().min(1).max(4096),
  model: z.string().min(1).max(4096),
  lora: z
    .strictObject({ r: z.number().int().min(1).max(1024), alpha: z.number().int().min(1).max(4096), dropout: z.number().min(0).max(0.9) })
    .partial()
    .optional(),
  grpo: z
    .strictObject({
      /** Tokens a completion may take (TRL's max_completion_length). */
      maxCompletionLength: z.number().int().min(8).max(32_768),
      /** 'auto' (default): vLLM where installed and a GPU is there. */
      vllm: z.enum(['auto', 'on', 'off']),
    })
    .partial()
    .optional(),
  /** GGUF weights: f32 (default) or f16. */
  gguf: z.enum(['f32', 'f16']).optional(),
});
export type ManagedTrainer = z.infer<typeof managedTrainer>;
/** `"external"`, the object form `{"kind": "external"}` (read as the same string), or a managed trainer. */
const gymBudget = grpoBudget.extend({
  trainer: z.union([trainerKind, z.strictObject({ kind: trainerKind }).transform((t) => t.kind), managedTrainer]).optional(),
});
export type GymTrainer = 'builtin' | 'external' | ManagedTrainer;

/** Whether a role's gyms leave the run's own GRPO: handed to an external trainer, or to a managed one. */
export function handedOut(t: GymTrainer | undefined): boolean {
  return t === 'external' || (typeof t === 'object' && t.kind === 'trl');
}

/** A trainer in words ('builtin', 'external', 'trl'). */
export function trainerLabel(t: GymTrainer | undefined): string {
  return typeof t === 'object' ? t.kind : (t ?? 'builtin');
}

/**
 * Who trains after a match, and against whom. Absent: RL-ADA's isolation gym (only the weaker
 * agent trains, against the co-evolving other one). The other settings are the ablations a study
 * compares the method with (`sparring study`).
 */
export const scheduleSchema = z
  .strictObject({
    /**
     * Which training schedule: 'rl-ada' (default: RL-ADA's isolation gyms, shaped by the fields
     * below) or 'ib-rl' (IB-RL, ../shared/seeds/003: after each round's arena match both roles train
     * from the same joint rollouts, paired by the opponent pool, each with its own reward,
     * advantages, decision points, optimiser state, learning rate and update frequency; see
     * core/coevolution/ib-rl.ts). IB-RL takes `pool`, `stagger` and `rounds` and none of the
     * RL-ADA fields.
     */
    kind: z.enum(['rl-ada', 'ib-rl']).optional(),
    /**
     * IB-RL's opponent pool (§5.1): the probabilities of a round's pairing — `pBoth` (p_both, both
     * current checkpoints play and both may train), `pDa` (p_agent1: the current DA against a
     * historical CA; only the DA trains), `pCa` (p_agent2: a historical DA against the current CA;
     * only the CA trains). They sum to 1. Default 0.7 / 0.2 / 0.1 (the paper).
     */
    pool: z
      .strictObject({ pBoth: frac, pDa: frac, pCa: frac })
      .refine((p) => Math.abs(p.pBoth + p.pDa + p.pCa - 1) < 1e-9, { message: 'pBoth + pDa + pCa must be 1' })
      .optional(),
    /**
     * IB-RL's staggered updates: the DA trains in rounds divisible by `daEvery`, the CA in rounds
     * divisible by `caEvery` (round r = the gyms after arena match r), each at its own learning
     * rate (`daLr`, `caLr`; default the gym.da / gym.ca budgets' lr). Default daEvery 1, caEvery 2.
     */
    stagger: z
      .strictObject({ daEvery: posInt.max(50), caEvery: posInt.max(50), daLr: upTo(pos, 'lr').optional(), caLr: upTo(pos, 'lr').optional() })
      .optional(),
    /**
     * IB-RL's stopping: exactly this many rounds (the paper trains a fixed number), then a last arena
     * match and the held-out evaluation. Absent: RL-ADA's stopping rule decides after every arena match.
     */
    rounds: z.number().int().min(1).max(50).optional(),
    /**
     * 'weaker' (RL-ADA §3.5): after a match only the agent further below its competency floor trains.
     * 'both': the DA and then the CA train after every match (no isolation).
     */
    isolation: z.enum(['weaker', 'both']).optional(),
    /** The CA's gyms; off: the CA stays CA0 (a gym the rule gives the CA is skipped). Default true. */
    caGyms: z.boolean().optional(),
    /**
     * The DA's opponent in matches and gyms: 'co-evolving' (the run's latest CA, default), or a
     * frozen one, 'CA0' (the bootstrap CA) or 'scripted' (the scripted CA): IB-RL's static
     * counterpart. A frozen opponent never trains.
     */
    daOpponent: z.enum(['co-evolving', 'CA0', 'scripted']).optional(),
    /**
     * Exactly this many DA gyms, one after each match until spent, then the held-out evaluation
     * (the stopping rule is not consulted): a fixed DA training budget, e.g. the number of DA gyms
     * an RL-ADA run of the same seed used. Absent: the stopping rule decides.
     */
    daGyms: z.number().int().min(0).max(50).optional(),
    /**
     * Seats played by LLMs saved in the lab by name (`sparring models add NAME`; `sparring run --da
     * NAME --ca NAME`): such a role has no bootstrap checkpoint and plays every match and evaluation
     * as that model; its gyms are skipped until an external trainer can be attached, and the run
     * says so in its stopping verdict.
     */
    llm: z.strictObject({ da: name.optional(), ca: name.optional() }).optional(),
  })
  .superRefine((s, ctx) => {
    const ibRl = s.kind === 'ib-rl';
    for (const k of ['isolation', 'caGyms', 'daOpponent', 'daGyms'] as const) {
      if (ibRl && s[k] !== undefined)
        ctx.addIssue({ code: 'custom', path: [k], message: `an RL-ADA setting; the ib-rl schedule takes pool, stagger and rounds only` });
    }
    for (const k of ['pool', 'stagger', 'rounds'] as const) {
      if (!ibRl && s[k] !== undefined) ctx.addIssue({ code: 'custom', path: [k], message: 'an IB-RL setting: only with "kind": "ib-rl"' });
    }
  });
export type Schedule = z.infer<typeof scheduleSchema>;

/**
 * A run's onnxruntime intra-op threads when its config does not say (`device.threads`): one, on
 * every machine, so that a run's numbers depend on its seed and config only — not on the cores of
 * the machine it ran on, nor on how many study workers shared them. A config may ask for more
 * (faster train steps on an idle multi-core machine; the count is then part of its config).
 */
export const RUN_THREADS = 1;

/**
 * Where the run's policy graphs execute (models/device.ts chooses; the run records what it got).
 * Absent: the CPU. `sparring run --provider P` sets `provider`.
 */
const deviceBlock = z.strictObject({
  /** An onnxruntime execution provider, or `auto`: a GPU provider on a hardware device when present, else the CPU. */
  provider: z.enum(PROVIDER_CHOICES),
  /**
   * Intra-op threads per session (default `RUN_THREADS`, 1). Part of the config because it is part
   * of a run's numbers: onnxruntime splits a matrix product's sums across its threads, so the same
   * seed on 1 and 2 threads gives different floats and, over a run, different figures.
   */
  threads: posInt.max(256).optional(),
  /**
   * Where arena matches and held-out evaluation run: 'provider' (default: with everything else)
   * or 'cpu'. Their forwards are small (micro-batches of at most 32 observations), which a GPU
   * may run slower than the CPU, while gym and SFT steps (batches of 64–256) stay on the provider.
   */
  play: z.enum(['provider', 'cpu']).optional(),
});
export type DeviceConfig = z.infer<typeof deviceBlock>;

/**
 * The rates of the default adversity profile (core/world/adversities.ts DEFAULT_ADVERSITY_PROFILE)
 * by kind: `adversities: {…}` turns adversities on with these rates instead of the defaults (EAU
 * knobs `adversities.<kind>`; 0 leaves a kind out).
 */
export const adversityRatesSchema = z.strictObject({
  partial_information: frac,
  adversarial_tone: frac,
  backend_failure: frac,
  timeout: frac,
  empty_results: frac,
});
export type AdversityRates = z.infer<typeof adversityRatesSchema>;

/**
 * Bounds on the learned CA's tactics (EAU knobs `ca.tactics.<bound>`), applied to each sampled
 * choice before it becomes words (core/agents/ca-choices.ts boundCaChoice). Absent: no bounds.
 */
export const caTacticsSchema = z.strictObject({
  /** The most detail kinds an utterance may state (0–3; 3: no bound). */
  detailDensity: z.number().int().min(0).max(3).optional(),
  /** The share of sampled decoy cues kept (the rest are dropped); 1: no bound. */
  decoyRate: frac.optional(),
  /** The share of sampled indirect or vague openings kept (the rest are stated directly); 1: no bound. */
  directness: frac.optional(),
  /** The share of sampled withholding choices kept (the rest state details unasked); 1: no bound. */
  withholding: frac.optional(),
});
export type CaTactics = z.infer<typeof caTacticsSchema>;

export const runConfigSchema = z.strictObject({
  arena: z.strictObject({ episodesPerScenario: upTo(posInt, 'episodesPerScenario'), maxDaTurns: posInt.max(50) }),
  stopping: z
    .strictObject({
      tauDa: frac,
      P: upTo(posInt, 'stoppingMatches'),
      epsilon: frac,
      nMin: upTo(posInt, 'stoppingMatches'),
      nMax: upTo(posInt, 'stoppingMatches'),
      rCa: frac,
      deploymentGate: frac,
    })
    .refine((s) => s.nMin <= s.nMax, { message: 'nMin must be ≤ nMax', path: ['nMin'] }),
  daReward: z.record(z.string(), rewardWeight).optional(),
  caReward: z.record(z.string(), rewardWeight).optional(),
  bootstrap: z.strictObject({
    /** DA0: SFT on routing demonstrations (the bank's train slice, expert episodes). */
    sft: z.strictObject({
      epochs: upTo(posInt, 'epochs'),
      batchSize: upTo(posInt, 'batchSize'),
      lr: upTo(pos, 'lr'),
      expertEpisodesPerIntent: upTo(z.number().int().min(0), 'episodesPerIntent'),
      /** Routing demos per train sentence dressed as a CA opening (tone, hedge, detail, decoy); default 3. */
      camouflaged: upTo(z.number().int().min(0), 'camouflaged').optional(),
      /**
       * Share of the bank's train slice kept out of DA0's SFT and warm-up and spoken only by the
       * training CAs (core/rl/demos.ts bankSlices); default 0. Against a DA0 that has seen every
       * sentence the CA can say, the CA has no misroute to earn and its gyms learn little.
       */
      caOnlyShare: z.number().min(0).max(0.9).optional(),
      /**
       * Expert episodes per intent against a camouflaged scripted customer (decoys, hedges,
       * one-fact answers), besides the plain ones; default expertEpisodesPerIntent. 0 in the
       * paper-faithful preset: DA0 sees customers only as the bank states them.
       */
      camouflagedEpisodesPerIntent: upTo(z.number().int().min(0), 'episodesPerIntent').optional(),
      /** Hasty-expert recovery episodes per dispute intent (against the camouflaged customer); default 8. */
      recoveryEpisodesPerIntent: upTo(z.number().int().min(0), 'episodesPerIntent').optional(),
      /** Who answers the hasty expert of those episodes: 'camouflaged' (default) or 'plain' (core/rl/demos.ts RecoveryCustomer). */
      recoveryCustomer: z.enum(['camouflaged', 'plain']).optional(),
      /**
       * An imported corpus (`sparring import-banking77`) whose rows DA0's SFT adds as routing
       * demonstrations, named by its content hash ('sha256:…', `corpusHash` in
       * host/store/corpus-store.ts) so that the run depends on its config alone; rows that repeat a
       * bank sentence are left out. RL-ADA's DA0 learnt Banking77's vocabulary in SFT (Appendix A).
       * Absent: the bank alone. `sparring run --corpus banking77` fills it in.
       */
      corpus: z
        .string()
        .regex(/^sha256:[0-9a-f]{64}$/, "expected 'sha256:' and 64 hex digits (sparring run --corpus banking77 fills it in)")
        .optional(),
    }),
    /** DA0: GRPO warm-up against the judge-based reward. */
    daWarmup: grpoBudget,
    /** CA0: reward pressure alone against the frozen DA0 (no SFT). */
    caPressure: grpoBudget,
  }),
  gym: z.strictObject({
    da: gymBudget,
    ca: gymBudget,
    /** Share of failure transcripts (the training agent lost) in the gym data: 0.7 in RL-ADA. */
    failureShare: frac,
    /**
     * How many of the run's latest arena matches feed a gym ("recent arena transcripts", RL-ADA
     * §3.5): the match just played and the ones before it, pooled before the failure mix. Absent:
     * 1, the latest match only. Not used by IB-RL rounds (their joint rollouts are the data).
     */
    matches: z.number().int().min(1).max(8).optional(),
    /**
     * Which customer turns of the gym's transcripts are the CA gym's decision points (RL-ADA §3.3
     * books r_inv-DA on the opening, "the utterance the CA chiefly optimises"). 'every-turn'
     * (default): each customer turn, answers included. 'openings': the customer's first utterance
     * only, so the heads are not also pulled by what pays in answers (where `detail` is how many
     * facts the customer gives). RL-ADA gyms only; CA0's pressure and IB-RL rounds are unchanged.
     */
    caDecisions: z.enum(['every-turn', 'openings']).optional(),
    /**
     * Which of the arena's transcripts count as the DA's failures in its gym's mix. 'lost'
     * (default): the CA won (a misroute), the arena's W_DA. 'unresolved': also the episodes the
     * judge marks unresolved (a routed dispute the DA ended without settling), which RL-ADA's DA
     * reward counts against it ("to successful resolution") but its win rate does not.
     */
    daFailure: z.enum(['lost', 'unresolved']).optional(),
    /**
     * Word dropout on the DA's observations in its gyms (core/rl/da-rollout.ts dropCustomerWords):
     * each customer word of a decision point is left out of what the DA reads with this
     * probability, drawn per GRPO step. Absent: 0.
     */
    daWordDropout: z.number().min(0).max(0.9).optional(),
    /**
     * Episodes per intent of a match each RL-ADA DA gym plays before it trains: the DA it starts
     * from against the frozen CA on synthetic scenarios of the intents no arena or held-out
     * scenario names (the 'gym' half of core/rl/demos.ts otherIntentScenarios; the other half is
     * kept for validation), stored as `<match>-G` and pooled with the arena's transcripts before
     * the failure mix. A DA's gyms otherwise only see the arena's intents, and little of what they
     * teach reaches the others. Absent: 0, none.
     */
    daOtherIntents: z.number().int().min(0).max(32).optional(),
    /**
     * Human-played episodes in the gym of the opposite role: a person's customer episodes train
     * the DA, a person's agent episodes train the CA. Absent: none.
     */
    humanEpisodes: z
      .strictObject({
        /** Copies of each human episode per arena transcript in the gym data (0.5: every other one, 2: each twice). */
        weight: pos.max(10),
        /** At most this many human episodes (the newest played before the match), before weighting. */
        cap: z.number().int().min(0).max(10_000),
      })
      .optional(),
  }),
  eval: z.strictObject({
    runs: upTo(posInt, 'evalRuns'),
    episodesPerScenario: upTo(posInt, 'episodesPerScenario'),
    gateEpisodesPerScenario: upTo(posInt, 'episodesPerScenario'),
  }),
  /**
   * For choosing settings on data the run never saw, without the held-out slice: `bankShare` of
   * the bank's train slice (core/rl/demos.ts validationSlice) is kept out of everything the run
   * trains on and speaks, DA0's demonstrations included; `sparring match --run R --speak
   * validation` then plays the run's checkpoints with a CA speaking those sentences. Absent: none.
   */
  validation: z.strictObject({ bankShare: z.number().gt(0).max(0.5) }).optional(),
  /**
   * MADS adversities in every match, gym and evaluation of the run: scenarios without their own
   * get `DEFAULT_ADVERSITY_PROFILE` (core/world/adversities.ts). Off when absent.
   */
  adversities: z.union([z.boolean(), adversityRatesSchema]).optional(),
  schedule: scheduleSchema.optional(),
  /** The learned CA's tactic bounds (EAU knobs). */
  ca: z.strictObject({ tactics: caTacticsSchema.optional() }).optional(),
  /**
   * EAU's checked writes (core/eau/knobs.ts): a write that raises difficulty is refused until the
   * DA's W_DA in the latest match reaches `difficultyGate` (default 0.80).
   */
  eau: z
    .strictObject({
      difficultyGate: frac.optional(),
      /** Revert, at the next phase boundary, a write measured worse beyond the noise floor (default false: the mark is a proposal to the person). */
      autoRevert: z.boolean().optional(),
    })
    .optional(),
  device: deviceBlock.optional(),
  /**
   * Who plays the customer seat (EAU, seed 002): `symbolicMix` ε is the share of episodes, in
   * arenas and in the DA gyms' rollouts, played by the rule-based customer (the scripted CA)
   * instead of the learned CA, drawn per episode from its seed (core/eau/customer-mix.ts).
   * Absent or 0: the learned CA plays every episode.
   */
  customer: z.strictObject({ symbolicMix: frac }).optional(),
  /**
   * The judge of every episode of the run (`sparring run --judge SPEC`): its bootstrap, arena
   * matches, gyms' rollout rewards and held-out evaluations. `rule` (the builtin rule judge, also
   * when absent) or the name of an LLM endpoint saved in the lab (`sparring models add`); a
   * resumed run keeps it. Checked against the lab when the run starts.
   */
  judge: name.optional(),
});
export type RunConfig = z.infer<typeof runConfigSchema>;

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
  checkConfigValue(value, source);
  const r = runConfigSchema.safeParse(value);
  if (!r.success) {
    const issue = r.error.issues[0]!;
    throw new RunConfigError(source, issue.path.map(String).join('.'), issueRule(issue));
  }
  const cfg = r.data;
  for (const [section, known] of [
    ['daReward', DEFAULT_CONFIG.daReward],
    ['caReward', DEFAULT_CONFIG.caReward],
  ] as const) {
    for (const k of Object.keys(cfg[section] ?? {})) {
      if (!(k in known)) throw new RunConfigError(source, `${section}.${k}`, `unknown reward term; known: ${Object.keys(known).join(', ')}`);
    }
  }
  // What an external trainer hands back is registered as the next checkpoint after the gym's; a
  // role that schedule.llm plays from the start has no checkpoint for it to follow.
  for (const role of ['da', 'ca'] as const) {
    const name = cfg.schedule?.llm?.[role];
    const R = role.toUpperCase();
    if (name !== undefined && handedOut(cfg.gym[role].trainer))
      throw new RunConfigError(
        source,
        `gym.${role}.trainer`,
        `"${trainerLabel(cfg.gym[role].trainer)}" hands the ${R}'s gyms to a trainer, but schedule.llm.${role} plays the ${R} with the LLM "${name}", which has no checkpoint for the trainer's result to follow; ` +
          `leave schedule.llm.${role} out (the run starts from the builtin ${R}0) and register the trainer's LLM with sparring checkpoints add --model SPEC`,
      );
  }
  return cfg;
}

/**
 * What the schema cannot see in parsed JSON, refused by field: a number JSON.parse made infinite
 * (`1e309`), which zod reports as "expected number, received number" and JSON.stringify would turn
 * into null; and an own key "__proto__" (JSON.parse makes one; an object spread or merge turns it
 * into the prototype, so the strict schema never sees it), refused as any unknown key.
 */
export function checkConfigValue(value: unknown, source: string, at: readonly string[] = []): void {
  const field = at.join('.');
  if (typeof value === 'number' && !Number.isFinite(value)) throw new RunConfigError(source, field, 'not a finite number');
  if (value === null || typeof value !== 'object') return;
  if (Array.isArray(value)) {
    value.forEach((v, i) => checkConfigValue(v, source, [...at, String(i)]));
    return;
  }
  for (const k of Object.keys(value)) {
    if (k === '__proto__') throw new RunConfigError(source, field, 'Unrecognized key: "__proto__"');
    checkConfigValue((value as Record<string, unknown>)[k], source, [...at, k]);
  }
}

/** A stored run's config, parsed; null when it no longer parses (stored before a schema change). */
export function storedRunConfig(configJson: string, source = 'config'): RunConfig | null {
  try {
    return parseRunConfig(configJson, source);
  } catch {
    return null;
  }
}

/** The judge SPEC of a stored run's config: its `judge`, or `rule` when absent (or when the config no longer parses). */
export function judgeSpecOf(configJson: string): string {
  return storedRunConfig(configJson)?.judge ?? 'rule';
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
