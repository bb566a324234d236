/**
 * Gym curves: reward mean ± std, KL to the reference, and loss, smoothed with the debiased
 * exponential moving average TensorBoard uses (0 = raw, 0.99 = very smooth).
 */
import type { MetricPoint } from '../../../../core/contract/contract';

export interface CurvePoint {
  step: number;
  value: number;
  /** The band (reward mean ± std), where there is one. */
  lo?: number;
  hi?: number;
}

export interface CurvePanel {
  key: string;
  title: string;
  points: CurvePoint[];
  /** The unsmoothed values, drawn faintly behind. */
  raw: MetricPoint[];
}

export const GYM_PANELS = [
  { key: 'gym/reward_mean', title: 'Reward mean ± std', band: 'gym/reward_std' },
  { key: 'gym/kl', title: 'KL to reference' },
  { key: 'gym/loss', title: 'Loss' },
] as const;

export function ema(values: readonly number[], smoothing: number): number[] {
  const w = Math.min(Math.max(smoothing, 0), 0.999);
  let last = 0;
  let weight = 0;
  return values.map((v) => {
    if (!Number.isFinite(v)) return v;
    last = last * w + (1 - w) * v;
    weight = weight * w + (1 - w);
    return last / weight;
  });
}

/**
 * Points drawn per curve at most. A panel is a few hundred pixels wide, so more points only cost
 * DOM and path work on every live update (a long run logs tens of thousands of gym steps).
 */
export const MAX_DRAWN_POINTS = 600;

/**
 * Indices of the points to draw when there are more than `max`: the first and last, and in each
 * of max/2 equal slices the lowest and the highest value (so spikes survive), in order.
 */
export function keepIndices(values: readonly number[], max: number): number[] {
  const n = values.length;
  if (n <= max) return Array.from({ length: n }, (_, i) => i);
  const buckets = Math.max(1, Math.floor((max - 2) / 2));
  const keep = new Set<number>([0, n - 1]);
  for (let b = 0; b < buckets; b++) {
    const from = 1 + Math.floor(((n - 2) * b) / buckets);
    const to = 1 + Math.floor(((n - 2) * (b + 1)) / buckets);
    let lo = from;
    let hi = from;
    for (let i = from; i < to; i++) {
      if (values[i]! < values[lo]!) lo = i;
      if (values[i]! > values[hi]!) hi = i;
    }
    if (from < to) keep.add(lo).add(hi);
  }
  return [...keep].sort((a, b) => a - b);
}

export function gymPanels(series: Record<string, readonly MetricPoint[]> | undefined, smoothing: number, maxPoints = MAX_DRAWN_POINTS): CurvePanel[] {
  return GYM_PANELS.map((p) => {
    const raw = [...(series?.[p.key] ?? [])].sort((a, b) => a.step - b.step);
    const smooth = ema(raw.map((r) => r.value), smoothing);
    let band: Map<number, number> | null = null;
    if ('band' in p) {
      const std = [...(series?.[p.band] ?? [])].sort((a, b) => a.step - b.step);
      const s = ema(std.map((r) => r.value), smoothing);
      band = new Map(std.map((r, i) => [r.step, s[i]!]));
    }
    const points = raw.map((r, i): CurvePoint => {
      const value = smooth[i]!;
      const sd = band?.get(r.step);
      return sd === undefined ? { step: r.step, value } : { step: r.step, value, lo: value - sd, hi: value + sd };
    });
    // Smoothing runs over every step; only drawing is thinned.
    const keep = keepIndices(raw.map((r) => r.value), maxPoints);
    if (keep.length === raw.length) return { key: p.key, title: p.title, points, raw };
    return { key: p.key, title: p.title, points: keep.map((i) => points[i]!), raw: keep.map((i) => raw[i]!) };
  });
}
