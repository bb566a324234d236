/**
 * The graph builder with reverse-mode differentiation. Write a model as a `ModelSpec` plus a
 * function from symbolic parameters to outputs or a loss; `buildForward`, `buildGradients` and
 * `buildTrainStep` turn it into serialised ONNX graphs that `models/runner.ts` runs through the
 * sessions of `models/session.ts`:
 *
 * ```ts
 * const spec: ModelSpec<'w' | 'b', 'x' | 'y'> = {
 *   name: 'linear',
 *   params: { w: { shape: [16, 4] }, b: { shape: [4] } },
 *   inputs: { x: { dtype: 'float32', shape: ['B', 16] }, y: { dtype: 'int64', shape: ['B'] } },
 * };
 * const logits = (g: Graph, p: Record<'w' | 'b', Tensor>, x: Tensor) => g.gemm(x, p.w, p.b); // [B, 4]
 * const train = buildTrainStep(spec, (g, p, x) => {
 *   const logp = g.logSoftmax(logits(g, p, x.x)); // [B, 4]
 *   return g.neg(g.reduceMean(g.gatherElements(logp, g.unsqueeze(x.y, [1]), 1))); // []
 * });
 * const runner = await TrainStepRunner.create(train, initParams(spec.params, seed), { hyper: { lr: 1e-3 } });
 * const { loss, gradNorm } = await runner.step({ x: { data, dims: [B, 16] }, y: { data: labels, dims: [B] } });
 * const infer = buildForward(spec, (g, p, x) => ({ probs: g.softmax(logits(g, p, x.x)) }), { weights: runner.weights });
 * ```
 */
export { Graph, Tensor, OPSET, IR_VERSION } from './graph';
export type { GraphNode, Operand, GemmOptions, OneHotOptions, EmbeddingBagOptions } from './graph';
export { gradients, unbroadcast, DIFFERENTIABLE_OPS } from './grad';
export { buildForward, buildGradients, RESERVED_PREFIXES } from './model';
export type { ModelSpec, ParamSpec, ParamInit, ModelFn, LossResult, BuiltGraph, IoSpec, ForwardOptions } from './model';
export { buildTrainStep, DEFAULT_ADAMW, HYPER_INPUTS, TABLE_SCALARS, TABLE_SCALARS_OUTPUT, adamNames, gradName, nextName } from './train-step';
export type { AdamWHyper, HeldParam, RowFedParam, TrainStepGraph, TrainStepOptions } from './train-step';
export type { DType, Dim, Shape, TensorData, ValueSpec } from './types';
