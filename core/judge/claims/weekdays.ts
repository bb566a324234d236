/**
 * Weekday claims: a weekday said with its date ("Thursday, March 10th", "Friday the 12th",
 * "March 12th, a Thursday") must be that date's weekday in the world's calendar; a weekday said
 * alone of something past ("the charge from Sunday") must be one the customer said or the weekday
 * of a date the transcript holds. Read back as the customer's ("Sunday, as you said") when the
 * customer said another day, it is a customer fact altered.
 */
import { WEEKDAYS } from '../../world/calendar-words';
import { lastWeekday, monthOfDay, weekdayOf, yearOf } from './calendar';
import { findDates } from './text';
import type { Sentence } from './sentence';

const WD = `(${WEEKDAYS.join('|')})`;
/** A weekday before a day of the month alone: "Friday the 12th", "Friday 12th". */
const WEEKDAY_DAY_RE = new RegExp(`\\b${WD},?\\s+(?:the\\s+)?(\\d{1,2})(?:st|nd|rd|th)\\b`, 'gi');
const WEEKDAY_AFTER_RE = new RegExp(`^,?\\s*\\(?(?:a|which (?:is|was)|that (?:is|was)|on a)\\s+${WD}\\b`, 'i');
const WEEKDAY_CUE_RE = new RegExp(`\\b${WD}`, 'i');
const WEEKDAY_RE = new RegExp(`\\b${WD}(?:'s)?\\b`, 'gi');
/** Read back as the customer's words. */
const AS_SAID_RE = /\b(?:as you (?:said|mentioned|told me|described)|you (?:said|mentioned|told me))\b/i;
const FUTURE_RE = /\b(?:will|'ll|going to|by|until|next|this coming|coming|should|expect)\b/i;

export function checkWeekdays(x: Sentence): void {
  const { s, ev, push } = x;
  if (!WEEKDAY_CUE_RE.test(s)) return;
  const paired: [number, number][] = [];
  const mismatch = (claim: string, said: string, y: number, m: number, d: number, a: number, b: number) => {
    paired.push([a, b]);
    const real = weekdayOf(y, m, d);
    if (real !== said.toLowerCase())
      push('weekday', claim, `${y}-${String(m).padStart(2, '0')}-${String(d).padStart(2, '0')} is a ${real[0]!.toUpperCase()}${real.slice(1)}`);
  };
  for (const dt of findDates(s)) {
    const before = /\b([A-Za-z]+day),?\s+(?:the\s+)?$/i.exec(s.slice(Math.max(0, dt.index - 14), dt.index));
    const after = WEEKDAY_AFTER_RE.exec(s.slice(dt.index + dt.text.length));
    const wd = before?.[1] ?? after?.[1];
    if (!wd || !WEEKDAYS.includes(wd.toLowerCase() as (typeof WEEKDAYS)[number])) continue;
    const { m, d } = dt.date;
    const y = dt.date.y ?? yearOf(m, d);
    const a = before ? dt.index - before[0].length : dt.index;
    const b = dt.index + dt.text.length + (after ? after[0].length : 0);
    mismatch(s.slice(a, b).trim(), wd, y, m, d, a, b);
  }
  for (const m of s.matchAll(WEEKDAY_DAY_RE)) {
    if (paired.some(([a, b]) => m.index < b && m.index + m[0].length > a)) continue;
    const d = +m[2]!;
    if (d < 1 || d > 31) continue;
    const ym = monthOfDay(d);
    mismatch(m[0], m[1]!, ym.y, ym.m, d, m.index, m.index + m[0].length);
  }
  // A weekday alone, of something past.
  if (FUTURE_RE.test(s)) return;
  for (const m of s.matchAll(WEEKDAY_RE)) {
    if (paired.some(([a, b]) => m.index < b && m.index + m[0].length > a)) continue;
    if (!/\b(?:on|from|last|since|this past|past)\s+$/i.test(s.slice(Math.max(0, m.index - 12), m.index))) continue;
    const name = m[1]!.toLowerCase();
    if (ev.customerLower.includes(name)) continue;
    const last = lastWeekday(name);
    if (ev.dates.some((e) => (e.y === undefined ? weekdayOf(yearOf(e.m, e.d), e.m, e.d) : weekdayOf(e.y, e.m, e.d)) === name) || ev.hasDate(last)) continue;
    const saidDay = WEEKDAYS.find((w) => ev.customerLower.includes(w));
    if (AS_SAID_RE.test(s) || saidDay)
      push('customer_fact', m[1]!, saidDay ? `the customer said ${saidDay[0]!.toUpperCase()}${saidDay.slice(1)}` : 'the customer never said this day');
    else push('weekday', m[1]!, 'no date in any tool result or customer message falls on this weekday');
  }
}
