/**
 * Intervals over seeds for studies (seeds × arms): the mean of a measure with its 95% Student-t
 * interval, the paired difference of two arms on the same seeds (the t interval of the per-seed
 * differences: Student 1908, the sleep data of Cushny & Peebles), and Wilson's interval for a
 * proportion measured on a single run's episodes. Pure: no I/O, no randomness.
 */
import { mean, sampleStandardDeviation } from 'simple-statistics';
import { wilsonInterval } from '../arena/evaluate';

export { wilsonInterval };

/**
 * The fewest values a t interval is given for. With two (1 degree of freedom) the 95% t multiplier
 * is 12.71, so a 2-seed mean of rates at 90% with a 7-point spread printed "90.0 [5.3, 174.7]":
 * an interval wider than the rate's whole range says nothing. Below this the mean stands alone and
 * the tables say "too few for an interval" (core/stats/format.ts meanText). With three, 4.30.
 */
export const MIN_T_INTERVAL_N = 3;

/** A mean over n values with its two-sided confidence interval (null below MIN_T_INTERVAL_N values). */
export interface MeanInterval {
  n: number;
  mean: number;
  /** Sample standard deviation (n − 1). 0 for a single value. */
  sd: number;
  /** [low, high]; null when n < MIN_T_INTERVAL_N (too few values for a t interval that says anything). */
  ci: [number, number] | null;
  /** Student's t of mean / (sd/√n) against 0; null when n < 2 or sd = 0 (undefined). */
  t: number | null;
  df: number;
}

/** A paired comparison: the mean interval of the per-seed differences a − b. */
export interface PairedDifference extends MeanInterval {
  /** The seeds both arms have, in order: the differences were taken on these. */
  seeds: number[];
}

// ----------------------------------------------------------------- Student's t distribution

/** ln Γ(x), Lanczos (g = 7, n = 9): ~15 significant digits for x > 0. */
function logGamma(x: number): number {
  const c = [
    0.99999999999980993, 676.5203681218851, -1259.1392167224028, 771.32342877765313, -176.61502916214059, 12.507343278686905, -0.13857109526572012,
    9.9843695780195716e-6, 1.5056327351493116e-7,
  ];
  if (x < 0.5) return Math.log(Math.PI / Math.sin(Math.PI * x)) - logGamma(1 - x);
  x -= 1;
  let a = c[0]!;
  const t = x + 7.5;
  for (let i = 1; i < 9; i++) a += c[i]! / (x + i);
  return 0.5 * Math.log(2 * Math.PI) + (x + 0.5) * Math.log(t) - t + Math.log(a);
}

/** Continued fraction of the regularised incomplete beta (Numerical Recipes' betacf, modified Lentz). */
function betaContinuedFraction(a: number, b: number, x: number): number {
  const tiny = 1e-300;
  let c = 1;
  let d = 1 - ((a + b) * x) / (a + 1);
  if (Math.abs(d) < tiny) d = tiny;
  d = 1 / d;
  let h = d;
  for (let m = 1; m <= 300; m++) {
    const m2 = 2 * m;
    let aa = (m * (b - m) * x) / ((a + m2 - 1) * (a + m2));
    d = 1 + aa * d;
    if (Math.abs(d) < tiny) d = tiny;
    c = 1 + aa / c;
    if (Math.abs(c) < tiny) c = tiny;
    d = 1 / d;
    h *= d * c;
    aa = (-(a + m) * (a + b + m) * x) / ((a + m2) * (a + m2 + 1));
    d = 1 + aa * d;
    if (Math.abs(d) < tiny) d = tiny;
    c = 1 + aa / c;
    if (Math.abs(c) < tiny) c = tiny;
    d = 1 / d;
    const del = d * c;
    h *= del;
    if (Math.abs(del - 1) < 1e-15) break;
  }
  return h;
}

/** I_x(a, b), the regularised incomplete beta function. */
function incompleteBeta(x: number, a: number, b: number): number {
  if (x <= 0) return 0;
  if (x >= 1) return 1;
  const front = Math.exp(logGamma(a + b) - logGamma(a) - logGamma(b) + a * Math.log(x) + b * Math.log(1 - x));
  return x < (a + 1) / (a + b + 2) ? (front * betaContinuedFraction(a, b, x)) / a : 1 - (front * betaContinuedFraction(b, a, 1 - x)) / b;
}

/** P(T ≤ t) for Student's t with `df` degrees of freedom. */
export function studentTCdf(t: number, df: number): number {
  if (!(df > 0)) throw new Error(`studentTCdf: df must be > 0, got ${df}`);
  const tail = 0.5 * incompleteBeta(df / (df + t * t), df / 2, 0.5);
  return t >= 0 ? 1 - tail : tail;
}

/** The p-quantile of Student's t with `df` degrees of freedom (bisection on the CDF, |error| < 1e-10). */
export function studentTQuantile(p: number, df: number): number {
  if (!(p > 0 && p < 1)) throw new Error(`studentTQuantile: p must be in (0, 1), got ${p}`);
  if (p === 0.5) return 0;
  if (p < 0.5) return -studentTQuantile(1 - p, df);
  let lo = 0;
  let hi = 1;
  while (studentTCdf(hi, df) < p) hi *= 2;
  for (let i = 0; i < 200 && hi - lo > 1e-12; i++) {
    const mid = (lo + hi) / 2;
    if (studentTCdf(mid, df) < p) lo = mid;
    else hi = mid;
  }
  return (lo + hi) / 2;
}

// ------------------------------------------------------------------------------ intervals

/**
 * Mean of `values` with its two-sided `level` Student-t interval (default 95%). `bounds`: the range
 * the quantity cannot leave (a rate: [0, 1]); the interval is cut to it, which loses no coverage
 * (the true mean lies inside the range), where the t-interval of a few seeds near 100% would
 * otherwise print an upper end above 100%.
 */
export function meanInterval(values: readonly number[], level = 0.95, bounds?: readonly [number, number]): MeanInterval {
  const xs = values.filter((v) => Number.isFinite(v));
  const n = xs.length;
  if (n === 0) return { n: 0, mean: Number.NaN, sd: 0, ci: null, t: null, df: 0 };
  const m = mean(xs);
  if (n === 1) return { n, mean: m, sd: 0, ci: null, t: null, df: 0 };
  const sd = sampleStandardDeviation(xs);
  const se = sd / Math.sqrt(n);
  if (n < MIN_T_INTERVAL_N) return { n, mean: m, sd, ci: null, t: sd > 0 ? m / se : null, df: n - 1 };
  const q = studentTQuantile(1 - (1 - level) / 2, n - 1);
  const [lo, hi] = bounds ?? [-Infinity, Infinity];
  return { n, mean: m, sd, ci: [Math.max(lo, m - q * se), Math.min(hi, m + q * se)], t: sd > 0 ? m / se : null, df: n - 1 };
}

/**
 * Paired difference a − b over the seeds both have (a seed missing or non-finite in either arm
 * is left out): the arms ran on the same seeds, so seed-to-seed variation cancels.
 */
export function pairedDifference(
  a: ReadonlyMap<number, number>,
  b: ReadonlyMap<number, number>,
  level = 0.95,
  bounds?: readonly [number, number],
): PairedDifference {
  const seeds = [...a.keys()].filter((s) => b.has(s) && Number.isFinite(a.get(s)) && Number.isFinite(b.get(s))).sort((x, y) => x - y);
  return {
    ...meanInterval(
      seeds.map((s) => a.get(s)! - b.get(s)!),
      level,
      bounds,
    ),
    seeds,
  };
}
