/**
 * Finite-difference checks of every gradient rule. Each case builds a float32 graph
 * x → op → out, a scalar loss L = Σ out ⊙ R with a fixed random R (so every output element
 * matters with a different weight), and compares the graph's ∂L/∂x against central
 * differences (L(x + ε) − L(x − ε)) / 2ε evaluated by onnxruntime, accumulated in float64.
 */
import { describe, expect, it } from 'vitest';
import { Tensor as OrtTensor } from 'onnxruntime-node';
import { createSession } from '../session';
import { DIFFERENTIABLE_OPS, Graph, gradients } from './index';
import { ONE_HOT_GATHER_MAX_ROWS } from './grad';
import type { Dim, Tensor } from './index';

interface CaseInput {
  /** Graph shape; may be symbolic. */
  dims: readonly Dim[];
  /** Concrete feed shape (defaults to `dims` when those are all numbers). */
  feed?: readonly number[];
  dtype?: 'float32' | 'int64';
  /** Explicit values; otherwise seeded uniform values in [lo, hi]. */
  values?: readonly number[];
  range?: [number, number];
  /** Whether to check the gradient of this input (default: float32 inputs). */
  check?: boolean;
  /** Values must keep this distance from these kinks (Relu at 0, Clip bounds, …). */
  avoid?: readonly number[];
}

interface CaseOptions {
  eps?: number;
  rtol?: number;
  atol?: number;
}

let seed = 12345;
function rand(): number {
  seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
  return seed / 4294967296;
}

function uniform(n: number, [lo, hi]: [number, number], avoid: readonly number[] = []): number[] {
  return Array.from({ length: n }, () => {
    for (;;) {
      const v = lo + (hi - lo) * rand();
      if (avoid.every((k) => Math.abs(v - k) > 0.05)) return v;
    }
  });
}

/** Binds symbolic dimensions to the concrete feed sizes, so R's feed shape can be resolved. */
function resolveDims(dims: readonly Dim[], bind: Map<string, number>): number[] {
  return dims.map((d) => {
    if (typeof d === 'number') return d;
    return d.split('*').reduce((p, s) => {
      const v = /^\d+$/.test(s) ? Number(s) : bind.get(s);
      if (v === undefined) throw new Error(`test harness: cannot resolve dimension ${d}`);
      return p * v;
    }, 1);
  });
}

const covered = new Set<string>();

async function gradCheck(inputs: Record<string, CaseInput>, build: (g: Graph, x: Record<string, Tensor>) => Tensor, opts: CaseOptions = {}): Promise<void> {
  const { eps = 1e-2, rtol = 1e-2, atol = 2e-3 } = opts;
  const g = new Graph('check');
  const xs: Record<string, Tensor> = {};
  const bind = new Map<string, number>();
  const feeds: Record<string, OrtTensor> = {};
  for (const [name, spec] of Object.entries(inputs)) {
    const dtype = spec.dtype ?? 'float32';
    xs[name] = g.input(name, dtype, spec.dims);
    const feed = spec.feed ?? (spec.dims as number[]);
    spec.dims.forEach((d, i) => typeof d === 'string' && bind.set(d, feed[i]!));
    const n = feed.reduce((a, d) => a * d, 1);
    const values = spec.values ?? uniform(n, spec.range ?? [-1, 1], spec.avoid);
    expect(values.length).toBe(n);
    feeds[name] =
      dtype === 'float32'
        ? new OrtTensor('float32', Float32Array.from(values), feed)
        : new OrtTensor('int64', BigInt64Array.from(values.map((v) => BigInt(v))), feed);
  }
  const out = build(g, xs);
  const r = g.input('R', 'float32', out.shape);
  const rDims = resolveDims(out.shape, bind);
  feeds.R = new OrtTensor(
    'float32',
    Float32Array.from(
      uniform(
        rDims.reduce((a, d) => a * d, 1),
        [-1, 1],
      ),
    ),
    rDims,
  );
  const loss = g.reduceSum(g.mul(out, r));
  const checked = Object.keys(inputs).filter((k) => inputs[k]!.check ?? (inputs[k]!.dtype ?? 'float32') === 'float32');
  const grads = gradients(
    g,
    loss,
    checked.map((k) => xs[k]!),
  );
  for (const node of g.nodes) covered.add(node.opType);
  g.output('loss', loss);
  checked.forEach((k, i) => g.output(`grad.${k}`, grads[i]!));

  const { session } = await createSession(g.encode(), { intraOpNumThreads: 1 }, 'grad check');
  const base = await session.run(feeds);
  const lossAt = async (name: string, i: number, delta: number): Promise<number> => {
    const t = feeds[name]!;
    const data = Float32Array.from(t.data as Float32Array);
    data[i] = data[i]! + delta;
    const res = await session.run({ ...feeds, [name]: new OrtTensor('float32', data, t.dims) }, ['loss']);
    return (res.loss!.data as Float32Array)[0]!;
  };
  for (const name of checked) {
    const analytic = base[`grad.${name}`]!.data as Float32Array;
    const n = (feeds[name]!.data as Float32Array).length;
    expect(analytic.length, `gradient of ${name} has the input's size`).toBe(n);
    for (let i = 0; i < n; i++) {
      const numeric = ((await lossAt(name, i, eps)) - (await lossAt(name, i, -eps))) / (2 * eps);
      const a = analytic[i]!;
      const tol = atol + rtol * Math.max(Math.abs(a), Math.abs(numeric));
      if (Math.abs(a - numeric) > tol) {
        throw new Error(`∂L/∂${name}[${i}]: graph ${a}, finite difference ${numeric}`);
      }
    }
  }
  await session.release();
}

describe('gradients match finite differences', () => {
  it('Identity, Neg, Cast (float → float)', async () => {
    await gradCheck({ x: { dims: [2, 3] } }, (g, { x }) => g.cast(g.neg(g.identity(x!)), 'float32'));
  });

  it('a tensor used several times sums its gradient contributions', async () => {
    await gradCheck({ x: { dims: [2, 3] } }, (g, { x }) => g.add(g.mul(x!, x!), g.tanh(x!)));
  });

  it('Add, Sub, Mul, Div with equal shapes', async () => {
    const inputs = { a: { dims: [2, 3] }, b: { dims: [2, 3], range: [0.5, 2] as [number, number] } };
    await gradCheck(inputs, (g, { a, b }) => g.add(a!, b!));
    await gradCheck(inputs, (g, { a, b }) => g.sub(a!, b!));
    await gradCheck(inputs, (g, { a, b }) => g.mul(a!, b!));
    await gradCheck(inputs, (g, { a, b }) => g.div(a!, b!));
  });

  it('broadcasting reduces gradients back to each input shape', async () => {
    // [2, 3] ∘ [3], [2, 1] ∘ [1, 3], [] ∘ [2, 3], [4, 1, 3] ∘ [2, 1]
    const pairs: [readonly number[], readonly number[]][] = [
      [[2, 3], [3]],
      [
        [2, 1],
        [1, 3],
      ],
      [[], [2, 3]],
      [
        [4, 1, 3],
        [2, 1],
      ],
    ];
    for (const [sa, sb] of pairs) {
      const inputs = { a: { dims: sa }, b: { dims: sb, range: [0.5, 2] as [number, number] } };
      await gradCheck(inputs, (g, { a, b }) => g.add(a!, b!));
      await gradCheck(inputs, (g, { a, b }) => g.sub(a!, b!));
      await gradCheck(inputs, (g, { a, b }) => g.mul(a!, b!));
      await gradCheck(inputs, (g, { a, b }) => g.div(a!, b!));
    }
  });

  it('broadcasting against a symbolic batch dimension', async () => {
    await gradCheck({ x: { dims: ['B', 3], feed: [4, 3] }, b: { dims: [3] }, s: { dims: ['B', 1], feed: [4, 1] } }, (g, { x, b, s }) =>
      g.mul(g.add(x!, b!), s!),
    );
  });

  it('Pow (base and exponent)', async () => {
    await gradCheck({ a: { dims: [2, 3], range: [0.5, 2] }, b: { dims: [3], range: [0.5, 2.5] } }, (g, { a, b }) => g.pow(a!, b!), { eps: 1e-3 });
    await gradCheck({ a: { dims: [4], range: [0.5, 2] } }, (g, { a }) => g.pow(a!, 3));
  });

  it('Min and Max (away from ties)', async () => {
    const inputs = { a: { dims: [2, 3], values: [0.1, -0.7, 0.9, 0.3, -0.2, 0.6] }, b: { dims: [3], values: [-0.3, 0.4, 0.2] } };
    await gradCheck(inputs, (g, { a, b }) => g.min(a!, b!), { eps: 1e-3 });
    await gradCheck(inputs, (g, { a, b }) => g.max(a!, b!), { eps: 1e-3 });
  });

  it('Relu, Tanh, Sigmoid, Exp, Log, Sqrt', async () => {
    await gradCheck({ x: { dims: [3, 4], avoid: [0] } }, (g, { x }) => g.relu(x!), { eps: 1e-3 });
    await gradCheck({ x: { dims: [3, 4] } }, (g, { x }) => g.tanh(x!));
    await gradCheck({ x: { dims: [3, 4] } }, (g, { x }) => g.sigmoid(x!));
    await gradCheck({ x: { dims: [3, 4] } }, (g, { x }) => g.exp(x!));
    await gradCheck({ x: { dims: [3, 4], range: [0.5, 3] } }, (g, { x }) => g.log(x!));
    await gradCheck({ x: { dims: [3, 4], range: [0.5, 3] } }, (g, { x }) => g.sqrt(x!));
  });

  it('Softmax and LogSoftmax on the last and a middle axis', async () => {
    await gradCheck({ x: { dims: [2, 5], range: [-2, 2] } }, (g, { x }) => g.softmax(x!, -1));
    await gradCheck({ x: { dims: [2, 3, 4], range: [-2, 2] } }, (g, { x }) => g.softmax(x!, 1));
    await gradCheck({ x: { dims: [2, 5], range: [-2, 2] } }, (g, { x }) => g.logSoftmax(x!, -1));
    await gradCheck({ x: { dims: [2, 3, 4], range: [-2, 2] } }, (g, { x }) => g.logSoftmax(x!, 1));
  });

  it('Clip (input and bounds)', async () => {
    const x = { dims: [2, 4], range: [-1, 1] as [number, number], avoid: [-0.4, 0.5] };
    await gradCheck({ x }, (g, { x }) => g.clip(x!, -0.4, 0.5), { eps: 1e-3 });
    await gradCheck({ x, lo: { dims: [], values: [-0.4] }, hi: { dims: [], values: [0.5] } }, (g, { x, lo, hi }) => g.clip(x!, lo, hi), { eps: 1e-3 });
    await gradCheck({ x }, (g, { x }) => g.clip(x!, undefined, 0.5), { eps: 1e-3 });
  });

  it('Where (both branches, broadcasting)', async () => {
    await gradCheck({ c: { dims: [2, 3], avoid: [0], check: false }, a: { dims: [2, 3] }, b: { dims: [3] } }, (g, { c, a, b }) =>
      g.where(g.greater(c!, 0), a!, b!),
    );
  });

  it('MatMul: 2-D, batched, N-D against a shared matrix, broadcast batch', async () => {
    await gradCheck({ a: { dims: [3, 4] }, b: { dims: [4, 2] } }, (g, { a, b }) => g.matMul(a!, b!));
    await gradCheck({ a: { dims: [2, 3, 4] }, b: { dims: [2, 4, 2] } }, (g, { a, b }) => g.matMul(a!, b!));
    await gradCheck({ a: { dims: [2, 3, 4] }, b: { dims: [4, 2] } }, (g, { a, b }) => g.matMul(a!, b!));
    await gradCheck({ a: { dims: ['B', 3, 4], feed: [2, 3, 4] }, b: { dims: [4, 2] } }, (g, { a, b }) => g.matMul(a!, b!));
    await gradCheck({ a: { dims: [2, 1, 3, 4] }, b: { dims: [3, 4, 2] } }, (g, { a, b }) => g.matMul(a!, b!));
  });

  it('Gemm with every transpose combination, alpha, beta and a broadcast C', async () => {
    for (const transA of [false, true]) {
      for (const transB of [false, true]) {
        const a = { dims: transA ? [4, 3] : [3, 4] };
        const b = { dims: transB ? [2, 4] : [4, 2] };
        await gradCheck({ a, b, c: { dims: [2] } }, (g, x) => g.gemm(x.a!, x.b!, x.c, { transA, transB, alpha: 0.7, beta: 1.3 }));
      }
    }
    await gradCheck({ a: { dims: ['B', 4], feed: [3, 4] }, b: { dims: [4, 2] }, c: { dims: ['B', 1], feed: [3, 1] } }, (g, x) => g.gemm(x.a!, x.b!, x.c));
    await gradCheck({ a: { dims: [3, 4] }, b: { dims: [4, 2] } }, (g, x) => g.gemm(x.a!, x.b!));
  });

  it('Gather: embedding rows with repeated indices accumulate', async () => {
    const idx = { dims: [2, 3], dtype: 'int64' as const, values: [0, 2, 2, 4, 0, 2] };
    await gradCheck({ table: { dims: [5, 3] }, idx }, (g, { table, idx }) => g.gather(table!, idx!, 0));
    await gradCheck({ table: { dims: [5, 3] }, i: { dims: [], dtype: 'int64', values: [3] } }, (g, { table, i }) => g.gather(table!, i!, 0));
  });

  it('embedding bags: sum, mean and weighted over hashed feature indices', async () => {
    const idx = { dims: ['B', 3], feed: [2, 3], dtype: 'int64' as const, values: [1, 5, 1, 0, 2, 7] };
    const table = { dims: [8, 4] };
    await gradCheck({ table, idx }, (g, { table, idx }) => g.embeddingBag(table!, idx!));
    await gradCheck({ table, idx }, (g, { table, idx }) => g.embeddingBag(table!, idx!, { mode: 'mean' }));
    await gradCheck({ table, idx, w: { dims: ['B', 3], feed: [2, 3] } }, (g, { table, idx, w }) => g.embeddingBag(table!, idx!, { weights: w! }));
  });

  it('Gather from a table above the one-hot limit accumulates by scatter-add', async () => {
    const idx = { dims: [2, 2], dtype: 'int64' as const, values: [0, ONE_HOT_GATHER_MAX_ROWS, 0, 7] };
    await gradCheck({ table: { dims: [ONE_HOT_GATHER_MAX_ROWS + 1, 1] }, idx }, (g, { table, idx }) => g.gather(table!, idx!, 0));
  });

  it('gatherRows: distinct rows, scattered back without accumulation', async () => {
    const rows = { dims: ['U'], feed: [3], dtype: 'int64' as const, values: [4, 0, 2] };
    await gradCheck({ table: { dims: [5, 3] }, rows }, (g, { table, rows }) => g.gatherRows(table!, rows!));
  });

  it('Gemm reads a declared transpose for its weight gradient', async () => {
    const a = [0.3, -0.2, 0.9, 0.1, -0.7, 0.4, 0.05, 0.6, -0.5, 0.8, -0.1, 0.2]; // [3, 4]
    const aT = [0, 1, 2, 3].flatMap((k) => [0, 1, 2].map((m) => a[m * 4 + k]!)); // [4, 3]
    await gradCheck({ a: { dims: [3, 4], values: a }, aT: { dims: [4, 3], values: aT, check: false }, b: { dims: [4, 2] } }, (g, x) => {
      g.declareTranspose(x.a!, x.aT!);
      return g.gemm(x.a!, x.b!);
    });
  });

  it('GatherElements (the log-prob of taken actions)', async () => {
    await gradCheck({ x: { dims: [3, 4] }, i: { dims: [3, 2], dtype: 'int64', values: [0, 3, 1, 1, 2, 0] } }, (g, { x, i }) => g.gatherElements(x!, i!, 1));
    // Fewer index rows than data rows: the scatter-add form.
    await gradCheck({ x: { dims: [3, 4] }, i: { dims: [2, 2], dtype: 'int64', values: [0, 3, 3, 3] } }, (g, { x, i }) => g.gatherElements(x!, i!, 1));
  });

  it('ReduceSum and ReduceMean over some or all axes, with and without keepdims', async () => {
    const x = { dims: [2, 3, 4] };
    await gradCheck({ x }, (g, { x }) => g.reduceSum(x!, [1]));
    await gradCheck({ x }, (g, { x }) => g.reduceSum(x!, [0, 2], true));
    await gradCheck({ x }, (g, { x }) => g.reduceSum(x!));
    await gradCheck({ x }, (g, { x }) => g.reduceMean(x!, [-1]));
    await gradCheck({ x }, (g, { x }) => g.reduceMean(x!, [0, 1], true));
    await gradCheck({ x }, (g, { x }) => g.reduceMean(x!));
  });

  it('ReduceMean over a symbolic batch axis divides by the run-time count', async () => {
    await gradCheck({ x: { dims: ['B', 3], feed: [5, 3] } }, (g, { x }) => g.reduceMean(x!, [0]));
    await gradCheck({ x: { dims: ['B', 3], feed: [5, 3] } }, (g, { x }) => g.reduceMean(x!));
  });

  it('Concat and Split', async () => {
    await gradCheck({ a: { dims: [2, 3] }, b: { dims: [2, 1] }, c: { dims: [2, 2] } }, (g, { a, b, c }) => g.concat([a!, b!, c!], 1));
    await gradCheck({ x: { dims: [5, 2] } }, (g, { x }) => {
      const [p, q] = g.split(x!, [2, 3], 0);
      return g.mul(g.reduceSum(p!, [0]), g.reduceMean(q!, [0]));
    });
    // Only one piece of a split reaches the loss: the other gets zeros.
    await gradCheck({ x: { dims: [5, 2] } }, (g, { x }) => g.split(x!, [2, 3], 0)[1]!);
  });

  it('Reshape, Transpose, Unsqueeze, Squeeze, Expand', async () => {
    await gradCheck({ x: { dims: [2, 3, 4] } }, (g, { x }) => g.reshape(x!, [-1, 4]));
    await gradCheck({ x: { dims: ['B', 3, 4], feed: [2, 3, 4] } }, (g, { x }) => g.reshape(x!, [-1, 4]));
    await gradCheck({ x: { dims: [2, 3, 4] } }, (g, { x }) => g.transpose(x!, [2, 0, 1]));
    await gradCheck({ x: { dims: [2, 3] } }, (g, { x }) => g.squeeze(g.unsqueeze(x!, [0, 2]), [0]));
    await gradCheck({ x: { dims: [3, 1] } }, (g, { x }) => g.expand(x!, [2, 3, 4]));
  });

  it('a composite: softmax policy loss with one-hot actions and clipping', async () => {
    // PPO-like: −Σ min(r·A, clip(r, 0.8, 1.2)·A) with r = exp(logp − logp_old), one-hot actions.
    await gradCheck(
      {
        w: { dims: [4, 3], range: [-0.5, 0.5] },
        x: { dims: ['B', 4], feed: [3, 4], check: false },
        act: { dims: ['B'], feed: [3], dtype: 'int64', values: [2, 0, 1] },
        adv: { dims: ['B'], feed: [3], check: false, values: [1, -0.5, 0.7] },
      },
      (g, { w, x, act, adv }) => {
        const logp = g.reduceSum(g.mul(g.logSoftmax(g.matMul(x!, w!)), g.oneHot(act!, 3)), [1]); // [B]
        const ratio = g.exp(g.sub(logp, g.identity(g.scalar(-1.1)))); // [B]
        return g.neg(g.reduceMean(g.min(g.mul(ratio, adv!), g.mul(g.clip(ratio, 0.8, 1.2), adv!))));
      },
      { eps: 1e-3 },
    );
  });

  it('covers every op that has a gradient rule', () => {
    const untested = DIFFERENTIABLE_OPS.filter((op) => !covered.has(op));
    expect(untested).toEqual([]);
  });
});

describe('gradients: structure', () => {
  it('gives zeros for a parameter the loss does not use', async () => {
    const g = new Graph('unused');
    const x = g.input('x', 'float32', [2]);
    const y = g.input('y', 'float32', [3]);
    const [dx, dy] = gradients(g, g.reduceSum(g.mul(x, x)), [x, y]);
    g.output('dx', dx!);
    g.output('dy', dy!);
    const { session } = await createSession(g.encode(), { intraOpNumThreads: 1 });
    const res = await session.run({
      x: new OrtTensor('float32', new Float32Array([1, -2]), [2]),
      y: new OrtTensor('float32', new Float32Array(3).fill(5), [3]),
    });
    expect(Array.from(res.dx!.data as Float32Array)).toEqual([2, -4]);
    expect(Array.from(res.dy!.data as Float32Array)).toEqual([0, 0, 0]);
  });

  it('rejects a non-scalar loss and ops without a gradient rule', () => {
    const g = new Graph('bad');
    const x = g.input('x', 'float32', [2]);
    expect(() => gradients(g, x, [x])).toThrow(/float32 scalar/);
    const floor = g.op('Floor', [x], {}, [{ dtype: 'float32', shape: [2] }])[0]!;
    expect(() => gradients(g, g.reduceSum(floor), [x])).toThrow(/no gradient rule for Floor/);
  });

  it('stops at integer values: a path through ArgMax or a comparison is not differentiated', () => {
    const g = new Graph('int');
    const x = g.input('x', 'float32', [2, 3]);
    const mask = g.cast(g.greater(x, 0), 'float32');
    const [dx] = gradients(g, g.reduceSum(g.mul(mask, 2)), [x]);
    expect(dx!.shape).toEqual([2, 3]);
  });
});
