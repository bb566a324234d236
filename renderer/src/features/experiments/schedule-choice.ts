/**
 * The schedule picker of the Experiments screen: it reads and writes the config's `schedule`
 * (core/coevolution/run-config.ts): RL-ADA's isolation (no `schedule` block, the default) or
 * IB-RL (`"kind": "ib-rl"` with its opponent pool p_both / p_agent1 / p_agent2), so the JSON
 * editor and the picker never disagree.
 */

export type ScheduleKind = 'rl-ada' | 'ib-rl';
export type PoolKey = 'pBoth' | 'pDa' | 'pCa';
export type Pool = Record<PoolKey, number>;

/** The labels of the pool's probabilities, with the paper's names. */
export const POOL_LABELS: Record<PoolKey, string> = {
  pBoth: 'p_both (both current)',
  pDa: 'p_agent1 (DA vs a past CA)',
  pCa: 'p_agent2 (a past DA vs CA)',
};

function parse(text: string): Record<string, unknown> | null {
  try {
    const cfg = JSON.parse(text) as unknown;
    return typeof cfg === 'object' && cfg !== null && !Array.isArray(cfg) ? (cfg as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

const scheduleBlock = (cfg: Record<string, unknown>) => (cfg.schedule ?? {}) as Record<string, unknown>;

/** The schedule a config text asks for ('rl-ada' also when it is not JSON). */
export function scheduleOf(text: string): ScheduleKind {
  const cfg = parse(text);
  return cfg && scheduleBlock(cfg).kind === 'ib-rl' ? 'ib-rl' : 'rl-ada';
}

/** The IB-RL pool a config text sets, or null (none set: the engine's defaults). */
export function poolOf(text: string): Partial<Pool> | null {
  const cfg = parse(text);
  const pool = cfg ? scheduleBlock(cfg).pool : undefined;
  return pool && typeof pool === 'object' ? pool : null;
}

/**
 * The config text with the schedule chosen: IB-RL with `pool` (its stagger and rounds kept when it
 * already was IB-RL), or RL-ADA's isolation (an IB-RL block removed; an RL-ADA ablation block
 * kept). Unchanged when not JSON.
 */
export function withSchedule(text: string, kind: ScheduleKind, pool: Pool): string {
  const cfg = parse(text);
  if (!cfg) return text;
  const cur = scheduleBlock(cfg);
  if (kind === 'ib-rl') {
    const keep = cur.kind === 'ib-rl' ? cur : {};
    cfg.schedule = { ...keep, kind: 'ib-rl', pool: { ...pool, ...(keep.pool as Partial<Pool> | undefined) } };
  } else if (cur.kind === 'ib-rl') {
    delete cfg.schedule;
  }
  return JSON.stringify(cfg, null, 2);
}

/** The config text with one pool probability set (the others kept, or `defaults` where unset). */
export function withPoolValue(text: string, key: PoolKey, value: number, defaults: Pool): string {
  const cfg = parse(text);
  if (!cfg || scheduleBlock(cfg).kind !== 'ib-rl') return text;
  const cur = scheduleBlock(cfg);
  cfg.schedule = { ...cur, pool: { ...defaults, ...(cur.pool as Partial<Pool> | undefined), [key]: value } };
  return JSON.stringify(cfg, null, 2);
}
