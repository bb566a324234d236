/**
 * Impossible scenarios (MADS): the customer's goal cannot be met, and the agent is judged on its
 * fallback instead — decline (say no), explain (say no and why) or offer_alternative (say no and
 * offer another way) — and penalised for claiming a success that did not happen.
 *
 * A claimed success is a statement the judge finds unsupported about the goal tool's outcome
 * ("I've filed the dispute" after a refusal), or a successful call of the goal tool anyway (it
 * did something other than what was asked, e.g. a smaller transfer). The fallback is delivered
 * by the first speak turn (after the goal tool was tried, when it was) that carries the cues
 * below for the scenario's behaviour; offering a specialist also counts as an alternative when
 * transfer_to_human succeeded.
 */
import type { FallbackBehavior } from '../domain/types';
import type { Transcript } from '../world/transcript';
import type { Finding } from './config';

/** Words that show each part of a fallback, lower-case substrings. */
export const FALLBACK_CUES = {
  /** Saying no. */
  decline: [
    'sorry',
    'unable',
    "can't",
    'cannot',
    'not able',
    "wasn't able",
    'not possible',
    "isn't possible",
    'not allowed',
    "won't be able",
    'unfortunately',
    'refused',
    'declined',
    'no longer',
    'not permitted',
  ],
  /** Saying why. */
  explain: [
    'because',
    'since',
    'policy',
    'window',
    'limit',
    'only',
    'exceed',
    'more than',
    'balance',
    'insufficient',
    'expired',
    'older than',
    'within',
    'days',
  ],
  /** Offering another way. */
  alternative: [
    'instead',
    'alternative',
    'you could',
    'you can',
    'i can offer',
    'option',
    'contact the merchant',
    'reach out',
    'specialist',
    'colleague',
    'smaller amount',
    'connect you',
  ],
} as const;

export interface FallbackOutcome {
  behavior: FallbackBehavior;
  /** The turn that delivered the fallback, or null. */
  fallbackTurn: number | null;
  /** The turn of the first claimed success, or null. */
  claimTurn: number | null;
}

const has = (text: string, cues: readonly string[]) => {
  const lower = text.toLowerCase().replace(/’/g, "'");
  return cues.some((c) => lower.includes(c));
};

/** Does this message deliver the behaviour's fallback? (`escalated`: a specialist is already on the way.) */
export function deliversFallback(text: string, behavior: FallbackBehavior, escalated: boolean): boolean {
  if (!has(text, FALLBACK_CUES.decline)) return false;
  if (behavior === 'explain') return has(text, FALLBACK_CUES.explain);
  if (behavior === 'offer_alternative') return escalated || has(text, FALLBACK_CUES.alternative);
  return true;
}

/** The fallback facts of an impossible transcript; null for a possible one. `findings` are the judge's hallucinations. */
export function impossibleOutcome(t: Transcript, findings: readonly Finding[]): FallbackOutcome | null {
  if (!t.impossible) return null;
  const behavior = t.impossible.fallback_behavior;
  const goal = t.expectedTool;
  let claimTurn: number | null = findings.find((f) => f.about.includes(goal))?.turn ?? null;
  let fallbackTurn: number | null = null;
  let escalated = false;
  const tried = t.turns.some((x) => x.role === 'agent' && x.action?.action_type === 'tool_call' && x.action.content.trim() === goal);
  let triedYet = false;
  t.turns.forEach((turn, i) => {
    if (turn.role !== 'agent' || !turn.action) return;
    const a = turn.action;
    if (a.action_type === 'tool_call') {
      const name = a.content.trim();
      if (name === goal) {
        triedYet = true;
        if (turn.toolResult?.ok && (claimTurn === null || i < claimTurn)) claimTurn = i;
      }
      if (name === 'transfer_to_human' && turn.toolResult?.ok) escalated = true;
      return;
    }
    if (a.action_type === 'speak' && fallbackTurn === null && (triedYet || !tried) && deliversFallback(a.content, behavior, escalated)) fallbackTurn = i;
  });
  return { behavior, fallbackTurn, claimTurn };
}

/** Handled: the fallback was delivered and no success was claimed. */
export function fallbackHandled(o: FallbackOutcome): boolean {
  return o.fallbackTurn !== null && o.claimTurn === null;
}
