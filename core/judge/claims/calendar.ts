/**
 * The world's calendar, for claims about days and times: today in the world (WORLD_TODAY,
 * 2026-03-16, a Monday), the weekday of a date, dates the customer gives in relative words
 * ("last Thursday", "yesterday"), and times of day in any text.
 */
import { WORLD_TODAY } from '../../world/backend';
import { WEEKDAYS } from '../../world/calendar-words';
import type { DateClaim } from './text';

const TODAY = { y: +WORLD_TODAY.slice(0, 4), m: +WORLD_TODAY.slice(5, 7), d: +WORLD_TODAY.slice(8, 10) };
const utc = (y: number, m: number, d: number) => new Date(Date.UTC(y, m - 1, d));
const claimOf = (t: Date): DateClaim => ({ y: t.getUTCFullYear(), m: t.getUTCMonth() + 1, d: t.getUTCDate() });

/** 0 = Sunday … 6 = Saturday (WEEKDAYS is Monday-first: index (day + 6) % 7). */
export function weekdayOf(y: number, m: number, d: number): string {
  return WEEKDAYS[(utc(y, m, d).getUTCDay() + 6) % 7]!;
}

/** The year of a date given without one: the world's, or the one before when the date would be in the future. */
export function yearOf(m: number, d: number): number {
  return m > TODAY.m || (m === TODAY.m && d > TODAY.d) ? TODAY.y - 1 : TODAY.y;
}

/** The month of a day given alone ("the 12th"): this month, or the one before when the day has not come yet. */
export function monthOfDay(d: number): { y: number; m: number } {
  if (d <= TODAY.d) return { y: TODAY.y, m: TODAY.m };
  return TODAY.m === 1 ? { y: TODAY.y - 1, m: 12 } : { y: TODAY.y, m: TODAY.m - 1 };
}

/** The most recent past day (before today) that falls on a weekday. */
export function lastWeekday(name: string): DateClaim {
  const want = WEEKDAYS.indexOf(name.toLowerCase() as (typeof WEEKDAYS)[number]);
  const t = utc(TODAY.y, TODAY.m, TODAY.d);
  do t.setUTCDate(t.getUTCDate() - 1);
  while ((t.getUTCDay() + 6) % 7 !== want);
  return claimOf(t);
}

const AGO_NUMBERS: Record<string, number> = { a: 1, an: 1, one: 1, two: 2, three: 3, four: 4, five: 5, six: 6 };
const WEEKDAY_ALT = WEEKDAYS.join('|');
const RELATIVE_WEEKDAY_RE = new RegExp(`\\b(?:last|on|this past|past|from|since)\\s+(${WEEKDAY_ALT})\\b`, 'gi');
/** Days a customer names relative to today: "last Thursday", "on Saturday", "yesterday", "today", "two weeks ago". */
export function relativeDates(text: string): DateClaim[] {
  const out: DateClaim[] = [];
  for (const m of text.matchAll(RELATIVE_WEEKDAY_RE)) out.push(lastWeekday(m[1]!));
  if (/\byesterday\b/i.test(text)) {
    const t = utc(TODAY.y, TODAY.m, TODAY.d - 1);
    out.push(claimOf(t));
  }
  if (/\btoday\b/i.test(text)) out.push({ ...TODAY });
  for (const m of text.matchAll(/\b(a|an|one|two|three|four|five|six|\d{1,2})\s+(days?|weeks?)\s+ago\b/gi)) {
    const n = AGO_NUMBERS[m[1]!.toLowerCase()] ?? +m[1]!;
    out.push(claimOf(utc(TODAY.y, TODAY.m, TODAY.d - n * (/week/i.test(m[2]!) ? 7 : 1))));
  }
  return out;
}

/** A time of day: "3pm", "3:30 p.m.", "15:30", "midnight", "noon". Group 1 hour, 2 minutes, 3 am/pm; group 4 a named time. */
export const TIME_OF_DAY_RE = /\b(\d{1,2})(?::(\d{2}))?\s*([ap]\.?m\b\.?)|\b(\d{1,2}):(\d{2})\b(?!:?\d)|\b(midnight|noon|midday)\b/gi;

/** Every time of day in a text, as "HH:MM". */
export function timesIn(text: string): string[] {
  const out: string[] = [];
  if (!/\d|midnight|noon|midday/i.test(text)) return out;
  for (const m of text.matchAll(TIME_OF_DAY_RE)) {
    const t = timeOf(m);
    if (t) out.push(t);
  }
  return out;
}

/**
 * Times a customer gives loosely ("around 9 last night", "at 7:15"): an hour without am/pm, read
 * both ways.
 */
export function looseTimesIn(text: string): string[] {
  const out = timesIn(text);
  const pad = (n: number) => String(n).padStart(2, '0');
  for (const m of text.matchAll(
    /\b(?:at|around|about|by|after|before|until|near|roughly)\s+(\d{1,2})(?::(\d{2}))?\b(?!\s*(?:[ap]\.?m|%|dollars|bucks|\.\d|,\d|\/|-))/gi,
  )) {
    const h = +m[1]!;
    const min = m[2] ? +m[2] : 0;
    if (h < 1 || h > 12 || min > 59) continue;
    out.push(`${pad(h % 12)}:${pad(min)}`, `${pad((h % 12) + 12)}:${pad(min)}`);
  }
  return out;
}

export function timeOf(m: RegExpMatchArray): string | null {
  const pad = (n: number) => String(n).padStart(2, '0');
  if (m[6]) return m[6].toLowerCase() === 'midnight' ? '00:00' : '12:00';
  if (m[4]) {
    const h = +m[4];
    const min = +m[5]!;
    return h < 24 && min < 60 ? `${pad(h)}:${pad(min)}` : null;
  }
  let h = +m[1]!;
  const min = m[2] ? +m[2] : 0;
  if (h < 1 || h > 12 || min > 59) return null;
  const pm = m[3]!.toLowerCase().startsWith('p');
  if (pm && h < 12) h += 12;
  if (!pm && h === 12) h = 0;
  return `${pad(h)}:${pad(min)}`;
}
