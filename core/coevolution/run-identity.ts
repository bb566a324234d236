/**
 * Which run is this? Checkpoint names are lab-wide (DA7 may be the third DA of run R4), so every
 * view that names a run or a checkpoint also says its run's preset, seed, study arm and what its
 * config changes from that preset. This is the config part: the leaves where a run's stored
 * config differs from its preset's, as short lines (`gym.failureShare 0.7 → 0.5`), computed once
 * by the host for the CLI and the app alike.
 */

/** One leaf of the run config that differs from the preset's. */
export interface ConfigChange {
  /** Dotted path, e.g. `schedule.caGyms`. */
  path: string;
  /** The preset's value (undefined: the preset leaves it unset). */
  from: unknown;
  /** The run's value (undefined: the run leaves it unset). */
  to: unknown;
}

const isPlainObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Every leaf where `config` differs from `preset`, in the config's key order (then keys only the
 * preset has). Objects are walked key by key (an object the other side lacks, leaf by leaf);
 * arrays and scalars compare whole.
 */
export function configChanges(preset: unknown, config: unknown, at: readonly string[] = []): ConfigChange[] {
  // An object on one side and nothing on the other is walked as an empty object: the leaves are named.
  const objects = (isPlainObject(preset) || preset === undefined) && (isPlainObject(config) || config === undefined);
  if (objects && (isPlainObject(preset) || isPlainObject(config))) {
    const p = preset ?? {};
    const c = config ?? {};
    const keys = [...Object.keys(c), ...Object.keys(p).filter((k) => !Object.hasOwn(c, k))];
    return keys.flatMap((k) => configChanges(p[k], c[k], [...at, k]));
  }
  if (JSON.stringify(preset) === JSON.stringify(config)) return [];
  return [{ path: at.join('.'), from: preset, to: config }];
}

/** The longest value shown in a change line before it is cut with an ellipsis. */
const VALUE_CHARS = 40;

function valueText(v: unknown): string {
  if (v === undefined) return 'unset';
  const text = typeof v === 'string' ? v : JSON.stringify(v);
  return text.length > VALUE_CHARS ? `${text.slice(0, VALUE_CHARS - 1)}…` : text;
}

/** `gym.failureShare 0.7 → 0.5` (values cut at 40 characters). */
export function configChangeLine(c: ConfigChange): string {
  return `${c.path} ${valueText(c.from)} → ${valueText(c.to)}`;
}

/** A run's change lines against its preset's config: null when the run has no preset (a whole config of its own) or its config is not JSON. */
export function runConfigChange(presetConfig: unknown, configJson: string): string[] | null {
  if (presetConfig === undefined) return null;
  let config: unknown;
  try {
    config = JSON.parse(configJson);
  } catch {
    return null;
  }
  return configChanges(presetConfig, config).map(configChangeLine);
}
