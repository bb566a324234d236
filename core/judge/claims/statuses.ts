/**
 * Status claims: a card's status, a transaction's (posted / pending) and a dispute's provisional
 * credit must match the latest tool result that gives them.
 */
import { clausePrefix, CONDITION_RE, glue, HEDGE_RE, NEGATION_RE, toCents } from './text';
import type { Sentence } from './sentence';

export const STATUS_WORDS: Record<string, string> = {
  active: 'active',
  working: 'active',
  blocked: 'blocked',
  locked: 'blocked',
  suspended: 'blocked',
  frozen: 'frozen',
  expired: 'expired',
  deactivated: 'deactivated',
  cancelled: 'cancelled',
  canceled: 'cancelled',
  closed: 'closed',
  // everyday words for the codes (the pack's paraphrase table: judge.json claims.statuses[].words)
  usable: 'active',
  'good to go': 'active',
  'up and running': 'active',
  'out of date': 'expired',
};
export const STATUS_RE =
  /\b(?:is|are|was|were|'s|has been|has|have been|had been|remains|stays|shows(?: as| up as)?|showing(?: as)?|appears(?: to be)?|status(?: is)?:?|isn't|wasn't|aren't|is not|was not)\s+(?:now\s+|currently\s+|still\s+|temporarily\s+|also\s+|actually\s+|fully\s+)?(not\s+|no longer\s+)?(active|working|blocked|locked|suspended|frozen|expired|deactivated|cancell?ed|closed|usable|good to go|up and running|out of date)\b/gi;

/** A transaction's state, as the agent may describe it: "has posted", "went through" / "is pending". */
export const TXN_POSTED_RE =
  /\b(?:(?:has|have|had)\s+(?:now\s+|already\s+|fully\s+)*posted|(?:is|are|was|were)\s+(?:now\s+|already\s+|fully\s+)*posted|(?:went|gone|going)\s+through|(?:has|have)\s+(?:fully\s+)?cleared|(?:is|are)\s+(?:fully\s+)?cleared|(?:is|are|was)\s+(?:now\s+)?(?:complete|completed|settled|final))\b/gi;
export const TXN_PENDING_RE =
  /\b(?:(?:is|are|was|were)\s+(?:still\s+|currently\s+)?pending|(?:still|currently)\s+pending|(?:hasn't|has not|haven't|have not)\s+(?:yet\s+)?(?:posted|cleared|gone through|settled))\b/gi;

export function checkCardStatuses(x: Sentence): void {
  const { s, lower, ev, push, message } = x;
  const aboutCard = lower.includes('card') || (message.aboutCard && /^(?:it|it's|it is|it was)\b/i.test(s));
  message.aboutCard = aboutCard;
  if (aboutCard) {
    for (const m of s.matchAll(STATUS_RE)) {
      const copula = m[0].toLowerCase();
      const negated = Boolean(m[1]) || /n't|\bnot\b/.test(copula.slice(0, copula.lastIndexOf(m[2]!.toLowerCase())));
      const prefix = clausePrefix(s, m.index + m[0].length);
      if (CONDITION_RE.test(prefix)) continue;
      const status = STATUS_WORDS[m[2]!.toLowerCase()]!;
      const past = /\b(?:was|were|had been|wasn't)\b/.test(copula);
      const cards = [...ev.cards.values()];
      const ok = negated ? cards.some((cd) => cd.current !== status) : cards.some((cd) => (past ? cd.seen.has(status) : cd.current === status));
      if (!ok) {
        const known = cards.map((cd) => cd.current).join(', ') || 'none';
        push('card_status', m[0].trim(), cards.length ? `card status in tool results: ${known}` : 'no tool result gave a card status', ['check_card_status']);
      }
    }
  }
}

/** A refund said to have arrived ("your refund has landed", "the refund is back in your account"). */
export const REFUND_DONE_RE =
  /\brefund\s+(?:\w+\s+){0,3}?(?:(?:has|have)\s+(?:now\s+|already\s+|just\s+)*(?:landed|arrived|posted|cleared|come through|gone through|been (?:credited|paid|processed|completed))|(?:is|'s)\s+(?:now\s+|already\s+)*(?:in your account|back in your account|back on your account|complete|completed|posted|through)|came through|went through|landed|arrived)\b/gi;

/**
 * Transaction statuses, checked against the transactions the sentence names (by amount or
 * merchant) or, when it names none ("that payment has cleared"), the ones the message's last
 * sentence named; a refund said to have arrived must not be `refund_pending`.
 */
export function checkTxnStatuses(x: Sentence): void {
  const { s, amounts, ev, push, message } = x;
  const txns = ev.transactions();
  if (!txns.length) return;
  const named = txns.filter(
    (t) =>
      amounts.some((a) => typeof t.amount === 'number' && toCents(t.amount) === a.cents) ||
      (typeof t.merchant === 'string' && glue(t.merchant).length > 2 && glue(s).includes(glue(t.merchant))),
  );
  const referent = named.length ? named : message.namedTxns;
  if (named.length) message.namedTxns = named;
  const checkTxn = (re: RegExp, want: (st: string) => boolean, what: string) => {
    for (const m of s.matchAll(re)) {
      const prefix = clausePrefix(s, m.index);
      if (CONDITION_RE.test(prefix) || /\b(?:transfer|dispute|claim|refund)\b/i.test(s.slice(Math.max(0, m.index - 25), m.index))) continue;
      // "hasn't fully gone through": a negated posted claim says pending (TXN_PENDING_RE reads it).
      if (NEGATION_RE.test(clausePrefix(s, m.index + m[0].length))) continue;
      if (referent.length === 0 && !/\b(?:charge|payment|purchase|transaction|it|everything|all)\b/i.test(s)) continue;
      const pool = referent.length ? referent : txns;
      if (!pool.some((t) => typeof t.status === 'string' && want(t.status))) {
        push(
          'txn_status',
          m[0],
          `the transaction${pool.length === 1 ? '' : 's'} it names ${pool.length === 1 ? 'is' : 'are'} not ${what} in the get_transactions result`,
          ['get_transactions'],
        );
      }
    }
  };
  checkTxn(TXN_POSTED_RE, (st) => st === 'posted', 'posted');
  checkTxn(TXN_PENDING_RE, (st) => st === 'pending' || st === 'refund_pending', 'pending');
  for (const m of s.matchAll(REFUND_DONE_RE)) {
    if (CONDITION_RE.test(clausePrefix(s, m.index)) || NEGATION_RE.test(clausePrefix(s, m.index + m[0].length))) continue;
    const refunds = referent.filter((t) => t.direction === 'credit' || t.status === 'refund_pending');
    if (refunds.length && refunds.every((t) => t.status === 'refund_pending')) {
      push('txn_status', m[0], 'the refund it names is refund_pending in the get_transactions result', ['get_transactions']);
    }
  }
}

export function checkProvisionalCredit(x: Sentence): void {
  const { s, ev, push } = x;
  for (const m of s.matchAll(/\bprovisional(?:ly)?\s+(?:credit(?:ed)?|refund)/gi)) {
    const prefix = clausePrefix(s, m.index + m[0].length);
    if (NEGATION_RE.test(prefix) || /\bno\s+(?:\w+\s+)?provisional/i.test(prefix) || HEDGE_RE.test(prefix) || CONDITION_RE.test(prefix)) continue;
    if (!ev.okData('dispute_charge').some((d) => d.provisional_credit === true)) {
      push('provisional_credit', m[0], 'no dispute_charge result granted a provisional credit');
    }
  }
}
