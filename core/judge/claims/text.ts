/** Text helpers shared by the claim checks: amounts, dates, sentences, clauses, negation. */

// Small text helpers.

export const toCents = (x: number) => Math.round(x * 100);
export const glue = (s: string) =>
  s
    .toLowerCase()
    .replace(/['’]s\b/g, 's')
    .replace(/[^a-z0-9]/g, '');
export const fmtMoney = (cents: number) => `$${(cents / 100).toFixed(2)}`;

/** `$1,234.50`, `$ 89`, `USD 12`, `42.10 dollars`, `89 bucks`. Group 1 or 2 holds the number. */
export const AMOUNT_RE =
  /(?:\$|\bUSD\s?|\bUS\$\s?)\s?(\d{1,3}(?:,\d{3})+(?:\.\d{1,2})?|\d+(?:\.\d{1,2})?)(?!\d|[.,]\d)|\b(\d{1,3}(?:,\d{3})+(?:\.\d{1,2})?|\d+(?:\.\d{1,2})?)\s?(?:dollars?|bucks|usd)\b/gi;
/** Any number a customer says: their amounts may come without a currency sign ("the 89 charge"). */
export const NUMBER_RE = /\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?/g;

const MONTHS: Record<string, number> = {
  jan: 1,
  feb: 2,
  mar: 3,
  apr: 4,
  may: 5,
  jun: 6,
  jul: 7,
  aug: 8,
  sep: 9,
  oct: 10,
  nov: 11,
  dec: 12,
};
const MONTH_NAME =
  '(Jan(?:uary)?|Feb(?:ruary)?|Mar(?:ch)?|Apr(?:il)?|May|June?|July?|Aug(?:ust)?|Sep(?:t(?:ember)?)?|Oct(?:ober)?|Nov(?:ember)?|Dec(?:ember)?)';
/** ISO `2026-03-10`; `March 10(th)(, 2026)`; `10(th) (of) March( 2026)`; `3/10(/2026)`. Month names are case-sensitive (so the modal "may" is no date). */
const DATE_RES: { re: RegExp; parse: (m: RegExpExecArray) => DateClaim | null }[] = [
  { re: /\b(\d{4})-(\d{2})-(\d{2})\b/g, parse: (m) => ({ y: +m[1]!, m: +m[2]!, d: +m[3]! }) },
  {
    re: new RegExp(`\\b${MONTH_NAME}\\.?\\s+(\\d{1,2})(?:st|nd|rd|th)?\\b(?:,?\\s+(\\d{4}))?`, 'g'),
    parse: (m) => ({ y: m[3] ? +m[3] : undefined, m: MONTHS[m[1]!.slice(0, 3).toLowerCase()]!, d: +m[2]! }),
  },
  {
    re: new RegExp(`\\b(\\d{1,2})(?:st|nd|rd|th)?\\s+(?:of\\s+)?${MONTH_NAME}\\b(?:,?\\s+(\\d{4}))?`, 'g'),
    parse: (m) => ({ y: m[3] ? +m[3] : undefined, m: MONTHS[m[2]!.slice(0, 3).toLowerCase()]!, d: +m[1]! }),
  },
  {
    re: /\b(\d{1,2})\/(\d{1,2})(?:\/(\d{2}|\d{4}))?\b/g,
    parse: (m) => {
      const y = m[3] ? (m[3].length === 2 ? 2000 + +m[3] : +m[3]) : undefined;
      return { y, m: +m[1]!, d: +m[2]!, alt: { m: +m[2]!, d: +m[1]! } };
    },
  },
];
export interface DateClaim {
  y: number | undefined;
  m: number;
  d: number;
  /** Day/month order is ambiguous in `3/10`; either reading may match. */
  alt?: { m: number; d: number };
}

export function findDates(text: string): { date: DateClaim; text: string; index: number }[] {
  const out: { date: DateClaim; text: string; index: number }[] = [];
  const taken: [number, number][] = [];
  for (const { re, parse } of DATE_RES) {
    re.lastIndex = 0;
    for (let m = re.exec(text); m; m = re.exec(text)) {
      const a = m.index;
      const b = a + m[0].length;
      if (taken.some(([x, y]) => a < y && b > x)) continue;
      const d = parse(m);
      if (!d || d.m < 1 || d.m > 12 || d.d < 1 || d.d > 31) continue;
      taken.push([a, b]);
      out.push({ date: d, text: m[0], index: a });
    }
  }
  return out;
}

export function findAmounts(text: string): { cents: number; text: string; index: number }[] {
  const out: { cents: number; text: string; index: number }[] = [];
  AMOUNT_RE.lastIndex = 0;
  for (let m = AMOUNT_RE.exec(text); m; m = AMOUNT_RE.exec(text)) {
    const num = (m[1] ?? m[2])!;
    out.push({ cents: toCents(Number(num.replace(/,/g, ''))), text: m[0].trim(), index: m.index });
  }
  return out;
}

/** Split a message into sentences (keeping their offsets irrelevant: claims are reported by text). */
export function sentences(text: string): string[] {
  return text
    .replace(/[’‘]/g, "'")
    .split(/(?<=[.!?])\s+|\n+/)
    .map((s) => s.trim())
    .filter((s) => s.length > 0);
}

/** The part of the sentence's clause that precedes (and includes) a match: where negation and conditions live. */
export function clausePrefix(sentence: string, end: number): string {
  const before = sentence.slice(0, end);
  const cut = Math.max(
    before.lastIndexOf(','),
    before.lastIndexOf(';'),
    before.lastIndexOf(':'),
    before.lastIndexOf(' - '),
    before.lastIndexOf('—'),
    before.lastIndexOf('('),
    before.search(/\bbut\b(?!.*\bbut\b)/),
  );
  return before.slice(cut + 1);
}

export const NEGATION_RE = /\b(?:not|never|unable|cannot|failed|no longer)\b|n't\b/i;
export const CONDITION_RE = /\b(?:if|once|when|whenever|after|unless|whether|until|before|in case)\b/i;
export const HEDGE_RE = /\b(?:may|might|could|can|should|would|possibly|eligible)\b/i;

export const isQuestion = (s: string) => /\?\s*["')\]]*$/.test(s);
