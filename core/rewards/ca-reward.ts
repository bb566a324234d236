/**
 * r_CA = r_format + r_realism + r_conceal + r_inv-DA (RL-ADA eq. 2). The first three shape each
 * customer utterance; r_inv-DA, the core signal, rewards the episode's outcome (a DA misroute) and
 * is booked on the customer's opening turn, the utterance the CA chiefly optimises.
 */
import type { CaRewardConfig } from '../config';
import type { Transcript } from '../world/transcript';
import { daWins } from './episode-facts';
import { sumTerms, zeroCaTerms } from './terms';
import type { CaTerms } from './terms';

export interface CaRewardResult {
  perTurn: Map<number, Partial<CaTerms>>;
  total: CaTerms;
  rCa: number;
}

/** Natural language: non-empty, not JSON or markup. */
export function isNaturalLanguage(text: string): boolean {
  const s = text.trim();
  if (s === '') return false;
  if (/^[[{]/.test(s) || /"action_type"\s*:/.test(s)) return false;
  return /[a-z]/i.test(s);
}

/** Phrases a bank agent says, not a customer: role confusion (RL-ADA §6). */
const AGENT_PHRASES = [
  'how can i help',
  'how may i help',
  'how may i assist',
  'how can i assist',
  'let me check your',
  'let me look into your',
  'i can help you with',
  'is there anything else i can',
  'thank you for calling',
  'our records show',
  'i have verified',
  "i've verified",
  'i will transfer you',
  'please hold while',
];

/**
 * Signed realism in [−1, 1], scaled by `realismScale`: first-person customer voice, a length a
 * customer would say in one breath, no agent phrases, no markup.
 */
export function realismScore(text: string): number {
  const s = text.trim();
  const lower = s.toLowerCase();
  const words = s.split(/\s+/).filter(Boolean).length;
  let score = 0;
  score += /\b(i|i'm|i've|my|me|mine)\b/i.test(s) ? 0.4 : -0.3;
  if (words >= 4 && words <= 45) score += 0.3;
  else if (words < 2 || words > 80) score -= 0.5;
  if (!/[\n*#<>]|^\s*-/.test(s)) score += 0.3;
  if (AGENT_PHRASES.some((p) => lower.includes(p))) score -= 1.5;
  return Math.max(-1, Math.min(1, score));
}

/** Does the utterance name the intent outright (any of its `reveals` phrases)? */
export function revealsIntent(text: string, reveals: readonly string[]): boolean {
  const lower = text.toLowerCase().replace(/’/g, "'");
  return reveals.some((p) => lower.includes(p.toLowerCase()));
}

export function caRewards(t: Transcript, reveals: readonly string[], cfg: CaRewardConfig): CaRewardResult {
  const perTurn = new Map<number, Partial<CaTerms>>();
  const total = zeroCaTerms();
  const add = (i: number, term: keyof CaTerms, v: number) => {
    if (v === 0) return;
    const row = perTurn.get(i) ?? {};
    row[term] = (row[term] ?? 0) + v;
    perTurn.set(i, row);
    total[term] += v;
  };
  let opening = -1;
  t.turns.forEach((turn, i) => {
    if (turn.role !== 'customer') return;
    if (opening < 0) opening = i;
    const natural = isNaturalLanguage(turn.text);
    add(i, 'format', natural ? cfg.formatNatural : cfg.formatBad);
    if (natural) add(i, 'realism', cfg.realismScale * realismScore(turn.text));
    if (revealsIntent(turn.text, reveals)) add(i, 'conceal', cfg.concealPenalty);
  });
  if (opening >= 0) add(opening, 'inv_da', daWins(t) ? cfg.invDaCorrect : cfg.invDaMisroute);
  return { perTurn, total, rCa: sumTerms(total) };
}
