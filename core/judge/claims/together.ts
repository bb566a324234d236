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

type Lookups = { items: number; accounts: number; names: { m: string; g: string }[]; typeRes: { t: string; re: RegExp }[] };
const cache = new WeakMap<Sentence['ev'], Lookups>();

/** The evidence's merchant names (glued) and account types (as regexes), built once until the evidence grows. */
function lookups(ev: Sentence['ev']): Lookups {
  const hit = cache.get(ev);
  if (hit && hit.items === ev.items.length && hit.accounts === ev.accounts.size) return hit;
  const names = [...new Set(ev.items.map((i) => i.merchant))].map((m) => ({ m, g: glue(m) })).filter((n) => n.g.length > 2);
  const types = [...new Set([...ev.accounts.values()].map((a) => a.type).filter(Boolean))];
  const out = { items: ev.items.length, accounts: ev.accounts.size, names, typeRes: types.map((t) => ({ t, re: new RegExp(`\\b${t}\\b`, 'i') })) };
  cache.set(ev, out);
  return out;
}

export function checkTogether(x: Sentence): void {
  const { s, ev, push } = x;
  const items = ev.items;
  const accounts = [...ev.accounts.entries()];
  if ((!items.length && accounts.length < 2) || !/\d/.test(s)) return;
  const { names, typeRes } = lookups(ev);
  for (const clause of s.split(CLAUSE_SPLIT_RE)) {
    const g = glue(clause);
    // Merchant with amount or date.
    if (!/\d/.test(clause)) continue;
    const merchants = names.filter((n) => g.includes(n.g)).map((n) => n.m);
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
    const types = typeRes.filter((x) => x.re.test(clause)).map((x) => x.t);
    if (types.length !== 1) continue;
    const amounts = findAmounts(clause);
    if (amounts.length !== 1) continue;
    const a = amounts[0]!;
    const ofType = accounts.filter(([, acc]) => acc.type === types[0]);
    const other = accounts.find(([, acc]) => acc.type !== types[0] && acc.balances.includes(a.cents));
    if (other && !ofType.some(([, acc]) => acc.balances.includes(a.cents)) && !ev.customerNumbers.has(a.cents)) {
      push('balance', a.text, `${fmtMoney(a.cents)} is the ${other[1].type} balance, not the ${types[0]}`);
    }
  }
}
