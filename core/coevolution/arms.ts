/**
 * Arms of a study: named run-config overlays, each an ablation of the method (RL-ADA §3) applied
 * to a preset. An overlay is a deep-partial RunConfig merged over the preset (objects merge,
 * everything else replaces); the merged config must pass the run-config schema, so an unknown
 * field is refused by name before anything runs.
 *
 * `fixed-opponent` is the static-counterpart setting of IB-RL (../shared/seeds/003): the DA
 * trains against a frozen CA with the same total DA gym budget the `full` run of the same seed
 * used, so the study runs `full` first for that seed and sets `schedule.daGyms` from it.
 */
import { parseRunConfig, RunConfigError } from './run-config';
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
} satisfies Record<string, ArmSpec>;

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
 * Parse an `--arms` list ("full,no-ca-training"): names known, none twice, and `full` present
 * when an arm takes its budget from it. Throws a RunConfigError that names the arm.
 */
export function parseArms(list: string | readonly string[]): ArmName[] {
  const names = (typeof list === 'string' ? list.split(',') : [...list]).map((s) => s.trim()).filter(Boolean);
  if (!names.length) throw new RunConfigError('--arms', 'arms', 'no arm given');
  const seen = new Set<string>();
  for (const n of names) {
    if (!isArmName(n)) throw new RunConfigError('--arms', 'arms', `unknown arm "${n}"; known: ${Object.keys(ARMS).join(', ')}`);
    if (seen.has(n)) throw new RunConfigError('--arms', 'arms', `arm "${n}" given twice`);
    seen.add(n);
  }
  const needsFull = names.filter((n) => (ARMS[n as ArmName] as ArmSpec).budgetFromFull);
  if (needsFull.length && !seen.has('full')) {
    throw new RunConfigError('--arms', 'arms', `${needsFull.join(', ')} take${needsFull.length === 1 ? 's' : ''} the DA gym budget of the full arm of the same seed; add full to --arms`);
  }
  return names as ArmName[];
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

/** `base` with a deep-partial overlay merged over it, checked by the run-config schema. */
export function overlayConfig(base: RunConfig, overlay: Record<string, unknown>, source: string): RunConfig {
  return parseRunConfig(JSON.stringify(deepMerge(base, overlay)), source);
}
