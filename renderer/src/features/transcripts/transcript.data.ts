/**
 * Shapes a stored episode for the turn-by-turn view: the DA's thinking and spoken words come out
 * of its raw wire output, tool calls and results are pretty-printed, and every reward term is
 * listed per turn and per episode. Pure, so it is tested without a DOM.
 */
import type { EpisodeRecord, TurnRecord } from '../../../../core/contract/contract';
import { REWARD_TERMS } from '../../glossary/glossary';

export interface TermValue {
  term: string;
  value: number;
}

export interface TurnView {
  index: number;
  role: 'customer' | 'agent';
  actionType: TurnRecord['actionType'];
  /** What was said: the customer's words, or the DA's message for speak / end_call. */
  said: string | null;
  /** The DA's reasoning from its output's `thinking` field. */
  thinking: string | null;
  tool: string | null;
  toolArgs: string | null;
  toolResult: { ok: boolean; text: string; error: string | null } | null;
  parseError: string | null;
  /** The raw DA output, shown when it did not parse. */
  raw: string | null;
  rewards: TermValue[];
  rewardSum: number;
}

export function turnViews(e: Pick<EpisodeRecord, 'turns'>): TurnView[] {
  return e.turns.map((t) => {
    const rewards = Object.entries(t.rewards)
      .filter((kv): kv is [string, number] => typeof kv[1] === 'number')
      .map(([term, value]) => ({ term, value }));
    const base = {
      index: t.index,
      role: t.role,
      actionType: t.actionType,
      rewards,
      rewardSum: rewards.reduce((s, r) => s + r.value, 0),
      parseError: t.parseError,
    };
    if (t.role === 'customer') {
      return { ...base, said: t.text, thinking: null, tool: null, toolArgs: null, toolResult: null, raw: null };
    }
    const out = parseWire(t.text);
    const result = t.toolResult;
    return {
      ...base,
      said: t.actionType === 'speak' || t.actionType === 'end_call' ? (out?.content ?? null) : null,
      thinking: out?.thinking || null,
      tool: t.tool,
      toolArgs: t.toolArgs ? JSON.stringify(t.toolArgs, null, 2) : null,
      toolResult: result
        ? result.ok
          ? { ok: true, text: JSON.stringify(result.data, null, 2), error: null }
          : { ok: false, text: JSON.stringify(result.error, null, 2), error: `${result.error.code}: ${result.error.message}` }
        : null,
      raw: t.actionType === null ? t.text : null,
    };
  });
}

function parseWire(raw: string): { thinking: string; content: string } | null {
  try {
    const v = JSON.parse(raw) as { thinking?: unknown; content?: unknown };
    return { thinking: typeof v.thinking === 'string' ? v.thinking : '', content: typeof v.content === 'string' ? v.content : '' };
  } catch {
    return null;
  }
}

/** Episode-level reward terms, in the store's order, with their sums (r_DA, r_CA). */
export function episodeTerms(e: Pick<EpisodeRecord, 'daTerms' | 'caTerms' | 'rDa' | 'rCa'>): { da: TermValue[]; ca: TermValue[]; rDa: number; rCa: number } {
  const rows = (terms: Record<string, number>) => Object.entries(terms).map(([term, value]) => ({ term, value }));
  return { da: rows(e.daTerms), ca: rows(e.caTerms), rDa: e.rDa, rCa: e.rCa };
}

/** "+1.00", "−0.05", "0.00": signed, with a real minus sign. */
export function signed(x: number, digits = 2): string {
  const s = Math.abs(x).toFixed(digits);
  if (Number(s) === 0) return (0).toFixed(digits);
  return `${x > 0 ? '+' : '−'}${s}`;
}

/** A reward term in words (the glossary's), or its name made readable: env_lookup_first → lookup first. */
export function termLabel(term: string): string {
  return REWARD_TERMS[term]?.label ?? term.replace(/^env_/, '').replace(/_/g, ' ');
}

/** The term's definition for a tooltip. */
export function termDefinition(term: string): string {
  return REWARD_TERMS[term]?.definition ?? term;
}

/** The MADS adversities that fired, by the turn each shaped ("backend failure: transfer_funds: service unavailable"). */
export function adversitiesByTurn(e: Pick<EpisodeRecord, 'adversities'>): Map<number, string[]> {
  const out = new Map<number, string[]>();
  for (const a of e.adversities ?? []) out.set(a.turn, [...(out.get(a.turn) ?? []), `${a.kind.replace(/_/g, ' ')}: ${a.detail}`]);
  return out;
}
