/**
 * Identity claims: record ids and reference numbers, card digits, and capitalised names (a
 * merchant, a person, a place) must come from a tool result or the customer's words.
 */
import type { Compiled } from '../config';
import type { Evidence } from './evidence';
import { glue } from './text';
import type { Sentence } from './sentence';

export const ID_SHAPE_RE = /\b[A-Z]{2,5}[-_#]?\d{3,}[A-Z0-9]*\b/g;

export function checkIds(x: Sentence): void {
  const { s, ev, c, push } = x;
  const ids = new Set<string>();
  c.idRe.lastIndex = 0;
  for (let m = c.idRe.exec(s); m; m = c.idRe.exec(s)) ids.add(m[0]);
  for (const m of s.matchAll(ID_SHAPE_RE)) ids.add(m[0]);
  for (const m of s.matchAll(
    /\b(?:reference|ticket|case|dispute|confirmation|claim|transfer|transaction)\s+(?:number|no\.?|id|#)\s*(?:is\s+)?:?\s*#?([A-Za-z0-9_-]*\d[A-Za-z0-9_-]*)/gi,
  ))
    ids.add(m[1]!);
  for (const id of ids) {
    // `card_id`, `account_id`: a field name read out (a raw dump, judged by the tier), not an id.
    if (/^[a-z]+_ids?$/i.test(id)) continue;
    if (!ev.tokens.has(id.toLowerCase())) push('id', id, 'no tool result issued this id and the customer never said it');
  }
}

export function checkCardDigits(x: Sentence): void {
  const { s, lower, ev, push } = x;
  if (lower.includes('card')) {
    for (const m of s.matchAll(/\bending(?:\s+in|\s+with)?\s+(\d{4})\b|\blast\s+(?:four|4)(?:\s+digits)?(?:\s+(?:of|are|is))?[\s:]*(\d{4})\b/gi)) {
      const d = (m[1] ?? m[2])!;
      if (!ev.last4.has(d)) push('card_digits', m[0], `no card ending ${d} in any tool result or customer message`);
    }
  }
}

export function checkNames(x: Sentence): void {
  const { s, ev, c, push, claimed } = x;
  for (const name of nameCandidates(s, c)) {
    if (claimed.some((x) => x.includes(name) || name.includes(x))) continue;
    if (!nameSupported(name, ev, c)) push('name', name, 'this name is in no tool result and the customer never said it');
  }
}

const CAP_TOKEN_RE = /[A-Za-z0-9][A-Za-z0-9&'*.-]*[A-Za-z0-9]|[A-Za-z0-9]/g;

function isCapitalised(tok: string): boolean {
  return /^[A-Z]/.test(tok) || (/^\d/.test(tok) && /[A-Z]/.test(tok) && /[a-zA-Z]{2,}/.test(tok));
}

/** Capitalised phrases in a sentence that could name a merchant, a person or a place. */
export function nameCandidates(sentence: string, c: Compiled): string[] {
  const s = c.commonPhrases ? sentence.replace(c.commonPhrases, (m) => ' '.repeat(m.length)) : sentence;
  const toks: { t: string; a: number; b: number }[] = [];
  CAP_TOKEN_RE.lastIndex = 0;
  for (let m = CAP_TOKEN_RE.exec(s); m; m = CAP_TOKEN_RE.exec(s)) toks.push({ t: m[0].replace(/\.+$/, ''), a: m.index, b: m.index + m[0].length });
  const out: string[] = [];
  let i = 0;
  while (i < toks.length) {
    if (!isCapitalised(toks[i]!.t)) {
      i++;
      continue;
    }
    let j = i;
    while (j + 1 < toks.length && isCapitalised(toks[j + 1]!.t) && /^[ \t&*]*$/.test(s.slice(toks[j]!.b, toks[j + 1]!.a))) j++;
    let group = toks.slice(i, j + 1);
    i = j + 1;
    // "Northwind Bank", "Fraud Team": the bank itself or one of its teams.
    if (group.length > 1 && c.institutionSuffixes.includes(group[group.length - 1]!.t.toLowerCase())) continue;
    // Drop common words at either end; one inside stays (it is part of the name).
    while (group.length && c.common.has(group[0]!.t.toLowerCase())) group = group.slice(1);
    while (group.length && c.common.has(group[group.length - 1]!.t.toLowerCase())) group = group.slice(0, -1);
    if (!group.length) continue;
    // A single sentence-initial word is capitalised by position; only odd shapes (all caps, *, ., digits) count.
    if (group[0] === toks[0] && group.length === 1 && !/^[A-Z0-9&*.'-]{3,}$|[*&.\d]/.test(group[0]!.t)) continue;
    out.push(s.slice(group[0]!.a, group[group.length - 1]!.b).replace(/\.+$/, ''));
  }
  return out;
}

/**
 * Card descriptors and the brands they stand for (descriptor → brand normalisation): a token of a
 * merchant's descriptor in a result ("AMZN MKTP", "NTFLX EU 4471", "SQ *GRN VALLEY") backs the
 * brand's plain name ("Amazon Marketplace", "Netflix", "Square"). Keys lower-case descriptor
 * tokens; values the brand's words. Exported into the pack's judge.json (claims.namesAndIds.brands).
 */
export const DESCRIPTOR_BRANDS: Readonly<Record<string, string>> = {
  amzn: 'Amazon',
  mktp: 'Marketplace',
  mktplace: 'Marketplace',
  amazoncom: 'Amazon',
  ntflx: 'Netflix',
  nflx: 'Netflix',
  pypl: 'PayPal',
  paypal: 'PayPal',
  sq: 'Square',
  tst: 'Toast',
  googl: 'Google',
  goog: 'Google',
  svcs: 'Services',
  applecom: 'Apple',
  aplpay: 'Apple Pay',
  sbux: 'Starbucks',
  wm: 'Walmart',
  wmt: 'Walmart',
  spotifyusa: 'Spotify',
  uber: 'Uber',
  lyft: 'Lyft',
  stm: 'Steam',
  steam: 'Steam',
};

const brandCache = new WeakMap<Evidence, { size: number; grams: Set<string> }>();

/** Brand words (glued, lower-case) the descriptors in the evidence stand for (kept until the evidence grows). */
function brandGrams(ev: Evidence): Set<string> {
  const size = ev.tokens.size;
  const hit = brandCache.get(ev);
  if (hit && hit.size === size) return hit.grams;
  const out = new Set<string>();
  for (const [token, brand] of Object.entries(DESCRIPTOR_BRANDS)) {
    if (!ev.tokens.has(token) && !ev.grams.has(token)) continue;
    out.add(glue(brand));
    for (const w of brand.split(/\s+/)) out.add(glue(w));
  }
  brandCache.set(ev, { size, grams: out });
  return out;
}

export function nameSupported(name: string, ev: Evidence, c: Compiled): boolean {
  const g = glue(name);
  if (g.length === 0 || ev.grams.has(g)) return true;
  const brands = brandGrams(ev);
  if (brands.has(g)) return true;
  // Every word of it known (a name split across results, or common words inside a phrase, or a descriptor's brand).
  const words = name.split(/[\s&*]+/).filter(Boolean);
  return words.length > 1 && words.every((w) => c.common.has(w.toLowerCase()) || ev.grams.has(glue(w)) || brands.has(glue(w)));
}
