/**
 * Smoke-train: a small MLP learns a separable toy problem through the full train-step graph,
 * and the inference graph (baked weights or weights as inputs) agrees with the trained state.
 */
import { describe, expect, it } from 'vitest';
import { Graph, buildForward, buildTrainStep } from './graph';
import type { ModelSpec } from './graph';
import { mlpForward, mlpLoss, mlpSpec } from './mlp';
import { initParams } from './params';
import { ForwardRunner, TrainStepRunner, usesScatterReduction } from './runner';
import type { Feed } from './runner';

/** Three Gaussian blobs in 8-D: class c is centred on +2 in coordinate c. */
function blobs(n: number, seed: number): { x: Float32Array; y: BigInt64Array } {
  let s = seed;
  const rnd = (): number => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 4294967296;
  };
  const gauss = (): number => Math.sqrt(-2 * Math.log(1 - rnd())) * Math.cos(2 * Math.PI * rnd());
  const x = new Float32Array(n * 8);
  const y = new BigInt64Array(n);
  for (let i = 0; i < n; i++) {
    const c = i % 3;
    y[i] = BigInt(c);
    for (let j = 0; j < 8; j++) x[i * 8 + j] = (j === c ? 2 : 0) + 0.7 * gauss();
  }
  return { x, y };
}

function slice(data: { x: Float32Array; y: BigInt64Array }, from: number, n: number): { x: Feed; y: Feed } {
  return {
    x: { data: data.x.subarray(from * 8, (from + n) * 8), dims: [n, 8] },
    y: { data: data.y.subarray(from, from + n), dims: [n] },
  };
}

describe('TrainStepRunner on a hashed bag-of-features model', () => {
  it('learns which hashed feature ids signal which class, through embedding-bag gradients', async () => {
    // ids [B, 4] into a 64-row table: one signal id < 32 whose parity is the class, two noise
    // ids (even, 32…62) and padding id 63 with weight 0.
    type P = 'table' | 'w' | 'b';
    const spec: ModelSpec<P, 'ids' | 'wts' | 'y'> = {
      name: 'bag',
      params: { table: { shape: [64, 8], init: { normal: 0.1 } }, w: { shape: [8, 2] }, b: { shape: [2] } },
      inputs: { ids: { dtype: 'int64', shape: ['B', 4] }, wts: { dtype: 'float32', shape: ['B', 4] }, y: { dtype: 'int64', shape: ['B'] } },
    };
    const graph = buildTrainStep(spec, (g, p, x) => {
      const bag = g.embeddingBag(p.table, x.ids, { weights: x.wts }); // [B, 8]
      const logp = g.logSoftmax(g.gemm(g.tanh(bag), p.w, p.b)); // [B, 2]
      return g.neg(g.reduceMean(g.reduceSum(g.mul(logp, g.oneHot(x.y, 2)), [1])));
    });
    const B = 32;
    const ids = new BigInt64Array(B * 4);
    const wts = new Float32Array(B * 4);
    const y = new BigInt64Array(B);
    for (let i = 0; i < B; i++) {
      const c = i % 2;
      y[i] = BigInt(c);
      ids.set([BigInt(2 * ((i * 7) % 16) + c), BigInt(32 + 2 * (i % 16)), BigInt(32 + 2 * ((i * 3) % 16)), 63n], i * 4);
      wts.set([1, 1, 1, 0], i * 4);
    }
    const runner = await TrainStepRunner.create(graph, initParams(spec.params, 2), { hyper: { lr: 0.05 }, session: { intraOpNumThreads: 1 } });
    const batch = { ids: { data: ids, dims: [B, 4] }, wts: { data: wts, dims: [B, 4] }, y: { data: y, dims: [B] } };
    const first = (await runner.step(batch)).loss;
    let last = first;
    for (let i = 0; i < 100; i++) last = (await runner.step(batch)).loss;
    expect(last).toBeLessThan(0.2 * first);
    // Row 63 is only ever padding (weight 0), so its gradient is zero and only AdamW's weight
    // decay (the table is rank 2) moves it: by (1 − lr·wd) per step, 101 steps.
    const pad = initParams(spec.params, 2).table.subarray(63 * 8);
    const decay = (1 - 0.05 * 0.01) ** 101;
    runner.weights.table.subarray(63 * 8).forEach((v, k) => expect(v).toBeCloseTo(pad[k]! * decay, 6));
    await runner.dispose();
  });
});

describe('TrainStepRunner on an MLP', () => {
  const spec = mlpSpec('toy', [8, 16, 3]);

  it('learns a separable problem in 200 steps; weights move, AdamW state updates', async () => {
    const data = blobs(256, 7);
    const initial = initParams(spec.params, 3);
    const runner = await TrainStepRunner.create(buildTrainStep(spec, mlpLoss), initial, {
      hyper: { lr: 0.01, maxGradNorm: 5 },
      session: { intraOpNumThreads: 1 },
    });
    const losses: number[] = [];
    for (let step = 0; step < 200; step++) {
      const res = await runner.step(slice(data, (step % 4) * 64, 64));
      expect(Number.isFinite(res.loss) && Number.isFinite(res.gradNorm)).toBe(true);
      losses.push(res.loss);
    }
    const first = losses.slice(0, 10).reduce((a, b) => a + b) / 10;
    const last = losses.slice(-10).reduce((a, b) => a + b) / 10;
    expect(last).toBeLessThan(0.25 * first);

    const state = runner.snapshot();
    expect(state.step).toBe(200);
    for (const p of Object.keys(spec.params)) {
      const moved = state.weights[p]!.some((v, i) => Math.abs(v - initial[p]![i]!) > 1e-3);
      expect(moved, `${p} moved`).toBe(true);
      expect(
        state.m[p]!.some((v) => v !== 0),
        `m of ${p} updated`,
      ).toBe(true);
      expect(state.v[p]!.every((v) => v >= 0) && state.v[p]!.some((v) => v > 0), `v of ${p} updated`).toBe(true);
    }

    // Held-out accuracy through the inference graph, weights baked in and fed as inputs.
    const test = blobs(90, 99);
    const baked = await ForwardRunner.create(buildForward(spec, mlpForward, { weights: state.weights }), { intraOpNumThreads: 1 });
    const fed = await ForwardRunner.create(buildForward(spec, mlpForward), { intraOpNumThreads: 1 });
    expect(baked.graph.inputs.map((i) => i.name)).toEqual(['x']);
    expect(fed.graph.inputs.map((i) => i.name)).toEqual(['w0', 'b0', 'w1', 'b1', 'x']);
    const x = { data: test.x, dims: [90, 8] };
    const probs = (await baked.run({ x })).probs!;
    const weightFeeds: Record<string, Feed> = {};
    for (const [p, s] of Object.entries(spec.params)) weightFeeds[p] = { data: state.weights[p]!, dims: s.shape };
    const probs2 = (await fed.run({ ...weightFeeds, x })).probs!;
    expect(probs.dims).toEqual([90, 3]);
    const pa = probs.data as Float32Array;
    const pb = probs2.data as Float32Array;
    pa.forEach((v, i) => expect(v).toBeCloseTo(pb[i]!, 5));
    let correct = 0;
    for (let i = 0; i < 90; i++) {
      const row = Array.from(pa.subarray(i * 3, i * 3 + 3));
      if (row.indexOf(Math.max(...row)) === Number(test.y[i])) correct++;
    }
    expect(correct / 90).toBeGreaterThan(0.9);
    await Promise.all([runner.dispose(), baked.dispose(), fed.dispose()]);
  });

  it('resumes from a snapshot exactly', async () => {
    const data = blobs(64, 1);
    const graph = buildTrainStep(spec, mlpLoss);
    const a = await TrainStepRunner.create(graph, initParams(spec.params, 5), { session: { intraOpNumThreads: 1 } });
    await a.step(slice(data, 0, 32));
    const b = await TrainStepRunner.create(graph, a.snapshot(), { session: { intraOpNumThreads: 1 } });
    const ra = await a.step(slice(data, 32, 32));
    const rb = await b.step(slice(data, 32, 32));
    expect(rb.loss).toBe(ra.loss);
    expect(Array.from(b.weights.w0!)).toEqual(Array.from(a.weights.w0!));
    expect(b.snapshot().step).toBe(2);
    await Promise.all([a.dispose(), b.dispose()]);
  });

  it('loads a state into the memory it holds, and a misshapen state changes nothing', async () => {
    const data = blobs(64, 1);
    const runner = await TrainStepRunner.create(buildTrainStep(spec, mlpLoss), initParams(spec.params, 5), { session: { intraOpNumThreads: 1 } });
    const start = runner.snapshot();
    const w0 = runner.weights.w0!;
    await runner.step(slice(data, 0, 32));
    const after = runner.snapshot();
    expect(() => runner.load({ ...start, weights: { ...start.weights, b0: new Float32Array(1) } })).toThrow(/weights of 'b0': 1 values/);
    expect(runner.snapshot()).toEqual(after);
    runner.load(start);
    expect(runner.weights.w0).toBe(w0); // the same memory, reloaded
    expect(runner.snapshot()).toEqual(start);
    const again = await runner.step(slice(data, 0, 32));
    runner.load(start);
    expect((await runner.step(slice(data, 0, 32))).loss).toBe(again.loss);
    await runner.dispose();
  });

  it('names what is missing or misshapen in a batch', async () => {
    const runner = await TrainStepRunner.create(buildTrainStep(spec, mlpLoss), initParams(spec.params, 5), { session: { intraOpNumThreads: 1 } });
    const batch = slice(blobs(4, 1), 0, 4);
    await expect(runner.step({ x: batch.x } as never)).rejects.toThrow(/missing batch input 'y'/);
    await expect(runner.step({ x: { data: new Float32Array(5), dims: [4, 8] }, y: batch.y })).rejects.toThrow(/input 'x': 5 elements/);
    await runner.dispose();
  });
});

describe('usesScatterReduction', () => {
  it('finds scatters that add, not ones that write distinct places, nor a plain MLP forward', () => {
    const spec = mlpSpec('m', [4, 3, 2]);
    const fwd = buildForward(spec, mlpForward, { weights: initParams(spec.params, 1) });
    expect(usesScatterReduction(fwd.bytes)).toBe(false);
    const scatter = (reduction: 'add' | 'none') => {
      const g = new Graph('s');
      g.output('y', g.scatterND(g.input('x', 'float32', [4, 2]), g.input('i', 'int64', [2, 1]), g.input('u', 'float32', [2, 2]), reduction));
      return g.encode();
    };
    expect(usesScatterReduction(scatter('add'))).toBe(true);
    expect(usesScatterReduction(scatter('none'))).toBe(false);
  });
});
