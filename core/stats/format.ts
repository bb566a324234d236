/**
 * Numbers as tables print them. A value that rounds to zero prints without a sign: −0.001 is
 * "0.00", not "-0.00", which reads as a direction the figure does not have (an interval's end, a
 * paired difference). The renderer keeps its own copy (renderer/src/format.ts): it imports no
 * values from core/ but the contract.
 */
import type { MeanInterval } from './intervals';

/** `x.toFixed(digits)`, unsigned when it rounds to zero. */
export function fixed(x: number, digits: number): string {
  const s = x.toFixed(digits);
  return /^-0(\.0*)?$/.test(s) ? s.slice(1) : s;
}

/** A difference with its sign always written, the minus as U+2212: "+1.2", "−0.3", "+0.0". */
export function signedFixed(x: number, digits: number): string {
  const s = fixed(x, digits);
  return s.startsWith('-') ? `−${s.slice(1)}` : `+${s}`;
}

/**
 * A mean with its interval as tables print it: "90.0 [84.1, 95.9]"; below the values a t interval
 * needs (meanInterval gives none: core/stats/intervals.ts MIN_T_INTERVAL_N) the mean with a note
 * instead, "90.0 (n=2: too few for an interval)", never a bare figure that reads as certain; '–'
 * with no value. `f` formats one number (a rate in points, a reward).
 */
export function meanText(m: { n: number; mean: number; ci: readonly [number, number] | null }, f: (v: number) => string): string {
  if (!m.n) return '–';
  return m.ci ? `${f(m.mean)} [${f(m.ci[0])}, ${f(m.ci[1])}]` : `${f(m.mean)} (n=${m.n}: too few for an interval)`;
}

/** A mean with its interval as the reports' tables print it (meanText): a rate in percent, 1 decimal; else 2 decimals. */
export function fmt(m: MeanInterval, rate: boolean): string {
  if (!m.n) return '–';
  const f = (v: number) => (rate ? fixed(v * 100, 1) : fixed(v, 2));
  return meanText(m, f);
}
