/**
 * One ONNX graph per training step: loss → gradients → global-norm clipping → AdamW.
 *
 * Weights and optimiser state live outside the graph, so the caller owns checkpoints and can swap
 * weights freely. Every hyperparameter is an input, so learning-rate schedules and knob changes
 * made while a run is going (EAU) need no rebuild.
 *
 * By default (`optimiser: 'runner'`) the graph computes the gradients and the step's AdamW
 * scalars, and the runner applies AdamW to the weights it holds (models/resident-table.ts), in
 * the float32 operations and order of the graph's own update below, so with the same bits:
 *
 * Inputs:  <param> (float32), adam.step (float32 [], steps taken so far), the batch inputs, and
 *          the float32 scalars hp.lr, hp.beta1, hp.beta2, hp.eps, hp.weight_decay, hp.max_grad_norm.
 * Outputs: loss [], grad_norm [] (global L2 norm before clipping), next.adam.step,
 *          grad.<param> (before clipping), adam.scalars (float32 [7], TABLE_SCALARS), plus the
 *          loss function's extra outputs.
 *
 * A table read only through `gatherRows` with ids from a batch input (a hashed-feature
 * embedding) is row-fed: its input <param> holds just the batch's U rows, [U, ...], and
 * grad.<param> their gradient. A step then moves U rows through onnxruntime rather than the
 * whole table, and rows without moments (never in a batch) cost nothing. Every other parameter
 * goes in whole. Updated in the graph, each parameter cost a dozen elementwise nodes, its
 * moments as inputs and three fresh output arrays a step; most of a small network's nodes.
 *
 * With `optimiser: 'graph'` (the reference the runner's update is tested against) the graph
 * updates every parameter itself, whole tables included (a scatter into the decayed moments for
 * a gatherRows table):
 *
 * Inputs:  as above, plus adam.m.<param>, adam.v.<param> (param shape).
 * Outputs: loss, grad_norm, next.<param>, next.adam.m.<param>, next.adam.v.<param>,
 *          next.adam.step, plus the extra outputs.
 */
import { rowSparseGradients } from './grad';
import { Graph, Tensor } from './graph';
import type { Dim, Shape } from './types';
import { checkSpec, declareInputs, declareParams, signature, splitLoss } from './model';
import type { BuiltGraph, LossResult, ModelFn, ModelSpec, ParamSpec } from './model';

/** AdamW hyperparameters (PyTorch semantics: decoupled weight decay, bias-corrected moments). */
export interface AdamWHyper {
  /** Learning rate. */
  lr: number;
  /** Decay of the first-moment (mean) estimate. */
  beta1: number;
  /** Decay of the second-moment (uncentred variance) estimate. */
  beta2: number;
  /** Added to √v̂ so early steps with v ≈ 0 stay bounded. */
  eps: number;
  /** Decoupled weight decay: p ← p · (1 − lr · weightDecay), for parameters with `decay`. */
  weightDecay: number;
  /** Gradients are scaled so their global L2 norm is at most this; Infinity disables clipping. */
  maxGradNorm: number;
}

export const DEFAULT_ADAMW: AdamWHyper = { lr: 1e-3, beta1: 0.9, beta2: 0.999, eps: 1e-8, weightDecay: 0.01, maxGradNorm: 1 };

/** Graph input names of the hyperparameters. */
export const HYPER_INPUTS: Record<keyof AdamWHyper, string> = {
  lr: 'hp.lr',
  beta1: 'hp.beta1',
  beta2: 'hp.beta2',
  eps: 'hp.eps',
  weightDecay: 'hp.weight_decay',
  maxGradNorm: 'hp.max_grad_norm',
};

/** Names of the optimiser-state inputs; the matching outputs are `next.` + the name. */
export const adamNames = {
  m: (param: string): string => `adam.m.${param}`,
  v: (param: string): string => `adam.v.${param}`,
  step: 'adam.step',
} as const;

/** Output name carrying the next value of a state input. */
export const nextName = (input: string): string => `next.${input}`;

/** Output of a graph whose runner updates the weights: this step's AdamW scalars, in TABLE_SCALARS order. */
export const TABLE_SCALARS_OUTPUT = 'adam.scalars';

/**
 * The scalars the runner's AdamW step needs, in output order: m ← β1·m + s1·g,
 * v ← β2·v + s2·g², p ← p·keep − stepSize · m / (√v + epsHat), with s1 = (1 − β1)·clip,
 * s2 = (1 − β2)·clip² (clip: the global-norm clipping factor), keep = 1 − lr·wd (when the table
 * decays), stepSize = lr·√bc2 / bc1 and epsHat = ε·√bc2.
 */
export const TABLE_SCALARS = ['beta1', 'beta2', 's1', 's2', 'keep', 'stepSize', 'epsHat'] as const;

/** Output with the gradient of a parameter the runner updates (its rows, for a row-fed table). */
export const gradName = (param: string): string => `grad.${param}`;

/** A table whose train-step inputs and outputs hold only the rows a batch reads. */
export interface RowFedParam<P extends string = string, I extends string = string> {
  param: P;
  /** The batch input with the distinct row ids (int64, or float32 holding integers). */
  rows: I;
  /** The whole table's shape; the graph sees [U, ...shape.slice(1)]. */
  shape: readonly number[];
  /** Whether AdamW's weight decay applies to it. */
  decay: boolean;
}

/** A parameter the runner holds whole and updates from its gradient. */
export interface HeldParam<P extends string = string> {
  param: P;
  shape: readonly number[];
  /** Whether AdamW's weight decay applies to it. */
  decay: boolean;
}

/** A train-step graph plus the names a runner needs. */
export interface TrainStepGraph<P extends string = string, I extends string = string> extends BuiltGraph {
  params: P[];
  batchInputs: I[];
  /** Extra outputs of the loss function, returned by every step. */
  extraOutputs: string[];
  /** Row-fed tables (see the file comment); the runner holds them and gathers their rows. */
  rowFed: RowFedParam<P, I>[];
  /** The other parameters the runner holds and updates (all of them, unless `optimiser: 'graph'`). */
  held: HeldParam<P>[];
}

export interface TrainStepOptions {
  /**
   * Who applies AdamW (default 'runner'; see the file comment). 'graph' keeps every parameter,
   * whole tables included, and its moments in the graph: the earlier layout, kept as the
   * reference the runner's update is tested against.
   */
  optimiser?: 'runner' | 'graph';
}

/**
 * Parameters read by exactly one `gatherRows` whose ids are a batch input (or its Cast): built
 * once on a scratch graph, since which tables qualify shows only once the loss is written.
 */
function findRowFed<P extends string, I extends string>(spec: ModelSpec<P, I>, lossFn: ModelFn<P, I, LossResult>): { param: P; rows: I; dim: Dim }[] {
  const g = new Graph(`${spec.name}.probe`);
  const params = declareParams(g, spec);
  const inputs = declareInputs(g, spec);
  const { loss, outputs } = splitLoss(lossFn(g, params, inputs));
  const returned = new Set([loss, ...Object.values(outputs)]);
  const found: { param: P; rows: I; dim: Dim }[] = [];
  for (const param of Object.keys(spec.params) as P[]) {
    const t = params[param];
    const readers = g.nodes.filter((n) => n.inputs.includes(t));
    const reader = readers[0];
    if (readers.length !== 1 || returned.has(t) || !reader || !g.isDistinctRowGather(reader) || reader.inputs[0] !== t) continue;
    const ids = reader.inputs[1]!;
    const source = ids.producer?.opType === 'Cast' ? ids.producer.inputs[0] : ids;
    const rows = (Object.keys(inputs) as I[]).find((name) => inputs[name] === source);
    if (rows !== undefined) found.push({ param, rows, dim: ids.shape[0]! });
  }
  return found;
}

/** Whether AdamW's weight decay applies to a parameter (see ParamSpec.decay). */
const decays = (p: ParamSpec): boolean => p.decay ?? p.shape.length >= 2;

/** Adds ≥ 1 tensors. */
function sum(g: Graph, xs: readonly Tensor[]): Tensor {
  return xs.reduce((acc, x) => g.add(acc, x));
}

/**
 * Builds the train-step graph of `spec` with the loss from `lossFn` (which must return a
 * float32 scalar, typically a batch mean).
 */
export function buildTrainStep<P extends string, I extends string>(
  spec: ModelSpec<P, I>,
  lossFn: ModelFn<P, I, LossResult>,
  opts: TrainStepOptions = {},
): TrainStepGraph<P, I> {
  checkSpec(spec);
  const g = new Graph(`${spec.name}.train`);
  const names = Object.keys(spec.params) as P[];
  if (names.length === 0) throw new Error(`buildTrainStep '${spec.name}': the model has no parameters`);
  const inGraph = opts.optimiser === 'graph';
  const rowFed = inGraph ? [] : findRowFed(spec, lossFn);
  // A row-fed table's inputs (weights, m, v) are [U, ...]: the rows the batch reads.
  const shapeOf = (n: P): Shape => {
    const r = rowFed.find((x) => x.param === n);
    return r ? [r.dim, ...spec.params[n].shape.slice(1)] : spec.params[n].shape;
  };
  const params = {} as Record<P, Tensor>;
  for (const n of names) params[n] = g.input(n, 'float32', shapeOf(n));
  for (const r of rowFed) g.feedRows(params[r.param]);
  // The runner holds its parameters' moments: only those the graph updates take them as inputs.
  const dense = inGraph ? names : [];
  const held = inGraph ? [] : names.filter((n) => !rowFed.some((r) => r.param === n));
  const m = dense.map((n) => g.input(adamNames.m(n), 'float32', spec.params[n].shape));
  const v = dense.map((n) => g.input(adamNames.v(n), 'float32', spec.params[n].shape));
  const step = g.input(adamNames.step, 'float32', []);
  const inputs = declareInputs(g, spec);
  const hp = {} as Record<keyof AdamWHyper, Tensor>;
  for (const [k, name] of Object.entries(HYPER_INPUTS)) hp[k as keyof AdamWHyper] = g.input(name, 'float32', []);

  const { loss, outputs } = splitLoss(lossFn(g, params, inputs));
  // A table read only through gatherRows (an embedding with the batch's distinct ids) gets its
  // gradient as those rows; every other parameter gets a dense one.
  const grads = rowSparseGradients(
    g,
    loss,
    names.map((n) => params[n]),
  );

  // Global-norm clipping: scale = min(1, maxNorm / (‖g‖ + 1e-6)), as torch.nn.utils.clip_grad_norm_.
  const gradNorm = g.sqrt(
    sum(
      g,
      grads.map((d) => g.sumSquares(d instanceof Tensor ? d : d.values)),
    ),
  ); // []
  const clipScale = g.min(g.scalar(1), g.div(hp.maxGradNorm, g.add(gradNorm, 1e-6))); // []

  // Scalars shared by every parameter, so each parameter costs only elementwise passes.
  const t = g.add(step, 1); // [] this step's 1-based index
  const bc1 = g.sub(1, g.pow(hp.beta1, t)); // [] 1 − β1^t
  const bc2 = g.sub(1, g.pow(hp.beta2, t)); // [] 1 − β2^t
  // m̂ / (√v̂ + ε) with m̂ = m/bc1, v̂ = v/bc2 equals (√bc2 / bc1) · m / (√v + ε·√bc2), which
  // moves the bias corrections into two scalars and saves a pass over every parameter.
  const sqrtBc2 = g.sqrt(bc2); // []
  const stepSize = g.div(g.mul(hp.lr, sqrtBc2), bc1); // [] lr · √bc2 / bc1
  const epsHat = g.mul(hp.eps, sqrtBc2); // [] ε · √bc2
  const s1 = g.mul(g.sub(1, hp.beta1), clipScale); // [] (1 − β1) · clip
  const s2 = g.mul(g.sub(1, hp.beta2), g.mul(clipScale, clipScale)); // [] (1 − β2) · clip²
  const keep = g.sub(1, g.mul(hp.lr, hp.weightDecay)); // [] 1 − lr · wd

  g.output('loss', loss);
  g.output('grad_norm', gradNorm);
  dense.forEach((name, j) => {
    const p: ParamSpec = spec.params[name];
    const [gi, mi, vi] = [grads[names.indexOf(name)]!, m[j]!, v[j]!];
    const moments = (mi: Tensor, vi: Tensor, gi: Tensor): [Tensor, Tensor] => [
      g.add(g.mul(mi, hp.beta1), g.mul(gi, s1)), // β1·m + (1 − β1)·ĝ
      g.add(g.mul(vi, hp.beta2), g.mul(g.mul(gi, gi), s2)), // β2·v + (1 − β2)·ĝ²
    ];
    let mNext: Tensor;
    let vNext: Tensor;
    if (gi instanceof Tensor) [mNext, vNext] = moments(mi, vi, gi);
    else {
      // Row-sparse ĝ: rows outside gi.rows have ĝ = 0, so their moments only decay (β·m, β·v);
      // the U gathered rows get the full formula and are written over the decayed table. The
      // result equals dense AdamW on the scattered gradient, without building that [V, ...]
      // gradient and in fewer passes over the table. The rows are distinct: the scatter is order-free.
      const [mRows, vRows] = moments(g.gather(mi, gi.rows), g.gather(vi, gi.rows), gi.values); // [U, ...]
      const at = g.unsqueeze(gi.rows, [-1]); // [U, 1]
      mNext = g.scatterND(g.mul(mi, hp.beta1), at, mRows);
      vNext = g.scatterND(g.mul(vi, hp.beta2), at, vRows);
    }
    const denom = g.add(g.sqrt(vNext), epsHat); // (√v̂ + ε) · √bc2
    const update = g.mul(g.div(mNext, denom), stepSize); // lr · m̂ / (√v̂ + ε)
    const base = decays(p) ? g.mul(params[name], keep) : params[name];
    g.output(nextName(name), g.sub(base, update));
    g.output(nextName(adamNames.m(name)), mNext);
    g.output(nextName(adamNames.v(name)), vNext);
  });
  g.output(nextName(adamNames.step), t);
  // Held parameters' gradients in parameter order: rows for a row-fed table, else whole (a
  // gatherRows table that is not row-fed gets its row gradient scattered into zeros; its rows
  // are distinct, so the scatter is order-free).
  if (!inGraph) {
    names.forEach((n, i) => {
      const d = grads[i]!;
      g.output(gradName(n), d instanceof Tensor ? d : g.scatterND(g.zerosLike(params[n]), g.unsqueeze(d.rows, [-1]), d.values, 'none'));
    });
  }
  if (!inGraph) {
    const scalars: Record<(typeof TABLE_SCALARS)[number], Tensor> = { beta1: hp.beta1, beta2: hp.beta2, s1, s2, keep, stepSize, epsHat };
    g.output(
      TABLE_SCALARS_OUTPUT,
      g.concat(
        TABLE_SCALARS.map((k) => g.unsqueeze(scalars[k], [0])),
        0,
      ),
    ); // [7]
  }
  for (const [name, tensor] of Object.entries(outputs)) g.output(name, tensor);

  return {
    ...signature(g, g.encode({ docString: `AdamW train step of ${spec.name}` })),
    params: names,
    batchInputs: Object.keys(spec.inputs) as I[],
    extraOutputs: Object.keys(outputs),
    rowFed: rowFed.map((r) => ({ param: r.param, rows: r.rows, shape: spec.params[r.param].shape, decay: decays(spec.params[r.param]) })),
    held: held.map((n) => ({ param: n, shape: spec.params[n].shape, decay: decays(spec.params[n]) })),
  };
}
