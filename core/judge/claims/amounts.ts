/**
 * Amount claims: every dollar amount the agent states must be a money value of a successful tool
 * result or a number the customer said, or the total of the amounts stated before it in the same
 * message ("altogether that's $135.74"); an amount after the word "balance" must be a balance.
 */
import { fmtMoney } from './text';
import type { Sentence } from './sentence';

export function checkAmounts(x: Sentence): void {
  const { s, lower, amounts, ev, push, message } = x;
  for (const a of amounts) {
    if (ev.money.has(a.cents) || ev.customerNumbers.has(a.cents)) {
      message.stated.push(a.cents);
      continue;
    }
    const total = message.stated.length >= 2 && message.stated.reduce((p, q) => p + q, 0) === a.cents;
    if (!total) push('amount', a.text, `${fmtMoney(a.cents)} is in no tool result and the customer never said it`);
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
