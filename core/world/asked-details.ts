/**
 * The kinds of concrete detail a customer can state, and which of them an agent's question asks
 * for. The environment reads it to time its conversational adversities (a withheld slot until the
 * agent asks for it); the customer's choices (core/agents/ca-choices.ts) to answer what was asked.
 */

/** The kinds of concrete detail a customer can state; `where` is the channel or the place. */
export const DETAIL_KINDS = ['merchant', 'amount', 'date', 'where'] as const;
export type DetailKind = (typeof DETAIL_KINDS)[number];

/** What in an agent's question (lower-cased) asks for each detail kind. */
export const ASKED_PATTERNS: Record<DetailKind, RegExp> = {
  merchant: /\b(merchant|shop|store|company|retailer|who|name)\b/,
  amount: /\b(amount|how much|cost|sum)\b/,
  date: /\b(when|date|day|time)\b/,
  where: /\b(where|online|in person|in store|contactless|how did you pay|channel)\b/,
};

/** Which detail kinds an agent's question asks for. */
export function askedKinds(question: string): DetailKind[] {
  const q = question.toLowerCase();
  return DETAIL_KINDS.filter((k) => ASKED_PATTERNS[k].test(q));
}
