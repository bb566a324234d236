/**
 * EAU's "measure, then keep or revert" for one applied write: a window of a series after the
 * write against the same window before it, with the noise floor shown.
 *
 * Noise floor: the 95% half-width of the difference of the two window means,
 * 1.96 · √(s²_before / n_before + s²_after / n_after) (Welch, sample variances). A write is marked
 * `kept` when its measure improved by more than that, `reverted` when it worsened by more (a
 * proposal to the person: the runner reverts nothing by itself), `inconclusive` otherwise, and
 * `too-early` until each window holds at least two points.
 */

export type EffectMark = 'kept' | 'reverted' | 'inconclusive' | 'too-early';

/** The series a write is measured on, and which way is better. */
export interface MeasureSpec {
  name: string;
  /** Points per window (gym steps, matches). */
  window: number;
  /** +1: higher is better (reward, W_DA); -1: lower is better; 0: no better way (a tactic measure, shown only). */
  better: 1 | -1 | 0;
}

export interface MeasuredEffect {
  measure: string;
  before: { n: number; mean: number | null };
  after: { n: number; mean: number | null };
  /** after − before. */
  delta: number | null;
  noiseFloor: number | null;
  mark: EffectMark;
}

function meanVar(xs: readonly number[]): { mean: number; variance: number } {
  const mean = xs.reduce((s, x) => s + x, 0) / xs.length;
  const variance = xs.length > 1 ? xs.reduce((s, x) => s + (x - mean) ** 2, 0) / (xs.length - 1) : 0;
  return { mean, variance };
}

/**
 * The effect on one series: `before` holds the points up to the write (oldest first), `after`
 * those from it on; the last / first `spec.window` of each are compared.
 */
export function measureEffect(spec: MeasureSpec, before: readonly number[], after: readonly number[]): MeasuredEffect {
  const b = before.slice(-spec.window);
  const a = after.slice(0, spec.window);
  const out = {
    measure: spec.name,
    before: { n: b.length, mean: b.length ? meanVar(b).mean : null },
    after: { n: a.length, mean: a.length ? meanVar(a).mean : null },
  };
  if (b.length < 2 || a.length < 2)
    return {
      ...out,
      delta: out.before.mean !== null && out.after.mean !== null ? out.after.mean - out.before.mean : null,
      noiseFloor: null,
      mark: 'too-early',
    };
  const mb = meanVar(b);
  const ma = meanVar(a);
  const delta = ma.mean - mb.mean;
  const noiseFloor = 1.96 * Math.sqrt(mb.variance / b.length + ma.variance / a.length);
  const signed = spec.better * delta;
  const mark: EffectMark = spec.better === 0 ? 'inconclusive' : signed > noiseFloor ? 'kept' : signed < -noiseFloor ? 'reverted' : 'inconclusive';
  return { ...out, delta, noiseFloor, mark };
}

/** The mark of a write from its measures: the first measure with a better way decides. */
export function overallMark(effects: readonly MeasuredEffect[], better: ReadonlyMap<string, number>): EffectMark {
  const decisive = effects.filter((e) => (better.get(e.measure) ?? 0) !== 0);
  if (decisive.length === 0 || decisive.every((e) => e.mark === 'too-early')) return 'too-early';
  const first = decisive.find((e) => e.mark !== 'too-early')!;
  return first.mark;
}
