/**
 * Bounds on the texts a lab stores from people and files (issue 51): a scenario id of 100,000
 * characters or a 20 MB description was stored, and every list then printed it. Each is refused
 * naming the field and the bound, before anything is written.
 */

/** The longest text of each kind, in characters. */
export const TEXT_BOUNDS = {
  /** Ids and names (scenario ids, queue and label names). */
  id: 100,
  /** One line a person writes: a knob write's reason, a label's note, a checkpoint's note. */
  note: 2_000,
  /** A text field of a scenario (description, a customer line, a fallback). */
  text: 4_000,
} as const;

/** A text longer than its bound (`field`: what the caller calls it). */
export class TextTooLongError extends Error {
  override name = 'TextTooLongError';
}

/** "FIELD: at most N characters, got M", or null when `value` fits. */
export function textTooLong(field: string, value: unknown, max: number): string | null {
  return typeof value === 'string' && value.length > max ? `${field}: at most ${max} characters, got ${value.length}` : null;
}

/** Throw TextTooLongError when `value` is a string longer than `max`. */
export function checkText(field: string, value: unknown, max: number): void {
  const why = textTooLong(field, value, max);
  if (why) throw new TextTooLongError(why);
}

/**
 * Every string in a JSON-like value longer than its bound, with its dotted path (`id` paths get
 * TEXT_BOUNDS.id, every other string TEXT_BOUNDS.text), at most `limit` of them.
 */
export function longTexts(value: unknown, at: readonly string[] = [], out: { field: string; message: string }[] = [], limit = 10) {
  if (out.length >= limit) return out;
  if (typeof value === 'string') {
    const field = at.join('.');
    const max = at.at(-1) === 'id' ? TEXT_BOUNDS.id : TEXT_BOUNDS.text;
    if (value.length > max) out.push({ field, message: `at most ${max} characters, got ${value.length}` });
  } else if (Array.isArray(value)) value.forEach((v, i) => longTexts(v, [...at, String(i)], out, limit));
  else if (value && typeof value === 'object') for (const [k, v] of Object.entries(value)) longTexts(v, [...at, k], out, limit);
  return out;
}
