/**
 * EAU (seed 002) in the lab: the knob registry and its checked writes.
 *
 * A knob is a tunable of a run that is safe to change between two steps, declared once here with
 * its type, range, unit, owner (EAU's four: the user simulator, the environment, the reward, the
 * RL configuration), the direction in which it raises difficulty and a one-line meaning. Its id
 * is the run config's path with dots (`gym.da.lr`), so the effective config of a run is its base
 * config with the applied writes set at those paths, in order (`effectiveConfig`), and checked
 * by the run config's own schema.
 *
 * A write is checked (`checkWrite`) before it is queued: refused, with the rule named, when
 *  - `range`: the value is not of the knob's type or outside its range;
 *  - `difficulty-gate`: it raises difficulty while the recent success rate is below the gate
 *    (EAU: 0.80; `eau.difficultyGate` in the run config). The recent success rate is the DA's
 *    arena win rate W_DA in the latest match: difficulty is the DA's (a harder customer, a
 *    tighter turn limit, more adversities), and W_DA is the run's one success measure that every
 *    phase updates. Before the first match there is no success rate and such a write is refused;
 *  - `phase`: the run cannot take it (held-out evaluation is running, whose numbers must come
 *    from one config, or the run has ended);
 *  - `unknown-knob`, `no-change`.
 *
 * When a write applies: knobs read inside a GRPO step (`boundary: 'step'`: K, lr, β, clip ε of a
 * gym) apply at the next step boundary of the live gym; the others (`boundary: 'phase'`) are read
 * when a match or gym starts and apply at the next phase boundary. The runner polls the lab's
 * queue at both (host/coevolution/knob-runtime.ts).
 */
import { DEFAULT_CONFIG } from '../config';
import { runConfigSchema } from '../coevolution/run-config';
import type { RunConfig } from '../coevolution/run-config';
import { DEFAULT_ADVERSITY_PROFILE } from '../world/adversities';
import type { AdversitySpec } from '../domain/types';
import { issueRule } from '../issue-text';

/** EAU's four owners of a knob. */
export type KnobOwner = 'user-simulator' | 'environment' | 'reward' | 'rl';
export type KnobValue = number | boolean | string;

export interface KnobSpec {
  /** The run config path with dots. */
  id: string;
  type: 'number' | 'integer';
  min: number;
  max: number;
  unit: string;
  owner: KnobOwner;
  /** Which way of moving the value makes the DA's task harder (null: neither). */
  raisesDifficulty: 'up' | 'down' | null;
  meaning: string;
  /** Where the runner takes a new value: between two GRPO steps, or when the next match or gym starts. */
  boundary: 'step' | 'phase';
}

/** EAU's success gate for difficulty-raising writes. */
export const DEFAULT_DIFFICULTY_GATE = 0.8;

const ADVERSITY_RATE_KINDS = ['partial_information', 'adversarial_tone', 'backend_failure', 'timeout', 'empty_results'] as const;
const ADVERSITY_MEANING: Record<(typeof ADVERSITY_RATE_KINDS)[number], string> = {
  partial_information: 'share of episodes whose customer holds back the merchant until asked',
  adversarial_tone: 'share of episodes whose customer is hostile',
  backend_failure: 'chance that each call of the goal tool fails (503)',
  timeout: 'chance that each call of the goal tool times out',
  empty_results: 'chance that each call of the goal tool finds nothing',
};

/** The default rate of each adversity kind of the default profile. */
export const DEFAULT_ADVERSITY_RATES: Record<(typeof ADVERSITY_RATE_KINDS)[number], number> = Object.fromEntries(
  ADVERSITY_RATE_KINDS.map((k) => [k, DEFAULT_ADVERSITY_PROFILE.find((a) => a.kind === k)?.rate ?? 0]),
) as Record<(typeof ADVERSITY_RATE_KINDS)[number], number>;

const grpoKnobs = (role: 'da' | 'ca'): KnobSpec[] => {
  const who = role === 'da' ? "the DA's" : "the CA's";
  return [
    {
      id: `gym.${role}.K`,
      type: 'integer',
      min: 2,
      max: 64,
      unit: 'actions',
      owner: 'rl',
      raisesDifficulty: null,
      boundary: 'step',
      meaning: `K: actions sampled per decision point in ${who} gyms (the GRPO group size)`,
    },
    {
      id: `gym.${role}.lr`,
      type: 'number',
      min: 1e-6,
      max: 0.05,
      unit: 'per step',
      owner: 'rl',
      raisesDifficulty: null,
      boundary: 'step',
      meaning: `peak learning rate of ${who} gyms`,
    },
    {
      id: `gym.${role}.klBeta`,
      type: 'number',
      min: 0,
      max: 1,
      unit: 'weight',
      owner: 'rl',
      raisesDifficulty: null,
      boundary: 'step',
      meaning: `β: weight of the KL penalty toward the gym's start in ${who} gyms`,
    },
    {
      id: `gym.${role}.clipEps`,
      type: 'number',
      min: 0.01,
      max: 1,
      unit: 'ratio',
      owner: 'rl',
      raisesDifficulty: null,
      boundary: 'step',
      meaning: `clip ε of the ratio in ${who} gyms`,
    },
  ];
};

/** Every knob, declared once. */
export const KNOBS: readonly KnobSpec[] = [
  // The user simulator: the learned CA's tactic bounds and the symbolic-user mix.
  {
    id: 'ca.tactics.detailDensity',
    type: 'integer',
    min: 0,
    max: 3,
    unit: 'detail kinds',
    owner: 'user-simulator',
    raisesDifficulty: 'down',
    boundary: 'phase',
    meaning: 'the most concrete details (merchant, amount, date, where) a learned-CA utterance may state',
  },
  {
    id: 'ca.tactics.decoyRate',
    type: 'number',
    min: 0,
    max: 1,
    unit: 'share',
    owner: 'user-simulator',
    raisesDifficulty: 'up',
    boundary: 'phase',
    meaning: "share of the learned CA's sampled decoy cues that are kept",
  },
  {
    id: 'ca.tactics.directness',
    type: 'number',
    min: 0,
    max: 1,
    unit: 'share',
    owner: 'user-simulator',
    raisesDifficulty: 'up',
    boundary: 'phase',
    meaning: "share of the learned CA's indirect or vague openings that are kept (the rest stated directly)",
  },
  {
    id: 'ca.tactics.withholding',
    type: 'number',
    min: 0,
    max: 1,
    unit: 'share',
    owner: 'user-simulator',
    raisesDifficulty: 'up',
    boundary: 'phase',
    meaning: "share of the learned CA's withholding choices that are kept",
  },
  {
    id: 'customer.symbolicMix',
    type: 'number',
    min: 0,
    max: 1,
    unit: 'share',
    owner: 'user-simulator',
    raisesDifficulty: 'down',
    boundary: 'phase',
    meaning: 'ε: share of the customer seat played by the rule-based customer instead of the learned CA',
  },
  // The environment: the turn limit and the adversity rates.
  {
    id: 'arena.maxDaTurns',
    type: 'integer',
    min: 1,
    max: 50,
    unit: 'DA turns',
    owner: 'environment',
    raisesDifficulty: 'down',
    boundary: 'phase',
    meaning: 'turn limit: an episode ends unresolved after this many DA turns',
  },
  ...ADVERSITY_RATE_KINDS.map((k): KnobSpec => ({
    id: `adversities.${k}`,
    type: 'number',
    min: 0,
    max: 1,
    unit: 'rate',
    owner: 'environment',
    raisesDifficulty: 'up',
    boundary: 'phase',
    meaning: ADVERSITY_MEANING[k],
  })),
  // The reward: every r_DA and r_CA weight.
  ...Object.entries(DEFAULT_CONFIG.daReward).map(([term, v]): KnobSpec => ({
    id: `daReward.${term}`,
    type: term === 'lateStepAfter' ? 'integer' : 'number',
    ...rewardRange(v),
    unit: 'reward',
    owner: 'reward',
    raisesDifficulty: null,
    boundary: 'phase',
    meaning: `r_DA term ${term} (default ${v})`,
  })),
  ...Object.entries(DEFAULT_CONFIG.caReward).map(([term, v]): KnobSpec => ({
    id: `caReward.${term}`,
    type: 'number',
    ...rewardRange(v),
    unit: 'reward',
    owner: 'reward',
    raisesDifficulty: null,
    boundary: 'phase',
    meaning: `r_CA term ${term} (default ${v})`,
  })),
  // The RL configuration.
  ...grpoKnobs('da'),
  ...grpoKnobs('ca'),
  {
    id: 'gym.failureShare',
    type: 'number',
    min: 0,
    max: 1,
    unit: 'share',
    owner: 'rl',
    raisesDifficulty: null,
    boundary: 'phase',
    meaning: 'gym mix: share of failure transcripts (the training agent lost) in gym data (RL-ADA: 0.7)',
  },
  {
    id: 'stopping.tauDa',
    type: 'number',
    min: 0,
    max: 1,
    unit: 'W_DA',
    owner: 'rl',
    raisesDifficulty: null,
    boundary: 'phase',
    meaning: 'τ_DA: the DA is the weaker agent (and trains) below this W_DA',
  },
  {
    id: 'stopping.rCa',
    type: 'number',
    min: 0,
    max: 1,
    unit: 'W_CA',
    owner: 'rl',
    raisesDifficulty: null,
    boundary: 'phase',
    meaning: "r_CA threshold: the CA's competency floor in the stopping rule",
  },
];

/** A reward weight's range: its sign kept, up to four times its default size (and at least ±1). */
function rewardRange(v: number): { min: number; max: number } {
  const m = Math.max(1, 4 * Math.abs(v));
  return v >= 0 ? { min: 0, max: m } : { min: -m, max: 0 };
}

const BY_ID = new Map(KNOBS.map((k) => [k.id, k]));

export function knobSpec(id: string): KnobSpec | undefined {
  return BY_ID.get(id);
}

/** The knob's value in a config: the set value, else the default the run would use. */
export function knobValue(config: RunConfig, id: string): number {
  const spec = BY_ID.get(id);
  if (!spec) throw new Error(`knob "${id}": not in the registry (core/eau/knobs.ts)`);
  const [head, ...rest] = id.split('.');
  if (head === 'adversities') {
    const a = config.adversities;
    const kind = rest[0] as keyof typeof DEFAULT_ADVERSITY_RATES;
    if (!a) return 0;
    return a === true ? DEFAULT_ADVERSITY_RATES[kind] : a[kind];
  }
  if (head === 'daReward') return config.daReward?.[rest[0]!] ?? DEFAULT_CONFIG.daReward[rest[0] as keyof typeof DEFAULT_CONFIG.daReward];
  if (head === 'caReward') return config.caReward?.[rest[0]!] ?? DEFAULT_CONFIG.caReward[rest[0] as keyof typeof DEFAULT_CONFIG.caReward];
  if (id === 'customer.symbolicMix') return config.customer?.symbolicMix ?? 0;
  if (head === 'ca')
    return config.ca?.tactics?.[rest[1] as keyof NonNullable<NonNullable<RunConfig['ca']>['tactics']>] ?? (rest[1] === 'detailDensity' ? 3 : 1);
  let v: unknown = config;
  for (const part of id.split('.')) v = (v as Record<string, unknown> | undefined)?.[part];
  if (typeof v !== 'number') throw new Error(`knob "${id}": the run config has no number at ${id}`);
  return v;
}

/** The adversity profile a run config implies (`adversities: true`: the default one; rates: the default one at those rates, 0 left out); null: off. */
export function adversityProfile(config: RunConfig): AdversitySpec[] | null {
  const a = config.adversities;
  if (!a) return null;
  if (a === true) return [...DEFAULT_ADVERSITY_PROFILE];
  return DEFAULT_ADVERSITY_PROFILE.flatMap((spec) => {
    const rate = a[spec.kind as keyof typeof a];
    return rate === undefined ? [spec] : rate > 0 ? [{ ...spec, rate }] : [];
  });
}

/** The config with one knob set (a new object; the input is left as it is), checked by the run config's schema. */
export function withKnob(config: RunConfig, id: string, value: number): RunConfig {
  const spec = BY_ID.get(id);
  if (!spec) throw new Error(`knob "${id}": not in the registry (core/eau/knobs.ts)`);
  const next = JSON.parse(JSON.stringify(config)) as Record<string, unknown>;
  const [head, ...rest] = id.split('.');
  if (head === 'adversities') {
    const a = config.adversities;
    const rates = a === true ? { ...DEFAULT_ADVERSITY_RATES } : a ? { ...a } : Object.fromEntries(ADVERSITY_RATE_KINDS.map((k) => [k, 0]));
    next.adversities = { ...rates, [rest[0]!]: value };
  } else {
    let o = next;
    const parts = id.split('.');
    for (const part of parts.slice(0, -1)) {
      if (o[part] === undefined) o[part] = {};
      o = o[part] as Record<string, unknown>;
    }
    o[parts.at(-1)!] = value;
  }
  const r = runConfigSchema.safeParse(next);
  if (!r.success) {
    const issue = r.error.issues[0]!;
    throw new Error(`knob "${id}" = ${value}: the run config refuses it at ${issue.path.map(String).join('.')}: ${issueRule(issue)}`);
  }
  return r.data;
}

/** One write as the effective config needs it. */
export interface AppliedKnob {
  knob: string;
  value: number;
}

/** The effective config of a run: its base config with the applied writes set, in order. */
export function effectiveConfig(base: RunConfig, applied: readonly AppliedKnob[]): RunConfig {
  return applied.reduce((c, w) => withKnob(c, w.knob, w.value), base);
}

/** Phases (the run machine's states) in which a run takes no write. */
const CLOSED_PHASES: Record<string, string> = {
  evaluate: 'held-out evaluation is running: its numbers must come from one config',
  done: 'the run has finished',
  stopped: 'the run was stopped',
  failed: 'the run failed',
};

export type WriteRule = 'unknown-knob' | 'range' | 'difficulty-gate' | 'phase' | 'no-change';

export interface WriteContext {
  /** The run's effective config now (base, applied and queued writes). */
  config: RunConfig;
  /** The run machine's state (bootstrap, match, gym, paused, evaluate, done, …). */
  phase: string;
  /** W_DA of the latest match; null before the first. */
  recentSuccess: number | null;
  /** A revert restores a value the run already had: the difficulty gate does not apply to it. */
  revert?: boolean;
}

export type WriteCheck = { ok: true; spec: KnobSpec; value: number; from: number } | { ok: false; rule: WriteRule; message: string };

/** Parses a value given as text (the CLI, a form) for a knob; NaN when it is not a number. */
export function parseKnobValue(text: string | number | boolean): number {
  if (typeof text === 'number') return text;
  if (typeof text === 'boolean') return text ? 1 : 0;
  return text.trim() === '' ? Number.NaN : Number(text);
}

/** Checks a write against the registry and the run's state; the refusal names its rule. */
export function checkWrite(knob: string, raw: KnobValue, ctx: WriteContext): WriteCheck {
  const spec = BY_ID.get(knob);
  if (!spec) return { ok: false, rule: 'unknown-knob', message: `no knob "${knob}" (sparring knobs list RUN shows them)` };
  const value = parseKnobValue(raw);
  if (!Number.isFinite(value)) return { ok: false, rule: 'range', message: `${knob}: "${String(raw)}" is not a number` };
  if (spec.type === 'integer' && !Number.isInteger(value)) return { ok: false, rule: 'range', message: `${knob}: ${value} is not an integer` };
  if (value < spec.min || value > spec.max)
    return { ok: false, rule: 'range', message: `${knob}: ${value} is outside its range [${spec.min}, ${spec.max}] ${spec.unit}` };
  const closed = CLOSED_PHASES[ctx.phase];
  if (closed) return { ok: false, rule: 'phase', message: `${knob}: the run is in phase "${ctx.phase}" and takes no write: ${closed}` };
  const from = knobValue(ctx.config, knob);
  if (from === value) return { ok: false, rule: 'no-change', message: `${knob} is already ${value}` };
  const raises = spec.raisesDifficulty === 'up' ? value > from : spec.raisesDifficulty === 'down' ? value < from : false;
  if (raises && !ctx.revert) {
    const gate = ctx.config.eau?.difficultyGate ?? DEFAULT_DIFFICULTY_GATE;
    if (ctx.recentSuccess === null || ctx.recentSuccess < gate) {
      const seen = ctx.recentSuccess === null ? 'no match has been played yet' : `W_DA of the latest match is ${ctx.recentSuccess.toFixed(3)}`;
      return {
        ok: false,
        rule: 'difficulty-gate',
        message: `${knob}: ${from} → ${value} raises difficulty, allowed once the recent success rate reaches ${gate} (eau.difficultyGate); ${seen}`,
      };
    }
  }
  return { ok: true, spec, value, from };
}

/** Who made a write: a person, a diagnostic rule, an LLM meta-agent, or a run it was inherited from. */
export function isWriter(by: string): boolean {
  return /^(person(:.+)?|diagnostic:[a-z-]+|llm:.+|inherited:R\d+\/W\d+|eau:auto-revert)$/.test(by);
}
