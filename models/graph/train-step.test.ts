/**
 * The train-step graph against a float64 reference of clipping + AdamW written in plain JS, with
 * gradients from the separate gradient graph (itself checked in grad.test.ts).
 */
import { describe, expect, it } from 'vitest';
import { ForwardRunner, TrainStepRunner } from '../runner';
import type { TrainState } from '../runner';
import { usesScatterReduction } from '../runner';
import { buildGradients, buildTrainStep } from './index';
import type { AdamWHyper, Graph, ModelSpec, Tensor } from './index';

type P = 'w' | 'b';
type I = 'x' | 't';

const spec: ModelSpec<P, I> = {
  name: 'tiny',
  params: { w: { shape: [3, 2] }, b: { shape: [2] } },
  inputs: { x: { dtype: 'float32', shape: ['B', 3] }, t: { dtype: 'float32', shape: ['B', 2] } },
};

/** mean((tanh(x w + b) − t)²) */
function loss(g: Graph, p: Record<P, Tensor>, x: Record<I, Tensor>): { loss: Tensor; outputs: Record<string, Tensor> } {
  const err = g.sub(g.tanh(g.gemm(x.x, p.w, p.b)), x.t); // [B, 2]
  return { loss: g.reduceMean(g.mul(err, err)), outputs: { err } };
}

const batch = {
  x: { data: new Float32Array([0.5, -1, 2, 1.5, 0.3, -0.7, -0.2, 0.8, 0.1, 1, 1, -1]), dims: [4, 3] },
  t: { data: new Float32Array([0.3, -0.5, 0.9, 0.1, -0.4, 0.6, 0.2, 0.2]), dims: [4, 2] },
};

const start: TrainState<P> = {
  weights: { w: new Float32Array([0.2, -0.4, 0.7, 0.1, -0.3, 0.5]), b: new Float32Array([0.05, -0.1]) },
  m: { w: new Float32Array([0.01, -0.02, 0.03, 0, 0.01, -0.01]), b: new Float32Array([0.02, 0]) },
  v: { w: new Float32Array([1e-4, 2e-4, 5e-5, 1e-4, 3e-4, 1e-5]), b: new Float32Array([2e-4, 1e-4]) },
  step: 3,
};

/** Float64 reference: torch.optim.AdamW after torch.nn.utils.clip_grad_norm_. */
function referenceStep(s: TrainState<P>, grads: Record<P, Float32Array>, h: AdamWHyper, decay: Record<P, boolean>): TrainState<P> & { norm: number } {
  let sq = 0;
  for (const p of ['w', 'b'] as P[]) for (const gv of grads[p]) sq += gv * gv;
  const norm = Math.sqrt(sq);
  const scale = Math.min(1, h.maxGradNorm / (norm + 1e-6));
  const t = s.step + 1;
  const out = { weights: {}, m: {}, v: {}, step: t, norm } as TrainState<P> & { norm: number };
  for (const p of ['w', 'b'] as P[]) {
    const n = grads[p].length;
    out.weights[p] = new Float32Array(n);
    out.m[p] = new Float32Array(n);
    out.v[p] = new Float32Array(n);
    for (let i = 0; i < n; i++) {
      const gi = grads[p][i]! * scale;
      const m = h.beta1 * s.m[p][i]! + (1 - h.beta1) * gi;
      const v = h.beta2 * s.v[p][i]! + (1 - h.beta2) * gi * gi;
      const mHat = m / (1 - h.beta1 ** t);
      const vHat = v / (1 - h.beta2 ** t);
      let w = s.weights[p][i]!;
      if (decay[p]) w *= 1 - h.lr * h.weightDecay;
      out.weights[p][i] = w - (h.lr * mHat) / (Math.sqrt(vHat) + h.eps);
      out.m[p][i] = m;
      out.v[p][i] = v;
    }
  }
  return out;
}

function expectClose(actual: Float32Array, expected: Float32Array, what: string): void {
  expect(actual.length, what).toBe(expected.length);
  actual.forEach((a, i) => {
    const e = expected[i]!;
    if (Math.abs(a - e) > 1e-6 + 1e-5 * Math.abs(e)) throw new Error(`${what}[${i}]: graph ${a}, reference ${e}`);
  });
}

async function gradientsAt(weights: Record<P, Float32Array>): Promise<Record<P, Float32Array>> {
  const runner = await ForwardRunner.create(buildGradients(spec, loss), { intraOpNumThreads: 1 });
  const res = await runner.run({ w: { data: weights.w, dims: [3, 2] }, b: { data: weights.b, dims: [2] }, ...batch });
  await runner.dispose();
  return { w: res['grad.w']!.data as Float32Array, b: res['grad.b']!.data as Float32Array };
}

describe('train step', () => {
  const graph = buildTrainStep(spec, loss);

  it('declares params, step count, batch and hyperparameters as inputs and gradients and AdamW scalars as outputs', () => {
    expect(graph.inputs.map((i) => i.name)).toEqual([
      'w',
      'b',
      'adam.step',
      'x',
      't',
      'hp.lr',
      'hp.beta1',
      'hp.beta2',
      'hp.eps',
      'hp.weight_decay',
      'hp.max_grad_norm',
    ]);
    expect(graph.outputs.map((o) => o.name)).toEqual(['loss', 'grad_norm', 'next.adam.step', 'grad.w', 'grad.b', 'adam.scalars', 'err']);
    expect(graph.held).toEqual([
      { param: 'w', shape: [3, 2], decay: true },
      { param: 'b', shape: [2], decay: false },
    ]);
    expect(graph.outputs.find((o) => o.name === 'err')?.shape).toEqual(['B', 2]);
  });

  it("with optimiser 'graph' takes AdamW state as inputs and returns its next values", () => {
    const inGraph = buildTrainStep(spec, loss, { optimiser: 'graph' });
    expect(inGraph.inputs.map((i) => i.name)).toEqual([
      'w',
      'b',
      'adam.m.w',
      'adam.m.b',
      'adam.v.w',
      'adam.v.b',
      'adam.step',
      'x',
      't',
      'hp.lr',
      'hp.beta1',
      'hp.beta2',
      'hp.eps',
      'hp.weight_decay',
      'hp.max_grad_norm',
    ]);
    expect(inGraph.outputs.map((o) => o.name)).toEqual([
      'loss',
      'grad_norm',
      'next.w',
      'next.adam.m.w',
      'next.adam.v.w',
      'next.b',
      'next.adam.m.b',
      'next.adam.v.b',
      'next.adam.step',
      'err',
    ]);
    expect(inGraph.held).toEqual([]);
  });

  for (const [label, maxGradNorm, optimiser] of [
    ['without clipping', 1e9, 'runner'],
    ['with clipping active', 0.05, 'runner'],
    ['with clipping active, updated in the graph', 0.05, 'graph'],
  ] as const) {
    it(`matches a float64 AdamW reference ${label}`, async () => {
      const hyper: AdamWHyper = { lr: 0.05, beta1: 0.85, beta2: 0.99, eps: 1e-6, weightDecay: 0.1, maxGradNorm };
      const grads = await gradientsAt(start.weights);
      const ref = referenceStep(start, grads, hyper, { w: true, b: false });
      const runner = await TrainStepRunner.create(buildTrainStep(spec, loss, { optimiser }), start, { hyper, session: { intraOpNumThreads: 1 } });
      const res = await runner.step(batch);
      const next = runner.snapshot();
      expect(res.gradNorm).toBeCloseTo(ref.norm, 5);
      if (maxGradNorm < 1) expect(res.gradNorm).toBeGreaterThan(maxGradNorm * 5); // clipping really bites
      expect(next.step).toBe(4);
      for (const p of ['w', 'b'] as P[]) {
        expectClose(next.weights[p], ref.weights[p], `weights ${p}`);
        expectClose(next.m[p], ref.m[p], `m ${p}`);
        expectClose(next.v[p], ref.v[p], `v ${p}`);
      }
      expect(res.outputs.err?.dims).toEqual([4, 2]);
      await runner.dispose();
    });
  }

  it('caps the gradient norm: from zero state, m / (1 − β1) has norm maxGradNorm', async () => {
    const maxGradNorm = 0.01;
    const runner = await TrainStepRunner.create(graph, start.weights, { hyper: { maxGradNorm, beta1: 0.9 }, session: { intraOpNumThreads: 1 } });
    const res = await runner.step(batch);
    expect(res.gradNorm).toBeGreaterThan(maxGradNorm);
    const { m } = runner.snapshot();
    const norm = Math.sqrt([...m.w, ...m.b].reduce((s, x) => s + x * x, 0)) / (1 - 0.9);
    expect(norm).toBeCloseTo(maxGradNorm, 6);
    await runner.dispose();
  });

  it('takes the learning rate as an input: lr = 0 leaves the weights as they were', async () => {
    const runner = await TrainStepRunner.create(graph, start, { hyper: { lr: 0 }, session: { intraOpNumThreads: 1 } });
    await runner.step(batch);
    expect(Array.from(runner.weights.w)).toEqual(Array.from(start.weights.w));
    await runner.step(batch, { lr: 0.1 });
    expect(Array.from(runner.weights.w)).not.toEqual(Array.from(start.weights.w));
    expect(runner.snapshot().step).toBe(5);
    await runner.dispose();
  });
});

describe('train step with a row-sparse gradient (gatherRows)', () => {
  // bag = mat [B, U] @ emb[rows] [U, 2]; loss = mean((tanh(bag) − t)²). The same model through a
  // plain Gather has a dense gradient, so its step is the dense AdamW reference.
  type Q = 'emb';
  type J = 'rows' | 'mat' | 't';
  const sparseSpec: ModelSpec<Q, J> = {
    name: 'rows',
    params: { emb: { shape: [6, 2], decay: false } },
    inputs: { rows: { dtype: 'int64', shape: ['U'] }, mat: { dtype: 'float32', shape: ['B', 'U'] }, t: { dtype: 'float32', shape: ['B', 2] } },
  };
  const lossWith = (distinct: boolean) => (g: Graph, p: Record<Q, Tensor>, x: Record<J, Tensor>) => {
    const rows = distinct ? g.gatherRows(p.emb, x.rows) : g.gather(p.emb, x.rows, 0); // [U, 2]
    const err = g.sub(g.tanh(g.gemm(x.mat, rows)), x.t); // [B, 2]
    return g.reduceMean(g.mul(err, err));
  };
  const rowsBatch = {
    rows: { data: BigInt64Array.from([1n, 3n, 4n]), dims: [3] },
    mat: { data: new Float32Array([0.5, 0, 0.7, 0, 0.6, 0.6]), dims: [2, 3] },
    t: { data: new Float32Array([0.3, -0.5, 0.9, 0.1]), dims: [2, 2] },
  };
  const state: TrainState<Q> = {
    weights: { emb: new Float32Array([0.2, -0.4, 0.7, 0.1, -0.3, 0.5, 0.05, -0.1, 0.3, 0.3, -0.2, 0.6]) },
    m: { emb: new Float32Array([0.01, -0.02, 0.03, 0, 0.01, -0.01, 0.02, 0, 0.01, 0.01, -0.03, 0.02]) },
    v: { emb: new Float32Array([1e-4, 2e-4, 5e-5, 1e-4, 3e-4, 1e-5, 2e-4, 1e-4, 1e-4, 3e-5, 2e-4, 1e-4]) },
    step: 3,
  };

  it('steps exactly like dense AdamW, rows outside the batch included, with no scatter-add', async () => {
    const hyper = { lr: 0.05, beta1: 0.85, beta2: 0.99, eps: 1e-6, weightDecay: 0.1, maxGradNorm: 0.05 };
    const sparseGraph = buildTrainStep(sparseSpec, lossWith(true));
    expect(usesScatterReduction(sparseGraph.bytes)).toBe(false);
    const sparse = await TrainStepRunner.create(sparseGraph, state, { hyper, session: { intraOpNumThreads: 1 } });
    const dense = await TrainStepRunner.create(buildTrainStep(sparseSpec, lossWith(false)), state, { hyper, session: { intraOpNumThreads: 1 } });
    for (let i = 0; i < 3; i++) {
      const [a, b] = [await sparse.step(rowsBatch), await dense.step(rowsBatch)];
      expect(a.loss).toBeCloseTo(b.loss, 6);
      expect(a.gradNorm).toBeCloseTo(b.gradNorm, 6);
    }
    const [x, y] = [sparse.snapshot(), dense.snapshot()];
    expectClose(x.weights.emb, y.weights.emb, 'weights');
    expectClose(x.m.emb, y.m.emb, 'm');
    expectClose(x.v.emb, y.v.emb, 'v');
    // Rows 0, 2 and 5 are not in the batch: their moments only decayed, and the weights still moved.
    expect(x.m.emb[0]).toBeCloseTo(state.m.emb[0]! * 0.85 ** 3, 7);
    expect(x.weights.emb[0]).not.toBe(state.weights.emb[0]);
    await sparse.dispose();
    await dense.dispose();
  });

  it('feeds a row-fed table its rows only: the graph sees [U, 2] and returns the gradient rows', () => {
    const graph = buildTrainStep(sparseSpec, lossWith(true));
    expect(graph.rowFed).toEqual([{ param: 'emb', rows: 'rows', shape: [6, 2], decay: false }]);
    expect(graph.inputs.find((i) => i.name === 'emb')?.shape).toEqual(['U', 2]);
    expect(graph.inputs.some((i) => i.name === 'adam.m.emb')).toBe(false);
    expect(graph.outputs.map((o) => o.name)).toEqual(['loss', 'grad_norm', 'next.adam.step', 'grad.emb', 'adam.scalars']);
    expect(buildTrainStep(sparseSpec, lossWith(true), { optimiser: 'graph' }).rowFed).toEqual([]);
    expect(buildTrainStep(sparseSpec, lossWith(false)).rowFed).toEqual([]); // a plain Gather reads the whole table
  });

  it('holds a gatherRows table whose ids the graph computes whole, with the bits of the update in the graph', async () => {
    const computed = (g: Graph, p: Record<Q, Tensor>, x: Record<J, Tensor>) => {
      const err = g.sub(g.tanh(g.gemm(x.mat, g.gatherRows(p.emb, g.reshape(x.rows, [-1])))), x.t); // ids not a batch input itself
      return g.reduceMean(g.mul(err, err));
    };
    const held = buildTrainStep(sparseSpec, computed);
    expect([held.rowFed, held.held]).toEqual([[], [{ param: 'emb', shape: [6, 2], decay: false }]]);
    const hyper = { lr: 0.05, beta1: 0.85, beta2: 0.99, eps: 1e-6, weightDecay: 0.1, maxGradNorm: 0.05 };
    const a = await TrainStepRunner.create(held, state, { hyper, session: { intraOpNumThreads: 1 } });
    const b = await TrainStepRunner.create(buildTrainStep(sparseSpec, computed, { optimiser: 'graph' }), state, { hyper, session: { intraOpNumThreads: 1 } });
    for (let i = 0; i < 3; i++) expect((await a.step(rowsBatch)).loss).toBe((await b.step(rowsBatch)).loss);
    const [x, y] = [a.snapshot(), b.snapshot()];
    for (const k of ['weights', 'm', 'v'] as const) expect(Array.from(x[k].emb), k).toEqual(Array.from(y[k].emb));
    await a.dispose();
    await b.dispose();
  });

  for (const decay of [false, true]) {
    it(`gives the bits of the whole-table step over batches that leave rows out (${decay ? 'with' : 'without'} weight decay)`, async () => {
      const decaySpec: ModelSpec<Q, J> = { ...sparseSpec, params: { emb: { shape: [6, 2], decay } } };
      const hyper = { lr: 0.05, beta1: 0.85, beta2: 0.99, eps: 1e-6, weightDecay: 0.1, maxGradNorm: 0.05 };
      // Rows 0 and 5 start with zero moments and row 5 is never in a batch: the runner skips it
      // without weight decay and decays it with.
      const start: TrainState<Q> = {
        ...state,
        m: { emb: state.m.emb.map((x, i) => (i < 2 || i >= 10 ? 0 : x)) },
        v: { emb: state.v.emb.map((x, i) => (i < 2 || i >= 10 ? 0 : x)) },
      };
      const fed = await TrainStepRunner.create(buildTrainStep(decaySpec, lossWith(true)), start, { hyper, session: { intraOpNumThreads: 1 } });
      const whole = await TrainStepRunner.create(buildTrainStep(decaySpec, lossWith(true), { optimiser: 'graph' }), start, {
        hyper,
        session: { intraOpNumThreads: 1 },
      });
      const batches = [rowsBatch, { ...rowsBatch, rows: { data: BigInt64Array.from([0n, 2n, 3n]), dims: [3] } }, rowsBatch];
      for (const b of batches) {
        const [a, c] = [await fed.step(b), await whole.step(b)];
        expect(a.loss).toBe(c.loss);
        expect(a.gradNorm).toBe(c.gradNorm);
      }
      const [x, y] = [fed.snapshot(), whole.snapshot()];
      expect(Array.from(x.weights.emb)).toEqual(Array.from(y.weights.emb));
      expect(Array.from(x.m.emb)).toEqual(Array.from(y.m.emb));
      expect(Array.from(x.v.emb)).toEqual(Array.from(y.v.emb));
      expect(x.step).toBe(state.step + batches.length);
      expect(x.weights.emb[10] === start.weights.emb[10]).toBe(!decay);
      await fed.dispose();
      await whole.dispose();
    });
  }

  it('names a row id that is out of range or repeated', async () => {
    const runner = await TrainStepRunner.create(buildTrainStep(sparseSpec, lossWith(true)), state, { session: { intraOpNumThreads: 1 } });
    await expect(runner.step({ ...rowsBatch, rows: { data: BigInt64Array.from([1n, 3n, 6n]), dims: [3] } })).rejects.toThrow(
      /row id 6 at rows\[2\] is not a row of 'emb' \(0…5\)/,
    );
    await expect(runner.step({ ...rowsBatch, rows: { data: BigInt64Array.from([1n, 3n, 1n]), dims: [3] } })).rejects.toThrow(/row id 1 appears twice in rows/);
    expect(runner.snapshot().step).toBe(state.step); // nothing moved
    await runner.dispose();
  });
});
