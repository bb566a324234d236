/**
 * Shapes an `episodes/diff` answer for the side-by-side view: the two transcripts aligned turn by
 * turn, the first divergence marked (and what differs there), later turns marked as downstream of
 * it, and the outcomes compared field by field. Pure, so it is tested without a DOM.
 */
import type { EpisodeDiff, EpisodeRecord, TurnField } from '../../../../core/contract/contract';
import { signed, turnViews } from './transcript.data';
import type { TurnView } from './transcript.data';

export interface DiffRow {
  index: number;
  a: TurnView | null;
  b: TurnView | null;
  /** same: before the divergence; first: the first divergent turn; after: downstream of it. */
  state: 'same' | 'first' | 'after';
  /** What differs at the first divergent turn (empty elsewhere). */
  fields: TurnField[];
  /** The turn's reward terms differ (can happen before the divergence: credit is assigned in hindsight). */
  rewardsDiffer: boolean;
}

export function diffRows(d: EpisodeDiff): DiffRow[] {
  const a = turnViews(d.a.episode);
  const b = turnViews(d.b.episode);
  const first = d.divergence?.turn ?? null;
  const rewardTurns = new Set(d.divergence?.rewardTurns ?? []);
  return Array.from({ length: Math.max(a.length, b.length) }, (_, i) => ({
    index: i,
    a: a[i] ?? null,
    b: b[i] ?? null,
    state: first === null || i < first ? 'same' : i === first ? 'first' : 'after',
    fields: i === first ? d.divergence!.fields : [],
    rewardsDiffer: rewardTurns.has(i),
  }));
}

export interface OutcomeRow {
  label: string;
  a: string;
  b: string;
  differs: boolean;
}

/** The episodes' outcomes side by side: winner, routing, rewards, the judge's verdict. */
export function outcomeRows(d: EpisodeDiff): OutcomeRow[] {
  const fields: [string, (e: EpisodeRecord) => string][] = [
    ['winner', (e) => `${e.winner} won`],
    ['routed to', (e) => e.routedTool ?? 'no domain tool'],
    ['ended', (e) => (e.endReason === 'end_call' ? 'by the DA' : 'turn limit')],
    ['turns', (e) => String(e.turns.length)],
    ['r_DA', (e) => signed(e.rDa)],
    ['r_CA', (e) => signed(e.rCa)],
    ['judge J', (e) => signed(e.judge.score)],
    ['judge: resolved', (e) => (e.judge.resolved ? 'resolved' : 'not resolved')],
    ['judge: hallucination', (e) => (e.judge.hallucination ? `yes (${e.judge.hallucinations.length})` : 'none')],
  ];
  return fields.map(([label, f]) => {
    const a = f(d.a.episode);
    const b = f(d.b.episode);
    return { label, a, b, differs: a !== b };
  });
}

/** One line for the view's heading: where the replays part ways, in words. */
export function divergenceText(d: EpisodeDiff): string {
  const v = d.divergence;
  if (!v) return 'No divergence: both replays are the same episode, turn for turn.';
  if (v.turn === null) return `Same turns; the outcome differs in ${v.episode.join(', ')}.`;
  const what = v.fields.length === 1 && v.fields[0] === 'role' ? 'one replay has no such turn' : v.fields.join(', ');
  return `First divergence at turn ${v.turn}: ${what}.`;
}
