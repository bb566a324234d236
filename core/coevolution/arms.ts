/**
 * Arms of a study: named run-config overlays, each an ablation of the method (RL-ADA §3) applied
 * to a preset. An overlay is a deep-partial RunConfig merged over the preset (objects merge,
 * everything else replaces); the merged config must pass the run-config schema, so an unknown
 * field is refused by name before anything runs.
 *
 * `fixed-opponent` is the static-counterpart setting of IB-RL (../shared/seeds/003): the DA
 * trains against a frozen CA with the same total DA gym budget the `full` run of the same seed
 * used, so the study runs `full` first for that seed and sets `schedule.daGyms` from it;
 * `unilateral` is the same arm under IB-RL's name for it (the unilateral RL baseline).
 *
 * The `ib-rl` arms run IB-RL's schedule (core/coevolution/ib-rl.ts) with RL-ADA's stopping rule
 * (so their length is bounded as `full`'s is): `ib-rl` with the paper's pool (0.7 / 0.2 / 0.1) and
 * stagger (the CA every second round at a tenth of its gym rate); the pool sensitivity arms
 * `ib-rl-pool-both` (1 / 0 / 0: no historical opponents) and `ib-rl-pool-even` (0.4 / 0.3 / 0.3);
 * `ib-rl-no-stagger` (both roles every round at their gym rates). RL-ADA itself is `full`.
 */
import { IB_RL_DEFAULTS } from '../presets';
import { checkConfigValue, parseRunConfig, RunConfigError } from './run-config';
import type { RunConfig } from './run-config';

export interface ArmSpec {
  description: string;
  /** The overlay for a base (preset) config; most arms ignore the base. */
  overlay: (base: RunConfig) => Record<string, unknown>;
  /** The DA gym budget comes from the `full` run of the same seed (schedule.daGyms). */
  budgetFromFull?: true;
}

export const ARMS = {
  full: { description: 'the preset as is', overlay: () => ({}) },
  'fixed-opponent': {
    description: 'the DA trains against the frozen CA0, with the DA gym budget the full run of the same seed used',
    overlay: () => ({ schedule: { daOpponent: 'CA0' } }),
    budgetFromFull: true,
  },
  unilateral: {
    description: "IB-RL's unilateral baseline, the same arm as fixed-opponent: the DA trains against the frozen CA0, with the full run's DA gym budget",
    overlay: () => ({ schedule: { daOpponent: 'CA0' } }),
    budgetFromFull: true,
  },
  'fixed-opponent-scripted': {
    description: 'the DA trains against the scripted CA, with the DA gym budget the full run of the same seed used',
    overlay: () => ({ schedule: { daOpponent: 'scripted' } }),
    budgetFromFull: true,
  },
  'no-ca-training': { description: 'CA gyms off: the CA stays CA0', overlay: () => ({ schedule: { caGyms: false } }) },
  'no-isolation': { description: 'both agents train after every match', overlay: () => ({ schedule: { isolation: 'both' } }) },
  'mix-50-50': { description: 'the gym data is 50% failure transcripts (instead of 70%)', overlay: () => ({ gym: { failureShare: 0.5 } }) },
  'mix-100-0': { description: 'the gym data is failure transcripts only', overlay: () => ({ gym: { failureShare: 1 } }) },
  'no-stop-rule': {
    description: 'always n_max matches (n_min = n_max)',
    overlay: (base) => ({ stopping: { nMin: base.stopping.nMax } }),
  },
  'ib-rl': {
    description: "IB-RL: both roles train from joint rollouts, pool 0.7/0.2/0.1, the CA every second round at a tenth of its gym rate; RL-ADA's stopping rule",
    overlay: (base) => ibRl(base, IB_RL_DEFAULTS.pool, true),
  },
  'ib-rl-pool-both': {
    description: 'IB-RL with pool 1/0/0: always both current checkpoints, no historical opponents',
    overlay: (base) => ibRl(base, { pBoth: 1, pDa: 0, pCa: 0 }, true),
  },
  'ib-rl-pool-even': {
    description: 'IB-RL with pool 0.4/0.3/0.3: historical opponents in 60% of rounds',
    overlay: (base) => ibRl(base, { pBoth: 0.4, pDa: 0.3, pCa: 0.3 }, true),
  },
  'ib-rl-no-stagger': {
    description: 'IB-RL without staggering: both roles every round, each at its gym rate; pool 0.7/0.2/0.1',
    overlay: (base) => ibRl(base, IB_RL_DEFAULTS.pool, false),
  },
} satisfies Record<string, ArmSpec>;

/** An IB-RL schedule overlay: the pool, and the paper's stagger (the CA every caEvery rounds at caLrFactor × its gym rate) or none. */
function ibRl(base: RunConfig, pool: { pBoth: number; pDa: number; pCa: number }, stagger: boolean): Record<string, unknown> {
  return {
    schedule: {
      kind: 'ib-rl',
      pool: { ...pool },
      stagger: stagger ? { ...IB_RL_DEFAULTS.stagger, caLr: base.gym.ca.lr * IB_RL_DEFAULTS.caLrFactor } : { daEvery: 1, caEvery: 1 },
    },
  };
}

export type ArmName = keyof typeof ARMS;

export function isArmName(name: string): name is ArmName {
  return Object.hasOwn(ARMS, name);
}

/** Objects merge key by key; arrays and scalars in the overlay replace the base's. Shares unchanged parts: serialise the result before mutating. */
export function deepMerge(base: unknown, overlay: unknown): unknown {
  if (!isPlainObject(base) || !isPlainObject(overlay)) return overlay;
  const out: Record<string, unknown> = { ...base };
  for (const [k, v] of Object.entries(overlay)) out[k] = Object.hasOwn(out, k) ? deepMerge(out[k], v) : v;
  return out;
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * A study's own arm: a name and a deep-partial run-config overlay merged over the study's base,
 * like the shipped arms' (`sparring study --arm NAME=FILE`, the Studies screen's custom arms). It
 * is compared with the others on the same seeds; the runs keep the merged config, so a resumed
 * study needs nothing else.
 */
export interface CustomArm {
  name: string;
  overlay: Record<string, unknown>;
  /** Where the overlay came from (a file), for errors. */
  source: string;
}

/** What a custom arm may be called: lower case, digits and dashes, at most 40 characters. */
const CUSTOM_ARM_NAME = /^[a-z][a-z0-9-]{0,39}$/;

/** A custom arm from its name and overlay text (JSON); errors name the arm and, for JSON, the line and column. */
export function customArm(name: string, overlayText: string, source: string): CustomArm {
  const where = `arm ${name} (${source})`;
  if (!CUSTOM_ARM_NAME.test(name))
    throw new RunConfigError(where, 'arms', `a custom arm's name is lower-case letters, digits and dashes, starting with a letter (at most 40), got "${name}"`);
  if (isArmName(name)) throw new RunConfigError(where, 'arms', `"${name}" is a shipped arm; give the custom arm another name`);
  let overlay: unknown;
  try {
    overlay = JSON.parse(overlayText);
  } catch (e) {
    const m = /position (\d+)/.exec(String(e));
    const at = m ? Number(m[1]) : null;
    const line = at === null ? null : overlayText.slice(0, at).split('\n').length;
    const column = at === null ? null : at - overlayText.lastIndexOf('\n', at - 1);
    throw new RunConfigError(where, 'overlay', `not JSON${line !== null ? ` (line ${line}, column ${column})` : ''}: ${(e as Error).message}`);
  }
  if (!isPlainObject(overlay)) throw new RunConfigError(where, 'overlay', 'an overlay is a JSON object of run-config fields');
  return { name, overlay, source };
}

/**
 * Parse an `--arms` list ("full,no-ca-training"): names known (shipped or `custom`), none twice, and
 * `full` present when an arm takes its budget from it. Custom arms the list leaves out come after
 * it, in their order. Throws a RunConfigError that names the arm.
 */
export function parseArms(list: string | readonly string[], custom: readonly CustomArm[] = []): string[] {
  const names = (typeof list === 'string' ? list.split(',') : [...list]).map((s) => s.trim()).filter(Boolean);
  const customNames = new Set<string>();
  for (const c of custom) {
    if (customNames.has(c.name)) throw new RunConfigError('--arm', 'arms', `custom arm "${c.name}" given twice`);
    customNames.add(c.name);
  }
  if (!names.length && !custom.length) throw new RunConfigError('--arms', 'arms', 'no arm given');
  const seen = new Set<string>();
  for (const n of names) {
    if (!isArmName(n) && !customNames.has(n))
      throw new RunConfigError('--arms', 'arms', `unknown arm "${n}"; known: ${[...Object.keys(ARMS), ...customNames].join(', ')}`);
    if (seen.has(n)) throw new RunConfigError('--arms', 'arms', `arm "${n}" given twice`);
    seen.add(n);
  }
  const needsFull = names.filter((n) => isArmName(n) && (ARMS[n] as ArmSpec).budgetFromFull);
  if (needsFull.length && !seen.has('full')) {
    throw new RunConfigError(
      '--arms',
      'arms',
      `${needsFull.join(', ')} take${needsFull.length === 1 ? 's' : ''} the DA gym budget of the full arm of the same seed; add full to --arms`,
    );
  }
  return [...names, ...custom.map((c) => c.name).filter((n) => !seen.has(n))];
}

/**
 * Each arm's run config at a study's creation, every one checked before anything runs: a shipped
 * arm's overlay (a budget arm with a stand-in budget of 1, rewritten once its full run has
 * finished), a custom arm's own.
 */
export function studyArmConfigs(base: RunConfig, arms: readonly string[], custom: readonly CustomArm[] = []): (arm: string) => RunConfig {
  const configs = new Map<string, RunConfig>();
  for (const arm of arms) {
    const c = custom.find((x) => x.name === arm);
    configs.set(
      arm,
      c
        ? overlayConfig(base, c.overlay, `arm ${c.name} (${c.source})`)
        : armConfig(base, arm as ArmName, (ARMS[arm as ArmName] as ArmSpec).budgetFromFull ? 1 : undefined),
    );
  }
  return (arm) => {
    const c = configs.get(arm);
    if (!c) throw new Error(`no arm "${arm}" in this study`);
    return c;
  };
}

/**
 * The run config of an arm: the overlay merged over `base`, then checked by the run-config
 * schema (errors name the arm and the field). `daGyms`: the budget for arms that take it from `full`.
 */
export function armConfig(base: RunConfig, arm: ArmName, daGyms?: number): RunConfig {
  const spec: ArmSpec = ARMS[arm];
  let overlay = spec.overlay(base);
  if (spec.budgetFromFull) {
    if (daGyms === undefined) throw new RunConfigError(`arm ${arm}`, 'schedule.daGyms', 'needs the DA gym count of the full run of the same seed');
    overlay = deepMerge(overlay, { schedule: { daGyms } }) as Record<string, unknown>;
  }
  return overlayConfig(base, overlay, `arm ${arm}`);
}

/**
 * What `config` changes of `base`, as an overlay deepMerge would apply: the leaves that differ
 * (objects compared key by key, arrays and scalars whole). A study shows its custom arms by it.
 */
export function configOverlay(base: unknown, config: unknown): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (!isPlainObject(config)) return out;
  const from = isPlainObject(base) ? base : {};
  for (const [k, v] of Object.entries(config)) {
    const b = from[k];
    if (isPlainObject(v) && isPlainObject(b)) {
      const inner = configOverlay(b, v);
      if (Object.keys(inner).length) out[k] = inner;
    } else if (JSON.stringify(v) !== JSON.stringify(b)) out[k] = v;
  }
  return out;
}

/** `base` with a deep-partial overlay merged over it, checked by the run-config schema. */
export function overlayConfig(base: RunConfig, overlay: Record<string, unknown>, source: string): RunConfig {
  checkConfigValue(overlay, source);
  return parseRunConfig(JSON.stringify(deepMerge(base, overlay)), source);
}
