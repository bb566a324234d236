/**
 * Facts that travel together: a transaction's merchant, amount and date, and an account's type and
 * balance, said in one clause must belong to the same item. Every figure can be real while the
 * pairing is wrong ("Uber $22.90" when Uber was $18.40 and Lyft $22.90); the fact said second in
 * the clause is the one reported.
 */
import { findAmounts, findDates, fmtMoney, glue } from './text';
import type { DateClaim } from './text';
import type { Sentence } from './sentence';

const CLAUSE_SPLIT_RE = /[,;:]\s+|\s+(?:and|while|whereas|but|then)\s+|\s+-\s+|\s+—\s+/i;

const iso = (d: DateClaim, item: string) => +item.slice(5, 7) === d.m && +item.slice(8, 10) === d.d && (d.y === undefined || +item.slice(0, 4) === d.y);

export function checkTogether(x: Sentence): void {
  const { s, ev, push } = x;
  const items = ev.items;
  const accounts = [...ev.accounts.entries()];
  if (!items.length && accounts.length < 2) return;
  for (const clause of s.split(CLAUSE_SPLIT_RE)) {
    const g = glue(clause);
    // Merchant with amount or date.
    const merchants = [...new Set(items.map((i) => i.merchant))].filter((m) => glue(m).length > 2 && g.includes(glue(m)));
    if (merchants.length === 1) {
      const merchant = merchants[0]!;
      const mine = items.filter((i) => glue(i.merchant) === glue(merchant));
      const mAt = clause.toLowerCase().indexOf(merchant.toLowerCase().replace(/’/g, "'"));
      const amounts = findAmounts(clause);
      if (amounts.length === 1 && mine.some((i) => i.cents !== undefined)) {
        const a = amounts[0]!;
        const other = items.find((i) => i.cents === a.cents && glue(i.merchant) !== glue(merchant));
        if (other && !mine.some((i) => i.cents === a.cents)) {
          const merchantFirst = mAt >= 0 && mAt < a.index;
          push(
            merchantFirst ? 'amount' : 'name',
            merchantFirst ? a.text : merchant,
            `${fmtMoney(a.cents)} was the ${other.merchant} charge; ${merchant}'s was ${mine.map((i) => (i.cents === undefined ? '?' : fmtMoney(i.cents))).join(', ')}`,
            ['get_transactions'],
          );
          continue;
        }
      }
      const dates = findDates(clause);
      if (dates.length === 1 && mine.some((i) => i.date)) {
        const d = dates[0]!;
        const other = items.find((i) => i.date && iso(d.date, i.date) && glue(i.merchant) !== glue(merchant));
        if (other && !mine.some((i) => i.date && iso(d.date, i.date))) {
          push('date', d.text, `${other.merchant}'s charge was on ${other.date}; ${merchant}'s on ${mine.map((i) => i.date ?? '?').join(', ')}`, [
            'get_transactions',
          ]);
        }
      }
      continue;
    }
    // Account type with balance.
    const types = [...new Set(accounts.map(([, a]) => a.type).filter((t) => t && new RegExp(`\\b${t}\\b`, 'i').test(clause)))];
    const amounts = findAmounts(clause);
    if (types.length !== 1 || amounts.length !== 1) continue;
    const a = amounts[0]!;
    const ofType = accounts.filter(([, acc]) => acc.type === types[0]);
    const other = accounts.find(([, acc]) => acc.type !== types[0] && acc.balances.includes(a.cents));
    if (other && !ofType.some(([, acc]) => acc.balances.includes(a.cents)) && !ev.customerNumbers.has(a.cents)) {
      push('balance', a.text, `${fmtMoney(a.cents)} is the ${other[1].type} balance, not the ${types[0]}`);
    }
  }
}
