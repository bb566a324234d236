/** Date claims: every date the agent states must be in a tool result or the customer's words. */
import { findDates } from './text';
import type { Sentence } from './sentence';

export function checkDates(x: Sentence): void {
  const { s, ev, push } = x;
  for (const d of findDates(s)) {
    if (!ev.hasDate(d.date)) push('date', d.text, 'no tool result or customer message has this date');
  }
}
