/**
 * Stale figures: a balance a later tool result superseded (the checking balance from lookup_account
 * after a transfer changed it), stated as current. Marked as past ("it was $2,145.30 before the
 * transfer") it is true.
 */
import { fmtMoney } from './text';
import type { Sentence } from './sentence';

const PAST_RE = /\b(?:was|were|had|had been|before|earlier|previously|prior|originally|used to|at the start|then|from)\b/i;

export function checkStaleFigures(x: Sentence): void {
  const { s, amounts, ev, push } = x;
  if (!amounts.length || PAST_RE.test(s)) return;
  const accounts = [...ev.accounts.values()];
  for (const a of amounts) {
    if (ev.customerNumbers.has(a.cents) || ev.items.some((i) => i.cents === a.cents)) continue;
    if (accounts.some((acc) => acc.balances[acc.balances.length - 1] === a.cents)) continue;
    const old = accounts.find((acc) => acc.balances.slice(0, -1).includes(a.cents));
    if (!old) continue;
    const now = old.balances[old.balances.length - 1]!;
    push('balance', a.text, `${fmtMoney(a.cents)} was the ${old.type || 'account'} balance before a later result changed it to ${fmtMoney(now)}`);
  }
}
