/**
 * Currency claims: the bank's tools give every amount in dollars, so an amount the agent states in
 * another currency ("€89.47", "200 euros") misstates it, even when the number is real — unless it
 * quotes the customer's own words ("the 200 euros you asked for" is still wrong if moved as
 * dollars, so only a clause that says the customer said it is spared).
 */
import type { Sentence } from './sentence';

/** An amount in a currency other than the dollar: a sign or code before it, or a currency word after it. */
export const OTHER_CURRENCY_RE =
  /(?:[€£¥₹]|\b(?:EUR|GBP|JPY|CHF|CAD|AUD|MXN|INR)\s?)\s?\d[\d,]*(?:\.\d{1,2})?|\b\d[\d,]*(?:\.\d{1,2})?\s?(?:euros?|EUR|pounds? sterling|quid|GBP|yen|JPY|pesos?|rupees?|francs?|CHF)\b/g;

const CURRENCY_CUE_RE = /[€£¥₹]|euro|pound|quid|yen|peso|rupee|franc|EUR|GBP|JPY|CHF|CAD|AUD|MXN|INR/i;
const QUOTING_RE = /\byou\s+(?:said|asked(?:\s+for)?|mentioned|wanted|were quoted)\b/i;

export function checkCurrencies(x: Sentence): void {
  const { s, push } = x;
  if (!CURRENCY_CUE_RE.test(s)) return;
  for (const m of s.matchAll(OTHER_CURRENCY_RE)) {
    if (QUOTING_RE.test(s.slice(m.index, m.index + m[0].length + 30)) || QUOTING_RE.test(s.slice(Math.max(0, m.index - 30), m.index))) continue;
    push('currency', m[0].trim(), 'the tools give every amount in dollars; this one is stated in another currency');
  }
}
