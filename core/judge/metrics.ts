/**
 * Agreement metrics for judge reliability (RL-ADA §3.1, Table 1): binary precision / recall / F1,
 * Spearman's ρ on quality tiers, and confusion summaries.
 */
import { sampleRankCorrelation } from 'simple-statistics';

/** Counts of a binary classifier against labels. */
export interface BinaryConfusion {
  /** Labelled positive, predicted positive. */
  tp: number;
  /** Labelled negative, predicted positive. */
  fp: number;
  /** Labelled positive, predicted negative. */
  fn: number;
  /** Labelled negative, predicted negative. */
  tn: number;
}

export interface BinaryScores {
  precision: number;
  recall: number;
  f1: number;
}

function sameLength(a: readonly unknown[], b: readonly unknown[], what: string): void {
  if (a.length !== b.length) throw new Error(`${what}: labels and predictions differ in length (${a.length} vs ${b.length})`);
}

export function binaryConfusion(labels: readonly boolean[], predicted: readonly boolean[]): BinaryConfusion {
  sameLength(labels, predicted, 'binaryConfusion');
  const c: BinaryConfusion = { tp: 0, fp: 0, fn: 0, tn: 0 };
  for (let i = 0; i < labels.length; i++) {
    if (labels[i]) {
      if (predicted[i]) c.tp++;
      else c.fn++;
    } else if (predicted[i]) c.fp++;
    else c.tn++;
  }
  return c;
}

/**
 * Precision, recall and F1 of the positive class.
 *
 * Edge cases, so that a perfect classifier always scores 1: with no labelled positives recall is
 * 1 (nothing was missed); with no predicted positives precision is 1 (nothing false was claimed);
 * F1 = 2·tp / (2·tp + fp + fn), which is 1 when there are neither positives nor predicted
 * positives, and 0 when there are positives and none was found.
 */
export function binaryScores(c: BinaryConfusion): BinaryScores {
  const precision = c.tp + c.fp === 0 ? 1 : c.tp / (c.tp + c.fp);
  const recall = c.tp + c.fn === 0 ? 1 : c.tp / (c.tp + c.fn);
  const denom = 2 * c.tp + c.fp + c.fn;
  const f1 = denom === 0 ? 1 : (2 * c.tp) / denom;
  return { precision, recall, f1 };
}

/** Precision, recall and F1 of `predicted` against `labels` (positive = true). */
export function binaryF1(labels: readonly boolean[], predicted: readonly boolean[]): BinaryScores & { confusion: BinaryConfusion } {
  const confusion = binaryConfusion(labels, predicted);
  return { ...binaryScores(confusion), confusion };
}

/**
 * Spearman's rank correlation ρ: the Pearson correlation of the ranks, tied values sharing the
 * average of the ranks they span (simple-statistics ≥ 7.8 ranks ties this way, so the result does
 * not depend on the order of the pairs). NaN when it is undefined: fewer than two pairs, or one
 * side constant.
 */
export function spearman(x: readonly number[], y: readonly number[]): number {
  sameLength(x, y, 'spearman');
  if (x.length < 2) return Number.NaN;
  const constant = (v: readonly number[]) => v.every((a) => a === v[0]);
  if (constant(x) || constant(y)) return Number.NaN;
  return sampleRankCorrelation([...x], [...y]);
}

/** Multi-class confusion summary: counts[label][predicted], with overall accuracy. */
export interface ConfusionSummary<C extends string | number> {
  classes: C[];
  /** counts[i][j]: items labelled classes[i] and predicted classes[j]. */
  counts: number[][];
  n: number;
  accuracy: number;
  /** Share of items whose prediction is within one class of the label (for ordinal classes such as tiers). */
  withinOne: number;
}

export function confusionSummary<C extends string | number>(labels: readonly C[], predicted: readonly C[], classes?: readonly C[]): ConfusionSummary<C> {
  sameLength(labels, predicted, 'confusionSummary');
  const cls = classes ? [...classes] : [...new Set([...labels, ...predicted])].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const at = new Map(cls.map((c, i) => [c, i]));
  const counts = cls.map(() => cls.map(() => 0));
  let correct = 0;
  let near = 0;
  for (let k = 0; k < labels.length; k++) {
    const i = at.get(labels[k]!);
    const j = at.get(predicted[k]!);
    if (i === undefined || j === undefined)
      throw new Error(`confusionSummary: ${String(i === undefined ? labels[k] : predicted[k])} is not one of the classes`);
    counts[i]![j]!++;
    if (i === j) correct++;
    if (Math.abs(i - j) <= 1) near++;
  }
  const n = labels.length;
  return { classes: cls, counts, n, accuracy: n ? correct / n : Number.NaN, withinOne: n ? near / n : Number.NaN };
}

/** The confusion matrix as aligned text (rows: labels, columns: predictions), for CLI reports. */
export function formatConfusion<C extends string | number>(s: ConfusionSummary<C>): string {
  const w = Math.max(5, ...s.classes.map((c) => String(c).length), ...s.counts.flat().map((v) => String(v).length)) + 1;
  const pad = (v: unknown) => String(v).padStart(w);
  const head = `${'label\\pred'.padEnd(10)}${s.classes.map(pad).join('')}`;
  const rows = s.classes.map((c, i) => `${String(c).padEnd(10)}${s.counts[i]!.map(pad).join('')}`);
  return [head, ...rows].join('\n');
}
