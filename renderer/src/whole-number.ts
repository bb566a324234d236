/**
 * A whole number typed into a form, checked where it is typed: the value, or one sentence that
 * says why it is refused, naming the field — never a silent clamp ("0 episodes" quietly becoming
 * 1) or a greyed-out button with no reason.
 */
import { formatCount } from './format';

export type WholeNumber = { ok: true; value: number } | { ok: false; problem: string };

export function checkWholeNumber(text: string, field: string, range: { min: number; max: number; why?: string }): WholeNumber {
  const t = text.trim();
  const between = `a whole number from ${range.min} to ${formatCount(range.max)}`;
  if (t === '') return { ok: false, problem: `${field} is empty: give ${between}.` };
  const n = Number(t);
  if (!Number.isFinite(n)) return { ok: false, problem: `${field} must be ${between}; "${t}" is not a number.` };
  if (!Number.isInteger(n)) return { ok: false, problem: `${field} must be ${between}; ${t} is not whole.` };
  if (n < range.min) return { ok: false, problem: `${field} must be at least ${range.min}${range.why ? ` (${range.why})` : ''}; ${t} is too small.` };
  if (n > range.max) return { ok: false, problem: `${field} must be at most ${formatCount(range.max)}; ${t} is too large.` };
  return { ok: true, value: n };
}
