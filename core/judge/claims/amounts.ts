/**
 * Amount claims: every dollar amount the agent states must be traced to where it came from — a
 * money value of a successful tool result, a number the customer said, or arithmetic over those
 * (a sum, a difference, a count times a value) — or be a marked approximation of one; an amount
 * after the word "balance" must be a balance.
 */
import { fmtMoney } from './text';
import type { Sentence } from './sentence';

/**
 * An approximation the agent marks as one ("about $90", "a little over $2,400", "$250 or so") is
 * true when a known value lies within this fraction of it (and on the stated side for "over" /
 * "under"): "roughly $250" for $249.99 is an approximation, for $219.99 it is a wrong figure.
 */
export const APPROX_TOLERANCE = 0.05;
/** Words before an amount that mark it as approximate; group 1 holds a side ("over" / "under") when the marker states one. */
const APPROX_BEFORE_RE =
  /\b(?:about|around|roughly|approximately|approx\.?|nearly|almost|close to|some|(?:just|a little|a bit|slightly|a touch)\s+(over|under|above|below|more than|less than|shy of))\s*~?\s*$|~\s*$/i;
const APPROX_AFTER_RE = /^\s*(?:or so|-ish|ish|give or take)\b/i;
/** A bound rather than a value ("everything else is under $70", "because it's over $500"). */
const BOUND_BEFORE_RE = /\b(over|under|above|below|more than|less than|at least|at most|up to|exceeds?|exceeding)\s*$/i;
/** Words that say a figure was worked out from others (a total, a shortfall, what is left). */
export const ARITHMETIC_CUE_RE =
  /\b(?:total|totals|totalling|totaling|altogether|all together|combined|in all|together|sum|short|shortfall|more than|less than|over|under|left|remaining|remain|difference|extra|cushion|both|twice|each|times|plus|minus|after|net|apart|gap|enough|above|below|covers?)\b|\d\s*[x×]\s*\$/i;
/** A question offering to do something with an amount ("Shall I move $400?"): a proposal, not a fact. */
const OFFER_RE =
  /^(?:(?:so|ok(?:ay)?|then|great|alright),?\s+)?(?:shall I|should I|would you like(?: me)? to|do you want(?: me)? to|want me to|can I|may I|could I|how about|I can)\b/i;

function approxSide(s: string, index: number, textLen: number): { approx: boolean; side: 'over' | 'under' | null; marker: string } {
  const before = s.slice(Math.max(0, index - 30), index);
  const m = APPROX_BEFORE_RE.exec(before);
  if (m) {
    const w = m[1]?.toLowerCase();
    return { approx: true, side: w ? (/over|above|more/.test(w) ? 'over' : 'under') : null, marker: m[0] };
  }
  return { approx: APPROX_AFTER_RE.test(s.slice(index + textLen)), side: null, marker: '' };
}

/** The known values (tool money, the customer's numbers, amounts already stated in the message), in cents. */
function knownValues(x: Sentence): number[] {
  return [...new Set([...x.ev.money, ...x.ev.customerNumbers, ...x.message.stated])].filter((v) => v > 0);
}

/** A value within the tolerance of `cents`, on the stated side. */
export function approximates(cents: number, known: readonly number[], side: 'over' | 'under' | null): boolean {
  return known.some((v) => {
    if (Math.abs(v - cents) > cents * APPROX_TOLERANCE) return false;
    return side === 'over' ? v >= cents : side === 'under' ? v <= cents : true;
  });
}

/** `cents` is a sum or difference of two known values, or a small count (2–5) times one. */
export function derivable(cents: number, known: readonly number[]): boolean {
  const set = new Set(known);
  for (const a of known) {
    for (let k = 2; k <= 5; k++) if (a * k === cents) return true;
    if (set.has(cents - a) || set.has(a - cents) || set.has(a + cents)) return true;
  }
  return false;
}

/** A bound ("under $70") is backed when a known value lies on its side, within half of it. */
function boundBacked(cents: number, known: readonly number[], word: string): boolean {
  const below = /under|below|less|at most|up to/i.test(word);
  return known.some((v) => (below ? v < cents && v >= cents / 2 : v > cents && v <= cents * 1.5));
}

export function checkAmounts(x: Sentence): void {
  const { s, lower, amounts, ev, push, message } = x;
  const offer = x.question && OFFER_RE.test(s);
  for (const a of amounts) {
    if (ev.money.has(a.cents) || ev.customerNumbers.has(a.cents)) {
      message.stated.push(a.cents);
      continue;
    }
    const known = knownValues(x);
    const { approx, side, marker } = approxSide(s, a.index, a.text.length);
    if (approx) {
      if (approximates(a.cents, known, side)) continue;
      push('amount', `${marker}${a.text}`.trim(), `${fmtMoney(a.cents)} is not within ${APPROX_TOLERANCE * 100}% of any tool value or customer figure`);
      continue;
    }
    const bound = BOUND_BEFORE_RE.exec(s.slice(Math.max(0, a.index - 20), a.index));
    if (bound && boundBacked(a.cents, known, bound[1]!)) continue;
    if (offer) continue;
    const total = message.stated.length >= 2 && message.stated.reduce((p, q) => p + q, 0) === a.cents;
    if (total || (ARITHMETIC_CUE_RE.test(s) && derivable(a.cents, known))) {
      message.stated.push(a.cents);
      continue;
    }
    push('amount', a.text, `${fmtMoney(a.cents)} is in no tool result, the customer never said it, and no sum or difference of those gives it`);
  }
  if (lower.includes('balance')) {
    for (const m of s.matchAll(/\bbalances?\b/gi)) {
      const after = amounts.find((a) => a.index > m.index && !/[.;]|\b(?:after|before|of the|for the)\b/i.test(s.slice(m.index, a.index)));
      if (after && ev.money.has(after.cents) && !ev.balances.has(after.cents) && !ev.customerNumbers.has(after.cents)) {
        push('balance', `balance ${after.text}`, `${fmtMoney(after.cents)} is not a balance in any tool result`);
      }
    }
  }
}
