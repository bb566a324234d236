/**
 * A study's seeds as a person writes them, read the same way by `sparring study --seeds` and the
 * app's Studies screen (through `studies/start` and `studies/seeds`): "3" → seeds 1, 2, 3;
 * "1,4,7" → those seeds; "11-20" (or "1-3,7") → the seeds of each range, ends included.
 */

/** Seeds text that cannot be read; the message starts with the name the caller gave the field. */
export class SeedsError extends Error {
  override name = 'SeedsError';
}

/** The most seeds one study may have (a count, or the span of one range). */
export const MAX_STUDY_SEEDS = 1000;

/** Parse seeds text; `name` is how the field is called where it was written ("--seeds", "Seeds"). */
export function parseSeedText(text: string, name = 'seeds'): number[] {
  const t = text.trim();
  if (/^\d+$/.test(t)) {
    const n = Number(t);
    if (n < 1 || n > MAX_STUDY_SEEDS) throw new SeedsError(`${name} must be 1..${MAX_STUDY_SEEDS} or a list of seeds, got "${text}"`);
    return Array.from({ length: n }, (_, i) => i + 1);
  }
  const seeds = t.split(',').map((s) => s.trim());
  const range = /^(\d+)-(\d+)$/;
  if (!seeds.every((s) => /^-?\d+$/.test(s) || range.test(s)))
    throw new SeedsError(`${name} must be a count (10), a list of integer seeds (1,2,5) or ranges (11-20), got "${text}"`);
  const out = seeds.flatMap((s) => {
    const m = range.exec(s);
    if (!m) return [Number(s)];
    const [a, b] = [Number(m[1]), Number(m[2])];
    if (b < a || b - a >= MAX_STUDY_SEEDS) throw new SeedsError(`${name}: the range "${s}" must run upwards over at most ${MAX_STUDY_SEEDS} seeds`);
    return Array.from({ length: b - a + 1 }, (_, i) => a + i);
  });
  if (new Set(out).size !== out.length) throw new SeedsError(`${name} lists a seed twice: "${text}"`);
  if (out.length > MAX_STUDY_SEEDS) throw new SeedsError(`${name} names ${out.length} seeds; a study has at most ${MAX_STUDY_SEEDS}`);
  return out;
}
