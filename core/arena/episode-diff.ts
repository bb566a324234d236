/**
 * Where two episodes of the same scenario and seed part ways. Replays of one scenario and seed
 * share the world and the opponent's random streams, so whatever differs first was caused by the
 * two policies under comparison; everything after it may differ as a consequence.
 */
import type { EpisodeRecord, TurnRecord } from '../store/port';

/** What can differ at a turn, in the order a reader checks it. */
export const TURN_FIELDS = ['role', 'action', 'tool', 'args', 'outcome', 'text', 'rewards'] as const;
export type TurnField = (typeof TURN_FIELDS)[number];

/** What can differ about the whole episode. */
export const EPISODE_FIELDS = ['winner', 'endReason', 'routedTool', 'judge', 'daTerms', 'caTerms'] as const;
export type EpisodeField = (typeof EPISODE_FIELDS)[number];

export interface EpisodeDivergence {
  /**
   * Index of the first turn that differs; null when every turn agrees (then only episode-level
   * fields can differ, which cannot happen for a deterministic judge and rewards).
   */
  turn: number | null;
  /** The fields that differ at that turn; `role` alone also stands for "one episode has no such turn". */
  fields: TurnField[];
  /**
   * Every turn whose reward terms differ. Rewards are assigned in hindsight (a customer turn's
   * r_inv-DA depends on how the DA later routed), so they can differ before the behaviour does;
   * the divergence is the first turn where what was said or done differs.
   */
  rewardTurns: number[];
  /** Episode-level fields that differ. */
  episode: EpisodeField[];
}

/** The first divergence of `a` and `b`, or null when they are the same episode turn for turn. */
export function diffEpisodes(a: EpisodeRecord, b: EpisodeRecord): EpisodeDivergence | null {
  const episode = EPISODE_FIELDS.filter((f) => key(a[f]) !== key(b[f]));
  const n = Math.max(a.turns.length, b.turns.length);
  const rewardTurns: number[] = [];
  let first: { turn: number; fields: TurnField[] } | null = null;
  for (let i = 0; i < n; i++) {
    const ta = a.turns[i];
    const tb = b.turns[i];
    const fields: TurnField[] = ta && tb ? turnDifferences(ta, tb) : ['role'];
    if (fields.includes('rewards')) rewardTurns.push(i);
    if (!first && fields.some((f) => f !== 'rewards')) first = { turn: i, fields };
  }
  // Same behaviour throughout but different credit: point at the first turn credited differently.
  first ??= rewardTurns.length ? { turn: rewardTurns[0]!, fields: ['rewards'] } : null;
  if (first) return { ...first, rewardTurns, episode };
  return episode.length ? { turn: null, fields: [], rewardTurns, episode } : null;
}

export function turnDifferences(a: TurnRecord, b: TurnRecord): TurnField[] {
  const values = (t: TurnRecord): Record<TurnField, string> => ({
    role: t.role,
    action: key(t.actionType),
    tool: key(t.tool),
    args: key(t.toolArgs),
    outcome: key(t.toolResult),
    text: t.text,
    rewards: key(t.rewards),
  });
  const va = values(a);
  const vb = values(b);
  return TURN_FIELDS.filter((f) => va[f] !== vb[f]);
}

/** A canonical string for plain data: objects with sorted keys, so key order never counts. */
function key(v: unknown): string {
  return (
    JSON.stringify(v, (_k, x: unknown) =>
      x && typeof x === 'object' && !Array.isArray(x)
        ? Object.fromEntries(Object.entries(x as Record<string, unknown>).sort(([p], [q]) => (p < q ? -1 : p > q ? 1 : 0)))
        : x,
    ) ?? 'undefined'
  );
}
