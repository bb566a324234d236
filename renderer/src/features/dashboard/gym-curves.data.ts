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

/** One training phase of one agent (a gym, DA0's warm-up, CA0's reward pressure): smoothed on its own. */
export interface CurveSegment {
  /** The phase as logged: 'bootstrap:DA0-grpo', 'bootstrap:CA0', 'gym:DA1', … ('' when the engine did not say). */
  phase: string;
  /** In words: "DA warm-up", "CA pressure", "gym 2 → DA1". */
  label: string;
  points: CurvePoint[];
  /** The unsmoothed values, drawn faintly behind. */
  raw: MetricPoint[];
}

export type Agent = 'DA' | 'CA';

export interface CurvePanel {
  /** `${agent}:${metric}`. */
  key: string;
  agent: Agent | null;
  title: string;
  /** The y axis's title, with its unit. */
  yTitle: string;
  /** The x axis's title: the agent's own GRPO steps (xTitle). */
  xTitle: string;
  segments: CurveSegment[];
}

export const GYM_PANELS = [
  { key: 'gym/reward_mean', title: 'Reward mean ± std', band: 'gym/reward_std' },
  { key: 'gym/kl', title: 'KL to reference' },
  { key: 'gym/loss', title: 'Loss' },
] as const;

/**
 * The x axis's title of an agent's panels: each agent counts its own GRPO updates, its phases
 * (warm-up or pressure, then its gyms) laid end to end in run order. On the run's shared step
 * count a DA gym of 60 steps after 800 steps of the CA's sat in the last 7% of a 0–860 axis.
 */
export function xTitle(agent: Agent | null): string {
  return agent ? `${agent} GRPO update (the ${agent}'s own steps)` : 'GRPO update (step in the run)';
}

function yTitle(key: (typeof GYM_PANELS)[number]['key'], agent: Agent | null): string {
  if (key === 'gym/reward_mean') return agent === 'CA' ? 'r_CA per episode' : agent === 'DA' ? 'r_DA per episode' : 'reward per episode';
  if (key === 'gym/kl') return 'KL (nats per token)';
  return 'loss (per completion)';
}

/** The agent a phase trains: 'gym:CA2' → CA, 'bootstrap:DA0-grpo' → DA; null when unknown. */
export function agentOf(phase: string): Agent | null {
  const m = /^(?:gym|bootstrap):(DA|CA)/.exec(phase);
  return m ? (m[1] as Agent) : null;
}

/**
 * A phase in words. Gyms are numbered in the order they ran in the run (both agents counted),
 * as the dashboard's phase timeline counts them.
 */
export function phaseLabel(phase: string, gymNumber: number): string {
  if (phase === 'bootstrap:DA0-grpo') return 'DA warm-up';
  if (phase === 'bootstrap:DA0-sft') return 'DA supervised';
  if (phase === 'bootstrap:CA0') return 'CA pressure';
  const gym = /^gym:((?:DA|CA)\d+)$/.exec(phase);
  if (gym) return `gym ${gymNumber} → ${gym[1]}`;
  return phase || 'all steps';
}

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

/** Consecutive runs of one phase in a step-ordered series: [from, to) index ranges. */
function runsOf(points: readonly MetricPoint[]): { phase: string; from: number; to: number }[] {
  const out: { phase: string; from: number; to: number }[] = [];
  for (let i = 0; i < points.length; i++) {
    const phase = points[i]!.phase ?? '';
    const last = out.at(-1);
    if (last && last.phase === phase) last.to = i + 1;
    else out.push({ phase, from: i, to: i + 1 });
  }
  return out;
}

/**
 * The panels to draw: a row of panels (reward, KL, loss) per agent, DA first, each made of its
 * phases' segments, each segment smoothed on its own so a curve never runs across a join (a DA
 * gym's r_DA ≈ 6 next to a CA gym's r_CA ≈ 0 is two agents, not a collapse). Runs on every live
 * metrics event over the whole series (a long run logs tens of thousands of steps per key), so
 * it stays linear: no copy or sort of series that arrive in order, the std band aligned by index
 * where its steps match, and point objects built only for the points drawn.
 */
export function gymPanels(series: Record<string, readonly MetricPoint[]> | undefined, smoothing: number, maxPoints = MAX_DRAWN_POINTS): CurvePanel[] {
  // Gym numbers in the order the phases first appear (any key: they share the phases).
  const gymNumbers = new Map<string, number>();
  for (const p of GYM_PANELS)
    for (const r of runsOf(byStep(series?.[p.key] ?? [])))
      if (r.phase.startsWith('gym:') && !gymNumbers.has(r.phase)) gymNumbers.set(r.phase, gymNumbers.size + 1);
  const perMetric = GYM_PANELS.map((p) => {
    const raw = byStep(series?.[p.key] ?? []);
    let sdOf: ((i: number) => number | undefined) | null = null;
    if ('band' in p) {
      const std = byStep(series?.[p.band] ?? []);
      let aligned = std.length === raw.length;
      for (let i = 0; aligned && i < std.length; i++) aligned = std[i]!.step === raw[i]!.step;
      const byStepSd = aligned ? null : new Map(std.map((r) => [r.step, r.value]));
      sdOf = (i) => (aligned ? std[i]?.value : byStepSd!.get(raw[i]!.step));
    }
    const segments = runsOf(raw).map(({ phase, from, to }) => {
      const slice = raw.slice(from, to);
      const values = valuesOf(slice);
      const smooth = ema(values, smoothing);
      // The std is smoothed like the mean, within the segment only.
      const sds = sdOf ? slice.map((_, k) => sdOf(from + k)) : null;
      const sdSmooth = sds ? emaSparse(sds, smoothing) : null;
      const point = (k: number): CurvePoint => {
        const sd = sdSmooth?.[k];
        const value = smooth[k]!;
        return sd === undefined ? { step: slice[k]!.step, value } : { step: slice[k]!.step, value, lo: value - sd, hi: value + sd };
      };
      // Smoothing runs over every step; only drawing is thinned, the budget shared by length.
      const keep = keepIndices(values, Math.max(4, Math.floor((maxPoints * slice.length) / Math.max(1, raw.length))));
      return {
        agent: agentOf(phase),
        segment: {
          phase,
          label: phaseLabel(phase, gymNumbers.get(phase) ?? 0),
          points: keep.map(point),
          raw: keep.length === slice.length ? slice : keep.map((k) => slice[k]!),
        },
      };
    });
    return { p, segments };
  });
  // Each agent on its own step axis: its segments laid end to end from 0, in run order, gaps
  // within a segment kept (the other agent's phases between them take no room).
  for (const m of perMetric) {
    const next = new Map<Agent | null, number>();
    for (const s of m.segments) {
      const first = s.segment.raw[0]?.step;
      if (first === undefined) continue;
      // An agent's axis starts at 0; steps of no known agent keep their numbers.
      const offset = next.get(s.agent) ?? (s.agent ? 0 : first);
      const shift = offset - first;
      if (shift !== 0) {
        s.segment.points = s.segment.points.map((q) => ({ ...q, step: q.step + shift }));
        s.segment.raw = s.segment.raw.map((r) => ({ ...r, step: r.step + shift }));
      }
      next.set(s.agent, s.segment.raw.at(-1)!.step + 1);
    }
  }
  const agents = new Set(perMetric.flatMap((m) => m.segments.map((s) => s.agent)));
  const rows: (Agent | null)[] = agents.size === 0 ? ['DA'] : (['DA', 'CA', null] as const).filter((a) => agents.has(a));
  return rows.flatMap((agent) =>
    perMetric.map(({ p, segments }) => ({
      key: `${agent ?? 'all'}:${p.key}`,
      agent,
      title: `${agent ? `${agent} · ` : ''}${p.title}`,
      yTitle: yTitle(p.key, agent),
      xTitle: xTitle(agent),
      segments: segments.filter((s) => s.agent === agent).map((s) => s.segment),
    })),
  );
}

/** The EMA of a series with gaps (undefined: no value there), the gaps kept. */
function emaSparse(values: readonly (number | undefined)[], smoothing: number): (number | undefined)[] {
  const present = values.filter((v): v is number => v !== undefined);
  const smooth = ema(present, smoothing);
  let j = 0;
  return values.map((v) => (v === undefined ? undefined : smooth[j++]));
}
