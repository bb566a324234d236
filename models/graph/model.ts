/**
 * A model is its parameter shapes, its batch inputs and a function that builds its graph from
 * symbolic parameters. The same function yields the inference graph (weights baked in as
 * initialisers, or fed as inputs), the gradient graph and, in `train-step.ts`, the AdamW step.
 */
import { gradients } from './grad';
import { Graph, Tensor } from './graph';
import { formatShape, numel } from './shape';
import type { DType, Shape, ValueSpec } from './types';

/** How a parameter is initialised by `initParams` (see `models/params.ts`). */
export type ParamInit =
  | 'zeros'
  | 'ones'
  /** Glorot uniform over [fanIn, fanOut] = shape[0], shape[1]; the default for rank ≥ 2. */
  | 'xavier'
  /** He normal, std √(2 / fanIn): for layers followed by ReLU. */
  | 'he'
  | { normal: number }
  | { uniform: number };

export interface ParamSpec {
  /** Concrete shape; a dense layer's weight is `[in, out]`. */
  shape: readonly number[];
  /** Default: 'xavier' for rank ≥ 2, 'zeros' otherwise. */
  init?: ParamInit;
  /** Whether AdamW's decoupled weight decay applies. Default: rank ≥ 2 (weights, not biases). */
  decay?: boolean;
}

/** Parameters and batch inputs of a model; `P` and `I` are their names. */
export interface ModelSpec<P extends string = string, I extends string = string> {
  /** Used in graph names and error messages. */
  name: string;
  params: Record<P, ParamSpec>;
  /** Batch inputs; use a symbolic first dimension (`'B'`) so any batch size runs. */
  inputs: Record<I, ValueSpec>;
}

/** Builds outputs (forward) or the loss (training) from symbolic parameters and inputs. */
export type ModelFn<P extends string, I extends string, R> = (g: Graph, params: Record<P, Tensor>, inputs: Record<I, Tensor>) => R;

/** A loss function's result: the scalar loss, optionally with extra outputs (metrics). */
export type LossResult = Tensor | { loss: Tensor; outputs?: Record<string, Tensor> };

/** Description of one graph input or output. */
export interface IoSpec {
  name: string;
  dtype: DType;
  shape: Shape;
}

/** A serialised graph and its signature. */
export interface BuiltGraph {
  name: string;
  bytes: Uint8Array;
  inputs: IoSpec[];
  outputs: IoSpec[];
}

/** Names that the train-step graph reserves for its own inputs and outputs. */
export const RESERVED_PREFIXES = ['adam.', 'hp.', 'next.', 'grad.'] as const;

export function signature(g: Graph, bytes: Uint8Array): BuiltGraph {
  const io = (t: Tensor): IoSpec => ({ name: t.name, dtype: t.dtype, shape: t.shape });
  return { name: g.name, bytes, inputs: g.inputs.map(io), outputs: g.outputs.map(io) };
}

export function checkSpec(spec: ModelSpec): void {
  const names = new Set<string>();
  for (const [name, p] of Object.entries<ParamSpec>(spec.params)) {
    if (numel(p.shape) === undefined || p.shape.some((d) => !Number.isInteger(d) || d <= 0)) {
      throw new Error(`model '${spec.name}': parameter '${name}' needs a concrete positive shape, got ${formatShape(p.shape)}`);
    }
    names.add(name);
  }
  for (const name of [...names, ...Object.keys(spec.inputs)]) {
    const bad = RESERVED_PREFIXES.find((pre) => name.startsWith(pre));
    if (bad) throw new Error(`model '${spec.name}': the name '${name}' uses the reserved prefix '${bad}'`);
  }
  for (const name of Object.keys(spec.inputs)) {
    if (names.has(name)) throw new Error(`model '${spec.name}': '${name}' is both a parameter and an input`);
  }
}

/** Declares the batch inputs of `spec` on `g`. */
export function declareInputs<I extends string>(g: Graph, spec: ModelSpec<string, I>): Record<I, Tensor> {
  const out = {} as Record<I, Tensor>;
  for (const [name, v] of Object.entries<ValueSpec>(spec.inputs)) out[name as I] = g.input(name, v.dtype, v.shape);
  return out;
}

/** Declares the parameters of `spec` as float32 graph inputs (the training layout). */
export function declareParams<P extends string>(g: Graph, spec: ModelSpec<P>): Record<P, Tensor> {
  const out = {} as Record<P, Tensor>;
  for (const [name, p] of Object.entries<ParamSpec>(spec.params)) out[name as P] = g.input(name, 'float32', p.shape);
  return out;
}

export function splitLoss(r: LossResult): { loss: Tensor; outputs: Record<string, Tensor> } {
  return r instanceof Tensor ? { loss: r, outputs: {} } : { loss: r.loss, outputs: r.outputs ?? {} };
}

export interface ForwardOptions<P extends string> {
  /**
   * Weights to bake in as initialisers (faster at small batches: no per-call copy of the
   * weights). When omitted, every parameter is a graph input fed on each run.
   */
  weights?: Record<P, Float32Array>;
}

/** Inference graph: inputs (and parameters unless baked) → the named outputs of `forward`. */
export function buildForward<P extends string, I extends string>(
  spec: ModelSpec<P, I>,
  forward: ModelFn<P, I, Record<string, Tensor>>,
  opts: ForwardOptions<P> = {},
): BuiltGraph {
  checkSpec(spec);
  const g = new Graph(`${spec.name}.forward`);
  let params: Record<P, Tensor>;
  if (opts.weights) {
    const w = opts.weights;
    params = {} as Record<P, Tensor>;
    for (const [name, p] of Object.entries<ParamSpec>(spec.params)) {
      const data = w[name as P] as Float32Array | undefined;
      if (!data) throw new Error(`buildForward '${spec.name}': no weights for parameter '${name}'`);
      params[name as P] = g.initializer(name, data, p.shape);
    }
  } else {
    params = declareParams(g, spec);
  }
  const inputs = declareInputs(g, spec);
  const outs = forward(g, params, inputs);
  for (const [name, t] of Object.entries(outs)) g.output(name, t);
  g.dropUnusedInputs();
  return signature(g, g.encode());
}

/**
 * Loss and gradient graph (no optimiser): inputs are parameters and batch inputs, outputs are
 * `loss`, `grad.<param>` for each parameter, and any extra outputs of the loss function. Useful
 * for gradient checks and for accumulating gradients over micro-batches outside the graph.
 */
export function buildGradients<P extends string, I extends string>(spec: ModelSpec<P, I>, lossFn: ModelFn<P, I, LossResult>): BuiltGraph {
  checkSpec(spec);
  const g = new Graph(`${spec.name}.grad`);
  const params = declareParams(g, spec);
  const inputs = declareInputs(g, spec);
  const { loss, outputs } = splitLoss(lossFn(g, params, inputs));
  const names = Object.keys(spec.params) as P[];
  const grads = gradients(
    g,
    loss,
    names.map((n) => params[n]),
  );
  g.output('loss', loss);
  names.forEach((n, i) => g.output(`grad.${n}`, grads[i]!));
  for (const [name, t] of Object.entries(outputs)) g.output(name, t);
  return signature(g, g.encode());
}
