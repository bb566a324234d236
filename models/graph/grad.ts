/**
 * Reverse-mode differentiation as a graph-to-graph transform: `gradients(g, loss, params)`
 * walks the recorded nodes backwards from `loss` and appends, to the same graph, the nodes
 * that compute ∂loss/∂param. There is no runtime tape: onnxruntime runs forward and backward
 * as one graph, and every rule below is checked against finite differences in grad.test.ts.
 *
 * Rules receive the upstream gradients of a node's outputs (each shaped like its output) and
 * return one gradient per input, shaped like that input; broadcasting is undone by summing
 * over the broadcast axes (`unbroadcast`).
 */
import type { Graph, GraphNode, Tensor } from './graph';
import { formatShape, numel, sameShape } from './shape';
import type { Attr } from './types';

/**
 * Tables (and GatherElements axes) up to this size take their gradient as a one-hot product
 * rather than a scatter-add.
 */
export const ONE_HOT_GATHER_MAX_ROWS = 4096;

/** Gradient of one node: `dys[i]` is ∂loss/∂outputs[i] (undefined when no path), `needs[j]` says which inputs want one. */
type GradRule = (g: Graph, node: GraphNode, dys: readonly (Tensor | undefined)[], needs: readonly boolean[]) => (Tensor | undefined)[];

function intAttr(node: GraphNode, name: string, fallback: number): number {
  const a: Attr | undefined = node.attrs[name];
  if (a === undefined) return fallback;
  if (a.type !== 'int') throw new Error(`${node.opType}: attribute ${name} is not an int`);
  return a.value;
}

function intsAttr(node: GraphNode, name: string): readonly number[] | undefined {
  const a: Attr | undefined = node.attrs[name];
  if (a === undefined) return undefined;
  if (a.type !== 'ints') throw new Error(`${node.opType}: attribute ${name} is not a list of ints`);
  return a.value;
}

function floatAttr(node: GraphNode, name: string, fallback: number): number {
  const a: Attr | undefined = node.attrs[name];
  if (a === undefined) return fallback;
  if (a.type !== 'float') throw new Error(`${node.opType}: attribute ${name} is not a float`);
  return a.value;
}

/** Values of a constant int64 input (axes, shapes); rules need them statically. */
function constInts(t: Tensor | undefined, what: string): number[] {
  if (!t?.data || !(t.data instanceof BigInt64Array)) throw new Error(`gradient needs ${what} to be a constant`);
  return Array.from(t.data, Number);
}

const input = (node: GraphNode, i: number): Tensor => {
  const t = node.inputs[i];
  if (!t) throw new Error(`${node.opType}: missing input ${i}`);
  return t;
};

const output = (node: GraphNode): Tensor => node.outputs[0]!;

/**
 * Sums `dy` (shaped like a broadcast result) back to `target`'s shape: leading axes that
 * broadcasting added are summed away, axes where the target has size 1 are summed and kept.
 */
export function unbroadcast(g: Graph, dy: Tensor, target: Tensor): Tensor {
  let r = dy;
  const lead = dy.rank - target.rank;
  if (lead > 0)
    r = g.reduceSum(
      r,
      Array.from({ length: lead }, (_, i) => i),
      false,
    );
  const axes = target.shape.flatMap((d, i) => (d === 1 && r.shape[i] !== 1 ? [i] : []));
  if (axes.length > 0) r = g.reduceSum(r, axes, true);
  if (!sameShape(r.shape, target.shape)) {
    throw new Error(`cannot reduce a gradient ${formatShape(dy.shape)} to ${formatShape(target.shape)}`);
  }
  return r;
}

/** Swaps the last two axes. */
function transposeLast2(g: Graph, x: Tensor): Tensor {
  const perm = x.shape.map((_, i) => i);
  perm[x.rank - 2] = x.rank - 1;
  perm[x.rank - 1] = x.rank - 2;
  return g.transpose(x, perm);
}

function matMulGrad(g: Graph, node: GraphNode, dys: readonly (Tensor | undefined)[], needs: readonly boolean[]): (Tensor | undefined)[] {
  const a = input(node, 0);
  const b = input(node, 1);
  const dy = dys[0]!; // [..., M, N]
  let da: Tensor | undefined;
  let db: Tensor | undefined;
  if (needs[0]) da = unbroadcast(g, g.matMul(dy, transposeLast2(g, b)), a); // [..., M, K]
  if (needs[1]) {
    const k = a.shape[a.rank - 1];
    const n = b.shape[1];
    if (b.rank === 2 && a.rank > 2 && typeof k === 'number' && typeof n === 'number') {
      // A [..., M, K] against a shared weight B [K, N]: fold the batch axes into rows so dB is
      // one [K, rows] @ [rows, N] product rather than a batched product summed afterwards.
      const a2 = g.reshape(a, [-1, k]); // [rows, K]
      const dy2 = g.reshape(dy, [-1, n]); // [rows, N]
      db = g.gemm(a2, dy2, undefined, { transA: true }); // [K, N]
    } else {
      db = unbroadcast(g, g.matMul(transposeLast2(g, a), dy), b); // [..., K, N]
    }
  }
  return [da, db];
}

function gemmGrad(g: Graph, node: GraphNode, dys: readonly (Tensor | undefined)[], needs: readonly boolean[]): (Tensor | undefined)[] {
  const a = input(node, 0);
  const b = input(node, 1);
  const c = node.inputs[2];
  const dy = dys[0]!; // [M, N]
  const alpha = floatAttr(node, 'alpha', 1);
  const beta = floatAttr(node, 'beta', 1);
  const transA = intAttr(node, 'transA', 0) === 1;
  const transB = intAttr(node, 'transB', 0) === 1;
  // With A' = op(A), B' = op(B): dA' = α dY B'ᵀ and dB' = α A'ᵀ dY; transposing back gives:
  let da: Tensor | undefined;
  let db: Tensor | undefined;
  if (needs[0]) {
    da = transA
      ? g.gemm(b, dy, undefined, { alpha, transA: transB, transB: true }) // [K, M]
      : g.gemm(dy, b, undefined, { alpha, transB: !transB }); // [M, K]
  }
  if (needs[1]) {
    const aT = transA ? undefined : g.transposeOf(a);
    if (transB)
      db = g.gemm(dy, a, undefined, { alpha, transA: true, transB: transA }); // [N, K]
    else if (aT)
      db = g.gemm(aT, dy, undefined, { alpha }); // [K, N] from a fed Aᵀ
    else db = g.gemm(a, dy, undefined, { alpha, transA: !transA }); // [K, N]
  }
  const dc = needs[2] && c ? unbroadcast(g, beta === 1 ? dy : g.mul(dy, beta), c) : undefined;
  return [da, db, dc];
}

/** Gradient through a comparison-selected branch: `dy` where `mask`, else 0, reduced to `target`. */
function masked(g: Graph, mask: Tensor, dy: Tensor, target: Tensor, whenTrue: boolean): Tensor {
  const sel = whenTrue ? g.where(mask, dy, 0) : g.where(mask, 0, dy);
  return unbroadcast(g, sel, target);
}

function minMaxGrad(isMin: boolean): GradRule {
  return (g, node, dys, needs) => {
    const a = input(node, 0);
    const b = input(node, 1);
    const dy = dys[0]!;
    // Ties go to the first operand, as a single subgradient.
    const aWins = isMin ? g.lessOrEqual(a, b) : g.greaterOrEqual(a, b);
    return [needs[0] ? masked(g, aWins, dy, a, true) : undefined, needs[1] ? masked(g, aWins, dy, b, false) : undefined];
  };
}

function reduceGrad(mean: boolean): GradRule {
  return (g, node, dys) => {
    const x = input(node, 0);
    const y = output(node);
    const dy = dys[0]!;
    const axes = mean ? (intsAttr(node, 'axes') ?? x.shape.map((_, i) => i)) : constInts(node.inputs[1], 'ReduceSum axes');
    const norm = axes.map((a) => (a < 0 ? a + x.rank : a)).sort((p, q) => p - q);
    const keep = intAttr(node, 'keepdims', 1) === 1;
    const dyKept = keep ? dy : g.unsqueeze(dy, norm); // x's rank, size 1 on reduced axes
    let dx = g.expandLike(dyKept, x); // x's shape
    if (mean) {
      const reduced = norm.map((a) => x.shape[a]!);
      const count = reduced.every((d) => typeof d === 'number')
        ? g.scalar(reduced.reduce((p, d) => p * d, 1))
        : g.cast(g.div(g.sizeOf(x), g.sizeOf(y)), 'float32');
      dx = g.div(dx, count);
    }
    return [dx];
  };
}

const rules: Record<string, GradRule> = {
  Identity: (_g, _n, dys) => [dys[0]],
  Neg: (g, _n, dys) => [g.neg(dys[0]!)],
  Add: (g, n, dys, needs) => [needs[0] ? unbroadcast(g, dys[0]!, input(n, 0)) : undefined, needs[1] ? unbroadcast(g, dys[0]!, input(n, 1)) : undefined],
  Sub: (g, n, dys, needs) => [needs[0] ? unbroadcast(g, dys[0]!, input(n, 0)) : undefined, needs[1] ? unbroadcast(g, g.neg(dys[0]!), input(n, 1)) : undefined],
  Mul: (g, n, dys, needs) => {
    const [a, b, dy] = [input(n, 0), input(n, 1), dys[0]!];
    return [needs[0] ? unbroadcast(g, g.mul(dy, b), a) : undefined, needs[1] ? unbroadcast(g, g.mul(dy, a), b) : undefined];
  },
  Div: (g, n, dys, needs) => {
    const [a, b, y, dy] = [input(n, 0), input(n, 1), output(n), dys[0]!];
    // d(a/b)/db = −a/b² = −y/b
    return [needs[0] ? unbroadcast(g, g.div(dy, b), a) : undefined, needs[1] ? unbroadcast(g, g.neg(g.mul(dy, g.div(y, b))), b) : undefined];
  },
  Pow: (g, n, dys, needs) => {
    const [a, b, y, dy] = [input(n, 0), input(n, 1), output(n), dys[0]!];
    // d(a^b)/da = b·a^(b−1); d(a^b)/db = a^b·ln a (defined for a > 0)
    return [
      needs[0] ? unbroadcast(g, g.mul(dy, g.mul(b, g.pow(a, g.sub(b, 1)))), a) : undefined,
      needs[1] ? unbroadcast(g, g.mul(dy, g.mul(y, g.log(a))), b) : undefined,
    ];
  },
  Min: minMaxGrad(true),
  Max: minMaxGrad(false),
  Relu: (g, n, dys) => [g.where(g.greater(output(n), 0), dys[0]!, 0)],
  Tanh: (g, n, dys) => {
    const y = output(n);
    return [g.mul(dys[0]!, g.sub(1, g.mul(y, y)))];
  },
  Sigmoid: (g, n, dys) => {
    const y = output(n);
    return [g.mul(dys[0]!, g.mul(y, g.sub(1, y)))];
  },
  Exp: (g, n, dys) => [g.mul(dys[0]!, output(n))],
  Log: (g, n, dys) => [g.div(dys[0]!, input(n, 0))],
  Sqrt: (g, n, dys) => [g.div(g.mul(dys[0]!, 0.5), output(n))],
  Softmax: (g, n, dys) => {
    const [y, dy] = [output(n), dys[0]!];
    const axis = intAttr(n, 'axis', -1);
    // dx = y ⊙ (dy − Σ_axis dy ⊙ y)
    return [g.mul(y, g.sub(dy, g.reduceSum(g.mul(dy, y), [axis], true)))];
  },
  LogSoftmax: (g, n, dys) => {
    const [y, dy] = [output(n), dys[0]!];
    const axis = intAttr(n, 'axis', -1);
    // dx = dy − softmax(x) ⊙ Σ_axis dy, and softmax(x) = exp(y)
    return [g.sub(dy, g.mul(g.exp(y), g.reduceSum(dy, [axis], true)))];
  },
  Clip: (g, n, dys, needs) => {
    const [x, lo, hi, dy] = [input(n, 0), n.inputs[1], n.inputs[2], dys[0]!];
    // Inside [lo, hi] (boundaries included) the gradient passes; outside it goes to the bound.
    let inside: Tensor | undefined;
    if (lo) inside = g.greaterOrEqual(x, lo);
    if (hi) inside = inside ? g.and(inside, g.lessOrEqual(x, hi)) : g.lessOrEqual(x, hi);
    const dx = needs[0] ? (inside ? g.where(inside, dy, 0) : dy) : undefined;
    const dlo = needs[1] && lo ? g.reduceSum(g.where(g.less(x, lo), dy, 0)) : undefined;
    const dhi = needs[2] && hi ? g.reduceSum(g.where(g.greater(x, hi), dy, 0)) : undefined;
    return [dx, dlo, dhi];
  },
  Where: (g, n, dys, needs) => {
    const [c, a, b, dy] = [input(n, 0), input(n, 1), input(n, 2), dys[0]!];
    return [undefined, needs[1] ? masked(g, c, dy, a, true) : undefined, needs[2] ? masked(g, c, dy, b, false) : undefined];
  },
  MatMul: matMulGrad,
  Gemm: gemmGrad,
  Gather: (g, n, dys) => {
    const [data, idx, dy] = [input(n, 0), input(n, 1), dys[0]!];
    if (intAttr(n, 'axis', 0) !== 0) throw new Error('Gather: gradients are supported for axis 0 only');
    // dy is [I..., D...] = indices.shape + data.shape[1:], the updates shape ScatterND wants for
    // indices [I..., 1]. Indices must be in [0, V) (hashed feature ids are).
    if (g.isDistinctRowGather(n)) return [g.scatterND(g.zerosLike(data), g.unsqueeze(idx, [-1]), dy, 'none'), undefined];
    // Rows picked several times accumulate. A small table takes the sum as a one-hot product
    // OneHot(idx)ᵀ @ dy, a GEMM that gives the same bits on any number of threads.
    const V = data.shape[0];
    const D = numel(data.shape.slice(1));
    if (typeof V === 'number' && V <= ONE_HOT_GATHER_MAX_ROWS && D !== undefined) {
      const I = g.freshDim(); // indices flattened: one name for both reshapes, so the GEMM's inner sizes agree
      const [flatIdx] = g.op('Reshape', [idx, g.ints([-1])], {}, [{ dtype: 'int64', shape: [I] }]);
      const [flatDy] = g.op('Reshape', [dy, g.ints([-1, D])], {}, [{ dtype: 'float32', shape: [I, D] }]);
      return [g.reshapeLike(g.gemm(g.oneHot(flatIdx!, V), flatDy!, undefined, { transA: true }), data), undefined]; // [V, D] → data's shape
    }
    // A large table: ScatterND with reduction 'add' into zeros [V, D]. onnxruntime's parallel
    // kernel adds repeated rows in thread order, so graphs with it train on one thread
    // (TrainStepRunner); use gatherRows with deduplicated ids to avoid it.
    return [g.scatterND(g.zerosLike(data), g.unsqueeze(idx, [-1]), dy, 'add'), undefined];
  },
  GatherElements: (g, n, dys) => {
    const [data, idx, dy] = [input(n, 0), input(n, 1), dys[0]!];
    const axis = intAttr(n, 'axis', 0);
    const depth = data.shape[axis];
    const othersAgree = idx.shape.every((d, i) => i === axis || d === data.shape[i]);
    if (typeof depth === 'number' && depth <= ONE_HOT_GATHER_MAX_ROWS && othersAgree) {
      // Σ over the picks of OneHot(idx) ⊙ dy: [..., K, depth, ...] summed over K, free of scatters.
      const picked = g.mul(g.oneHot(idx, depth, { axis: axis + 1 }), g.unsqueeze(dy, [axis + 1]));
      return [g.reduceSum(picked, [axis]), undefined];
    }
    return [g.scatterElements(g.zerosLike(data), idx, dy, axis, 'add'), undefined];
  },
  ReduceSum: reduceGrad(false),
  ReduceMean: reduceGrad(true),
  Concat: (g, n, dys) => {
    const axis = intAttr(n, 'axis', 0);
    const sizes = n.inputs.map((t) => t!.shape[axis]!);
    if (!sizes.every((d) => typeof d === 'number')) throw new Error('Concat: gradients need concrete sizes along the concat axis');
    if (sizes.length === 1) return [dys[0]];
    return g.split(dys[0]!, sizes, axis);
  },
  Split: (g, n, dys) => {
    const axis = intAttr(n, 'axis', 0);
    const parts = n.outputs.map((o, i) => dys[i] ?? g.zerosLike(o));
    return [parts.length === 1 ? parts[0] : g.concat(parts, axis), undefined];
  },
  Reshape: (g, n, dys) => [g.reshapeLike(dys[0]!, input(n, 0)), undefined],
  Unsqueeze: (g, n, dys) => [g.reshapeLike(dys[0]!, input(n, 0)), undefined],
  Squeeze: (g, n, dys) => [g.reshapeLike(dys[0]!, input(n, 0)), undefined],
  Transpose: (g, n, dys) => {
    const perm = intsAttr(n, 'perm') ?? input(n, 0).shape.map((_, i, s) => s.length - 1 - i);
    const inv: number[] = [];
    perm.forEach((p, i) => (inv[p] = i));
    return [g.transpose(dys[0]!, inv)];
  },
  Expand: (g, n, dys) => [unbroadcast(g, dys[0]!, input(n, 0)), undefined],
  Cast: (_g, n, dys) => [input(n, 0).dtype === 'float32' ? dys[0] : undefined],
};

/** Op types `gradients` can differentiate through. */
export const DIFFERENTIABLE_OPS: readonly string[] = Object.keys(rules).sort();

function sumAll(g: Graph, parts: readonly Tensor[]): Tensor {
  if (parts.length === 1) return parts[0]!;
  if (parts.length === 2) return g.add(parts[0]!, parts[1]!);
  return g.op('Sum', parts, {}, [{ dtype: parts[0]!.dtype, shape: parts[0]!.shape }])[0]!;
}

/** A gradient that is zero outside some rows: `values [U, ...]` at the distinct row indices `rows [U]`. */
export interface RowSparseGrad {
  rows: Tensor;
  values: Tensor;
}

/**
 * Appends to `g` the gradient of `loss` (a float32 scalar `[]`) with respect to each tensor in
 * `wrt`, and returns them in order, each shaped like its tensor. A tensor the loss does not
 * depend on gets zeros. Throws, naming the op, when a path to the loss crosses an op without
 * a gradient rule.
 */
export function gradients(g: Graph, loss: Tensor, wrt: readonly Tensor[]): Tensor[] {
  return differentiate(g, loss, wrt, false) as Tensor[];
}

/**
 * As `gradients`, except that a graph input reached only through one `gatherRows` lookup gets
 * its gradient as the looked-up rows (`RowSparseGrad`), so an optimiser can update the rest of
 * the table without a dense gradient.
 */
export function rowSparseGradients(g: Graph, loss: Tensor, wrt: readonly Tensor[]): (Tensor | RowSparseGrad)[] {
  return differentiate(g, loss, wrt, true);
}

function differentiate(g: Graph, loss: Tensor, wrt: readonly Tensor[], keepRowSparse: boolean): (Tensor | RowSparseGrad)[] {
  if (loss.dtype !== 'float32' || loss.rank !== 0) {
    throw new Error(`gradients: the loss must be a float32 scalar [], got ${loss.toString()} (reduce it first)`);
  }
  for (const p of wrt) {
    if (p.graph !== g) throw new Error(`gradients: ${p.toString()} belongs to another graph`);
    if (p.dtype !== 'float32') throw new Error(`gradients: cannot differentiate with respect to ${p.toString()} (not float32)`);
  }
  const nodes = g.nodes.slice(); // the rules below append nodes; walk only the forward ones

  // Tensors that depend on some `wrt` through float values.
  const dependsOnWrt = new Set<Tensor>(wrt);
  for (const node of nodes) {
    if (!node.inputs.some((t) => t && dependsOnWrt.has(t))) continue;
    for (const o of node.outputs) if (o.dtype === 'float32') dependsOnWrt.add(o);
  }
  // Tensors the loss depends on.
  const feedsLoss = new Set<Tensor>([loss]);
  for (let i = nodes.length - 1; i >= 0; i--) {
    const node = nodes[i]!;
    if (!node.outputs.some((o) => feedsLoss.has(o))) continue;
    for (const t of node.inputs) if (t) feedsLoss.add(t);
  }
  const onPath = (t: Tensor | undefined): boolean => t !== undefined && dependsOnWrt.has(t) && feedsLoss.has(t);

  const contributions = new Map<Tensor, Tensor[]>();
  const push = (t: Tensor, d: Tensor): void => {
    if (!sameShape(d.shape, t.shape) || d.dtype !== t.dtype) {
      throw new Error(`gradient of ${t.toString()} came out as ${d.toString()}`);
    }
    const list = contributions.get(t);
    if (list) list.push(d);
    else contributions.set(t, [d]);
  };
  const total = (t: Tensor): Tensor | undefined => {
    const list = contributions.get(t);
    if (!list) return undefined;
    const s = sumAll(g, list);
    contributions.set(t, [s]);
    return s;
  };

  const wrtSet = new Set(wrt);
  const sparse = new Map<Tensor, RowSparseGrad[]>();

  push(loss, g.scalar(1));
  for (let i = nodes.length - 1; i >= 0; i--) {
    const node = nodes[i]!;
    const needs = node.inputs.map(onPath);
    if (!needs.some(Boolean)) continue;
    const dys = node.outputs.map(total);
    if (dys.every((d) => d === undefined)) continue;
    const table = node.inputs[0]!;
    if (keepRowSparse && g.isDistinctRowGather(node) && !table.producer && wrtSet.has(table)) {
      sparse.set(table, [...(sparse.get(table) ?? []), { rows: node.inputs[1]!, values: dys[0]! }]);
      continue;
    }
    const rule = rules[node.opType];
    if (!rule) throw new Error(`gradients: no gradient rule for ${node.opType} (used by ${node.outputs[0]?.toString()})`);
    const dxs = rule(g, node, dys, needs);
    node.inputs.forEach((t, j) => {
      if (!t || !needs[j]) return;
      const d = dxs[j];
      if (!d) throw new Error(`gradients: ${node.opType} is not differentiable with respect to input ${j} (${t.toString()})`);
      push(t, d);
    });
  }
  return wrt.map((p) => {
    const rowGrads = sparse.get(p) ?? [];
    if (rowGrads.length === 1 && !contributions.has(p)) return rowGrads[0]!;
    for (const r of rowGrads) push(p, g.scatterND(g.zerosLike(p), g.unsqueeze(r.rows, [-1]), r.values, 'none'));
    return total(p) ?? g.zerosLike(p);
  });
}
