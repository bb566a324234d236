/**
 * Timeline claims: wait times must be a transfer_to_human result's, and process promises
 * (timelines, notifications: "within 10 business days", "you'll get an email") need a tool result
 * that makes them.
 */
import type { Evidence } from './evidence';
import { clausePrefix, CONDITION_RE, NEGATION_RE } from './text';
import { overlaps } from './sentence';
import type { Sentence } from './sentence';

export function checkWaitTimes(x: Sentence): void {
  const { s, ev, push } = x;
  if (/\bmin/i.test(s) && /\b(?:wait|hold|queue|specialist|agent|connect|team|someone|colleague|pick up)\b/i.test(s)) {
    for (const m of s.matchAll(/\b(\d+)\s*(?:-|to|–)?\s*(?:\d+\s*)?(?:minutes?|mins?)\b/gi)) {
      const minutes = +m[1]!;
      const ok = ev.okData('transfer_to_human').some((d) => d.wait_minutes === minutes) || ev.customerNumbers.has(minutes * 100);
      if (!ok) push('wait_time', m[0], 'no transfer_to_human result has this wait time');
    }
  }
}

/** Process promises no tool makes: timelines and notifications ("within 10 business days", "you'll get an email"). */
export const PROCESS_RES: RegExp[] = [
  /\b(?:within|in|takes?|take|up to|over the next)\s+(?:about\s+|around\s+|roughly\s+|approximately\s+|the next\s+)?(?:\d+|one|two|three|four|five|six|seven|eight|nine|ten|a few|a couple of)(?:\s*(?:-|to|–|or)\s*(?:\d+|one|two|three|four|five|six|seven|eight|nine|ten))?\s+(?:business\s+|working\s+|calendar\s+)?(?:days?|weeks?|hours?|months?)\b/gi,
  /\b(?:you(?:'ll| will)|we(?:'ll| will)|they(?:'ll| will)|it(?:'ll| will))\s+(?:\w+\s+){0,2}?(?:get|receive|be sent|see|hear back|hear from us|arrive|be contacted|be notified)\b(?:\s+(?:\w+\s+){0,3}?(?:email|e-mail|text|sms|letter|notification|confirmation|call(?:\s+back)?|in the mail))?/gi,
  /\b(?:we|I|they|someone|the team)(?:'ll| will)\s+(?:\w+\s+)?(?:email|e-mail|text|call you back|send you|notify you|mail you|write to you|be in touch)\b/gi,
];
/** Phrases inside PROCESS_RES matches that a tool does back: provisional credit (dispute_charge), a specialist's wait (transfer_to_human). */
export const PROCESS_SUPPORTED: { re: RegExp; ok: (ev: Evidence) => boolean }[] = [
  { re: /provisional|credit/i, ok: (ev) => ev.okData('dispute_charge').some((d) => d.provisional_credit === true) },
  { re: /\b(?:specialist|agent|team|someone|colleague|representative)\b/i, ok: (ev) => ev.okData('transfer_to_human').length > 0 },
];

/**
 * Hedges that make a timeline a possibility rather than a promise. "Should" is not one: "you
 * should see the refund within two to three business days" promises a timeline as much as "will".
 */
export const TIMELINE_HEDGE_RE = /\b(?:may|might|could|can|would|possibly|eligible)\b/i;

/** A future point in time ("tomorrow morning", "this afternoon", "on Friday", "by the end of the week"). */
export const FUTURE_TIME_RE =
  /\b(?:tomorrow(?:\s+(?:morning|afternoon|evening|night))?|later today|(?:by|before) (?:the )?end of (?:the )?(?:day|week|month)|this (?:afternoon|evening)|tonight|overnight|next (?:week|month|business day|working day)|(?:on|by|this|next|before) (?:Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday))\b/gi;
/** A sentence about the future: something will happen, arrive, be available, go through, be scheduled. */
const FUTURE_RE = /\b(?:will|'ll|should|going to|scheduled|expect|available|arrive|go through|be back|land|post|clear|call you|reach you|hear)\b/i;

export function checkProcessPromises(x: Sentence): void {
  const { s, ev, push, seen } = x;
  for (const re of PROCESS_RES) {
    re.lastIndex = 0;
    for (let m = re.exec(s); m; m = re.exec(s)) {
      const a = m.index;
      const b = a + m[0].length;
      if (overlaps(x, a, b)) continue;
      const prefix = clausePrefix(s, b);
      if (NEGATION_RE.test(prefix) || CONDITION_RE.test(prefix) || TIMELINE_HEDGE_RE.test(prefix)) continue;
      const phrase = m[0];
      if (
        !/\d|\b(?:one|two|three|four|five|six|seven|eight|nine|ten|few|couple)\b|email|e-mail|text|sms|letter|notif|confirmation|call|mail|hear|be in touch|contacted/i.test(
          phrase,
        )
      )
        continue;
      const rest = s.slice(a, Math.min(s.length, b + 40));
      if (PROCESS_SUPPORTED.some((p) => p.re.test(rest) && p.ok(ev))) continue;
      if (ev.customerLower.includes(phrase.toLowerCase())) continue;
      seen.push([a, b]);
      push('process', phrase, 'a timeline or notification that no tool result promises');
    }
  }
}

/**
 * Future points in time no tool result gives ("available from tomorrow morning", "they'll call
 * you back this afternoon", "it will go through on Friday"): tools act at once, and the only
 * future a result states is a specialist's wait.
 */
export function checkFutureTimes(x: Sentence): void {
  const { s, ev, push, seen } = x;
  if (!FUTURE_RE.test(s)) return;
  for (const m of s.matchAll(FUTURE_TIME_RE)) {
    const a = m.index;
    const b = a + m[0].length;
    if (overlaps(x, a, b)) continue;
    const prefix = clausePrefix(s, b);
    if (NEGATION_RE.test(prefix) || CONDITION_RE.test(prefix) || TIMELINE_HEDGE_RE.test(prefix)) continue;
    if (ev.customerLower.includes(m[0].toLowerCase())) continue;
    seen.push([a, b]);
    push('process', m[0], 'a future time that no tool result gives');
  }
}
