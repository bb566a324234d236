/**
 * Time-of-day claims ("after midnight", "by 5 pm", "at 14:30"): no banking tool gives a time of
 * day, so a time the agent states must be one the customer said or a result string holds.
 */
import { TIME_OF_DAY_RE, timeOf } from './calendar';
import { clausePrefix, CONDITION_RE, NEGATION_RE } from './text';
import { overlaps } from './sentence';
import type { Sentence } from './sentence';

export function checkTimesOfDay(x: Sentence): void {
  const { s, ev, push } = x;
  if (!/\d|midnight|noon|midday/i.test(s)) return;
  for (const m of s.matchAll(TIME_OF_DAY_RE)) {
    const t = timeOf(m);
    if (!t || ev.times.has(t)) continue;
    const a = m.index;
    const b = a + m[0].length;
    if (overlaps(x, a, b)) continue;
    // The words that carry the time ("after midnight", "by 5 pm"): not a condition.
    const lead = /\b(?:at|by|after|before|around|until|from|past)\s+$/i.exec(s.slice(Math.max(0, a - 8), a))?.[0] ?? '';
    const prefix = clausePrefix(s, a - lead.length);
    if (NEGATION_RE.test(prefix) || CONDITION_RE.test(prefix)) continue;
    push('time_of_day', `${lead}${m[0]}`, 'no tool result gives this time of day and the customer never said it');
  }
}
