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

export function gymPanels(series: Record<string, readonly MetricPoint[]> | undefined, smoothing: number): CurvePanel[] {
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
    return { key: p.key, title: p.title, points, raw };
  });
}
