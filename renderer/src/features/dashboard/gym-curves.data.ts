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
  const out = new Array<number>(values.length);
  let last = 0;
  let weight = 0;
  for (let i = 0; i < values.length; i++) {
    const v = values[i]!;
    if (!Number.isFinite(v)) {
      out[i] = v;
      continue;
    }
    last = last * w + (1 - w) * v;
    weight = weight * w + (1 - w);
    out[i] = last / weight;
  }
  return out;
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

function valuesOf(points: readonly MetricPoint[]): number[] {
  const out = new Array<number>(points.length);
  for (let i = 0; i < points.length; i++) out[i] = points[i]!.value;
  return out;
}

/** `points` in step order: as they arrive (already ordered) without a copy, otherwise sorted. */
function byStep(points: readonly MetricPoint[]): readonly MetricPoint[] {
  for (let i = 1; i < points.length; i++) if (points[i]!.step < points[i - 1]!.step) return [...points].sort((a, b) => a.step - b.step);
  return points;
}

/**
 * The panels to draw. Runs on every live metrics event over the whole series (a long run logs
 * tens of thousands of steps per key), so it stays linear: no copy or sort of series that arrive
 * in order, the std band aligned by index where its steps match, and point objects built only for
 * the points drawn.
 */
export function gymPanels(series: Record<string, readonly MetricPoint[]> | undefined, smoothing: number, maxPoints = MAX_DRAWN_POINTS): CurvePanel[] {
  return GYM_PANELS.map((p) => {
    const raw = byStep(series?.[p.key] ?? []);
    const values = valuesOf(raw);
    const smooth = ema(values, smoothing);
    let sdAt: ((i: number) => number | undefined) | null = null;
    if ('band' in p) {
      const std = byStep(series?.[p.band] ?? []);
      const s = ema(valuesOf(std), smoothing);
      let aligned = std.length === raw.length;
      for (let i = 0; aligned && i < std.length; i++) aligned = std[i]!.step === raw[i]!.step;
      if (aligned) sdAt = (i) => s[i];
      else {
        const byStepSd = new Map(std.map((r, i) => [r.step, s[i]!]));
        sdAt = (i) => byStepSd.get(raw[i]!.step);
      }
    }
    const point = (i: number): CurvePoint => {
      const step = raw[i]!.step;
      const value = smooth[i]!;
      const sd = sdAt?.(i);
      return sd === undefined ? { step, value } : { step, value, lo: value - sd, hi: value + sd };
    };
    // Smoothing runs over every step; only drawing is thinned.
    const keep = keepIndices(values, maxPoints);
    return { key: p.key, title: p.title, points: keep.map(point), raw: keep.length === raw.length ? [...raw] : keep.map((i) => raw[i]!) };
  });
}
