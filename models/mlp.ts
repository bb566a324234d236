/**
 * A multilayer perceptron classifier: the reference model for tests and `benchMlp`, and a
 * template for policies. Layers are `x [B, in] → ReLU(x W + b) → … → logits [B, classes]`.
 */
import type { Graph, ModelSpec, ParamSpec, Tensor } from './graph';

export type MlpInputs = 'x' | 'y';

/** Spec for an MLP with the given layer sizes, e.g. [4096, 256, 16]. Inputs: x [B, in] float32, y [B] int64 labels. */
export function mlpSpec(name: string, sizes: readonly number[]): ModelSpec<string, MlpInputs> {
  if (sizes.length < 2) throw new Error(`mlpSpec: need at least input and output sizes, got [${sizes.join(', ')}]`);
  const params: Record<string, ParamSpec> = {};
  for (let i = 0; i + 1 < sizes.length; i++) {
    params[`w${i}`] = { shape: [sizes[i]!, sizes[i + 1]!], init: i + 2 < sizes.length ? 'he' : 'xavier' };
    params[`b${i}`] = { shape: [sizes[i + 1]!] };
  }
  return {
    name,
    params,
    inputs: { x: { dtype: 'float32', shape: ['B', sizes[0]!] }, y: { dtype: 'int64', shape: ['B'] } },
  };
}

/** Logits `[B, classes]`. Gemm fuses the matmul and bias add of each layer. */
export function mlpLogits(g: Graph, p: Record<string, Tensor>, x: Tensor): Tensor {
  let h = x;
  for (let i = 0; `w${i}` in p; i++) {
    h = g.gemm(h, p[`w${i}`]!, p[`b${i}`]); // [B, size_{i+1}]
    if (`w${i + 1}` in p) h = g.relu(h);
  }
  return h;
}

/** Forward outputs: `probs [B, classes]`. */
export function mlpForward(g: Graph, p: Record<string, Tensor>, inputs: Record<MlpInputs, Tensor>): Record<string, Tensor> {
  return { probs: g.softmax(mlpLogits(g, p, inputs.x), -1) };
}

/** Mean cross-entropy of the labels `y [B]`, with `accuracy` as an extra output. */
export function mlpLoss(g: Graph, p: Record<string, Tensor>, inputs: Record<MlpInputs, Tensor>): { loss: Tensor; outputs: Record<string, Tensor> } {
  const logits = mlpLogits(g, p, inputs.x); // [B, C]
  const logp = g.logSoftmax(logits, -1); // [B, C]
  const picked = g.gatherElements(logp, g.unsqueeze(inputs.y, [1]), 1); // [B, 1] log p(y)
  const loss = g.neg(g.reduceMean(picked)); // []
  const predicted = g.op('ArgMax', [logits], { axis: { type: 'int', value: 1 }, keepdims: { type: 'int', value: 0 } }, [{ dtype: 'int64', shape: ['B'] }])[0]!;
  const accuracy = g.reduceMean(g.cast(g.equal(predicted, inputs.y), 'float32')); // []
  return { loss, outputs: { accuracy } };
}
