/** Geometry of the Studies screen's band charts: a mean line per series and its 95% interval as a band. Pure. */
import { fixed } from '../../format';

export interface BandPoint {
  n: number;
  mean: number;
  ci: [number, number] | null;
}

export interface BandSeriesInput {
  name: string;
  points: readonly BandPoint[];
}

export interface BandGeometry {
  width: number;
  height: number;
  yTicks: { y: number; label: string }[];
  xTicks: { x: number; label: string }[];
  series: { name: string; line: string; band: string | null; dots: { x: number; y: number; title: string }[] }[];
  tau: { y: number; label: string } | null;
}

export function bandGeometry(series: readonly BandSeriesInput[], opts: { width: number; height: number; rate: boolean; tau?: number }): BandGeometry {
  const { width: W, height: H } = opts;
  const L = 48,
    R = 12,
    T = 12,
    B = 26;
  const n = Math.max(1, ...series.map((s) => s.points.length));
  const vals = series.flatMap((s) => s.points.flatMap((p) => (p.n ? [p.mean, ...(p.ci ?? [])] : [])));
  let lo = opts.rate ? 0 : Math.min(0, ...vals);
  let hi = opts.rate ? 1 : Math.max(1e-9, ...vals);
  if (!opts.rate) {
    // No spread (no finished seed yet, or every value equal): a unit around them, not five ticks that read the same.
    const pad = hi - lo > 1e-6 ? (hi - lo) * 0.08 : 0.5;
    lo -= pad;
    hi += pad;
  }
  const x = (i: number) => L + (n === 1 ? 0.5 : i / (n - 1)) * (W - L - R);
  const y = (v: number) => T + (1 - (Math.max(lo, Math.min(hi, v)) - lo) / (hi - lo)) * (H - T - B);
  const fmt = (v: number) => (opts.rate ? `${fixed(v * 100, 1)}%` : fixed(v, 3));
  return {
    width: W,
    height: H,
    yTicks: [0, 1, 2, 3, 4].map((k) => {
      const v = lo + ((hi - lo) * k) / 4;
      // Enough decimals that the five ticks read apart: 0.031 / 0.052 for densities, 30 / 35 for token counts.
      const digits = hi - lo >= 20 ? 0 : hi - lo >= 2 ? 1 : hi - lo >= 0.2 ? 2 : 3;
      return { y: y(v), label: opts.rate ? `${Math.round(v * 100)}%` : fixed(v, digits) };
    }),
    xTicks: Array.from({ length: n }, (_, i) => ({ x: x(i), label: `M${i + 1}` })),
    tau: opts.tau === undefined ? null : { y: y(opts.tau), label: `τ_DA = ${opts.tau.toFixed(2)}` },
    series: series.map((s) => {
      const pts = s.points.map((p, i) => ({ p, i })).filter(({ p }) => p.n > 0);
      const withCi = pts.filter(({ p }) => p.ci);
      const band =
        withCi.length > 1
          ? [...withCi.map(({ p, i }) => `${x(i)},${y(p.ci![1])}`), ...withCi.map(({ p, i }) => `${x(i)},${y(p.ci![0])}`).reverse()].join(' ')
          : null;
      return {
        name: s.name,
        line: pts.map(({ p, i }) => `${x(i)},${y(p.mean)}`).join(' '),
        band,
        dots: pts.map(({ p, i }) => ({
          x: x(i),
          y: y(p.mean),
          title: `${s.name} M${i + 1}: ${fmt(p.mean)}${p.ci ? ` [${fmt(p.ci[0])}, ${fmt(p.ci[1])}]` : ''} (n=${p.n})`,
        })),
      };
    }),
  };
}
