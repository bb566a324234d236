/**
 * A small builder for ONNX graphs (opset 17). Tensors are symbolic values with static shapes
 * and element types; every op checks its operands and infers its output shape when it is
 * called, so a shape mistake fails where the model is written, not inside onnxruntime.
 *
 * The builder knows nothing about training: `grad.ts` reads the recorded nodes and appends
 * gradient nodes to the same graph, and `train-step.ts` wraps that into one AdamW step.
 */
import onnxPkg from 'onnx-proto';
import { broadcastShapes, formatShape, isStatic, normAxis, numel, reshapeShape, sameShape } from './shape';
import type { Attr, DType, Dim, Shape, TensorData, ValueSpec } from './types';
import { ONNX_DTYPE } from './types';

const { onnx } = onnxPkg;

export const OPSET = 17;
export const IR_VERSION = 8;

/** A symbolic tensor: a graph input, an initialiser/constant, or a node output. */
export class Tensor {
  /** @internal set by Graph; a node output can be renamed once when it becomes a graph output. */
  _name: string;

  constructor(
    readonly graph: Graph,
    name: string,
    readonly dtype: DType,
    readonly shape: Shape,
    /** The node that computes this tensor; undefined for inputs, initialisers and constants. */
    readonly producer: GraphNode | undefined,
    /** Elements of an initialiser or constant; undefined otherwise. */
    readonly data?: TensorData,
  ) {
    this._name = name;
  }

  get name(): string {
    return this._name;
  }

  get rank(): number {
    return this.shape.length;
  }

  toString(): string {
    return `${this._name}: ${this.dtype}${formatShape(this.shape)}`;
  }
}

export interface GraphNode {
  readonly opType: string;
  /** Inputs in ONNX order; undefined marks an omitted optional input. */
  readonly inputs: readonly (Tensor | undefined)[];
  readonly outputs: readonly Tensor[];
  readonly attrs: Readonly<Record<string, Attr>>;
}

/** A tensor or a plain number, which becomes a scalar constant of the other operand's type. */
export type Operand = Tensor | number;

export interface GemmOptions {
  alpha?: number;
  beta?: number;
  transA?: boolean;
  transB?: boolean;
}

export interface OneHotOptions {
  /** Value at the hot position (default 1). */
  on?: number;
  /** Value elsewhere (default 0). */
  off?: number;
  /** Where the new depth axis goes in the output (default -1, last). */
  axis?: number;
}

export interface EmbeddingBagOptions {
  /** How a bag's rows combine: sum (default) or mean over the bag axis. */
  mode?: 'sum' | 'mean';
  /**
   * Optional per-item weights `[..., L]` (same shape as the indices), e.g. TF-IDF weights or a
   * 0/1 padding mask; the bag becomes Σ w_i · row_i (mode 'sum') or Σ w_i · row_i / L ('mean').
   */
  weights?: Tensor;
}

function dtypeOf(data: TensorData): DType {
  if (data instanceof Float32Array) return 'float32';
  if (data instanceof BigInt64Array) return 'int64';
  return 'bool';
}

const FLOAT_ONLY = new Set(['Relu', 'Tanh', 'Sigmoid', 'Exp', 'Log', 'Sqrt', 'Softmax', 'LogSoftmax']);

export class Graph {
  private readonly nodeList: GraphNode[] = [];
  private readonly inputList: Tensor[] = [];
  private readonly initList: Tensor[] = [];
  private readonly outputList: Tensor[] = [];
  private readonly usedNames = new Set<string>();
  private readonly constCache = new Map<string, Tensor>();
  /** Gather nodes made by `gatherRows`, whose indices the caller guarantees are distinct. */
  private readonly distinctRowGathers = new WeakSet<GraphNode>();
  /** Inputs that hold only the rows `gatherRows` reads of a table (`feedRows`). */
  private readonly rowFed = new WeakSet<Tensor>();
  /** Inputs fed with the transpose of another input (`declareTranspose`). */
  private readonly transposes = new Map<Tensor, Tensor>();
  private counter = 0;

  constructor(readonly name = 'graph') {}

  /** Nodes in creation order, which is a topological order. */
  get nodes(): readonly GraphNode[] {
    return this.nodeList;
  }

  get inputs(): readonly Tensor[] {
    return this.inputList;
  }

  get outputs(): readonly Tensor[] {
    return this.outputList;
  }

  // ---------------------------------------------------------------- values

  /** Declares a graph input, fed at run time. */
  input(name: string, dtype: DType, shape: Shape): Tensor {
    this.claim(name);
    for (const d of shape) {
      if (typeof d === 'number' && (!Number.isInteger(d) || d < 0)) throw new Error(`input '${name}': invalid dimension ${d}`);
    }
    const t = new Tensor(this, name, dtype, [...shape], undefined);
    this.inputList.push(t);
    return t;
  }

  /** A named initialiser (weights baked into the model). `data` is row-major, length = Π shape. */
  initializer(name: string, data: TensorData, shape: readonly number[]): Tensor {
    this.claim(name);
    return this.addInit(name, data, shape);
  }

  private addInit(name: string, data: TensorData, shape: readonly number[]): Tensor {
    const n = numel(shape) ?? -1;
    if (data.length !== n) {
      throw new Error(`initializer '${name}': ${data.length} elements do not fill shape ${formatShape(shape)} (${n})`);
    }
    const t = new Tensor(this, name, dtypeOf(data), [...shape], undefined, data);
    this.initList.push(t);
    return t;
  }

  /** An anonymous constant (deduplicated for small values). */
  constant(data: TensorData, shape: readonly number[]): Tensor {
    const key = data.length <= 16 ? `${dtypeOf(data)}|${shape.join(',')}|${Array.from(data as ArrayLike<number | bigint>).join(',')}` : undefined;
    const hit = key === undefined ? undefined : this.constCache.get(key);
    if (hit) return hit;
    const t = this.addInit(this.fresh('const'), data, shape);
    if (key !== undefined) this.constCache.set(key, t);
    return t;
  }

  /** A scalar constant (`[]`) of the given type. */
  scalar(value: number, dtype: DType = 'float32'): Tensor {
    if (dtype === 'float32') return this.constant(new Float32Array([value]), []);
    if (dtype === 'int64') return this.constant(new BigInt64Array([BigInt(Math.trunc(value))]), []);
    return this.constant(new Uint8Array([value ? 1 : 0]), []);
  }

  /** A 1-D int64 constant, the form ONNX wants for axes, shapes and split sizes. */
  ints(values: readonly number[]): Tensor {
    return this.constant(BigInt64Array.from(values.map((v) => BigInt(v))), [values.length]);
  }

  /**
   * Marks `t` as a graph output called `name`. A node output is renamed in place; an input,
   * initialiser or existing output is passed through an Identity node.
   */
  output(name: string, t: Tensor): Tensor {
    this.checkOwn(t, 'output');
    if (t.producer && !this.outputList.includes(t) && !this.usedNames.has(name)) {
      this.usedNames.delete(t._name);
      this.claim(name);
      t._name = name;
      this.outputList.push(t);
      return t;
    }
    this.claim(name);
    const [out] = this.rawOp('Identity', [t], {}, [{ dtype: t.dtype, shape: t.shape }], name);
    this.outputList.push(out!);
    return out!;
  }

  // ---------------------------------------------------------------- generic node

  /**
   * Appends a node with the given output types. This is the escape hatch for ops without a
   * typed method; gradient rules exist only for the ops listed in `grad.ts`.
   */
  op(opType: string, inputs: readonly (Tensor | undefined)[], attrs: Record<string, Attr>, outputs: readonly ValueSpec[]): Tensor[] {
    return this.rawOp(opType, inputs, attrs, outputs);
  }

  private rawOp(
    opType: string,
    inputs: readonly (Tensor | undefined)[],
    attrs: Record<string, Attr>,
    outputs: readonly ValueSpec[],
    outName?: string,
  ): Tensor[] {
    for (const t of inputs) if (t) this.checkOwn(t, opType);
    if (FLOAT_ONLY.has(opType) && inputs[0]?.dtype !== 'float32') {
      throw new Error(`${opType}: needs a float32 input, got ${inputs[0]?.toString()}`);
    }
    const outs: Tensor[] = [];
    const node: GraphNode = { opType, inputs: [...inputs], outputs: outs, attrs };
    for (const spec of outputs) {
      const name = outName !== undefined && outs.length === 0 ? outName : this.fresh(opType);
      outs.push(new Tensor(this, name, spec.dtype, [...spec.shape], node));
    }
    this.nodeList.push(node);
    return outs;
  }

  private op1(opType: string, inputs: readonly (Tensor | undefined)[], attrs: Record<string, Attr>, dtype: DType, shape: Shape): Tensor {
    return this.rawOp(opType, inputs, attrs, [{ dtype, shape }])[0]!;
  }

  /** A fresh symbolic dimension for sizes the builder cannot express (e.g. an odd reshape). */
  freshDim(): string {
    return `d${++this.counter}`;
  }

  // ---------------------------------------------------------------- elementwise

  /** Lifts numbers to scalar constants of the tensor operand's type, and checks dtypes agree. */
  private pair(op: string, a: Operand, b: Operand): [Tensor, Tensor] {
    if (typeof a === 'number' && typeof b === 'number') throw new Error(`${op}: at least one operand must be a tensor`);
    const ta = typeof a === 'number' ? this.scalar(a, (b as Tensor).dtype) : a;
    const tb = typeof b === 'number' ? this.scalar(b, ta.dtype) : b;
    if (ta.dtype !== tb.dtype) throw new Error(`${op}: operand types differ (${ta.toString()} vs ${tb.toString()})`);
    return [ta, tb];
  }

  private binary(op: string, a: Operand, b: Operand, outType?: DType): Tensor {
    const [ta, tb] = this.pair(op, a, b);
    return this.op1(op, [ta, tb], {}, outType ?? ta.dtype, broadcastShapes(ta.shape, tb.shape, op));
  }

  private unary(op: string, x: Tensor): Tensor {
    return this.op1(op, [x], {}, x.dtype, x.shape);
  }

  /** a + b, broadcasting. */
  add(a: Operand, b: Operand): Tensor {
    return this.binary('Add', a, b);
  }

  /** a − b, broadcasting. */
  sub(a: Operand, b: Operand): Tensor {
    return this.binary('Sub', a, b);
  }

  /** a · b elementwise, broadcasting. */
  mul(a: Operand, b: Operand): Tensor {
    return this.binary('Mul', a, b);
  }

  /** a / b elementwise, broadcasting. */
  div(a: Operand, b: Operand): Tensor {
    return this.binary('Div', a, b);
  }

  /** a^b elementwise, broadcasting (float32). */
  pow(a: Operand, b: Operand): Tensor {
    return this.binary('Pow', a, b);
  }

  /** Elementwise minimum of two tensors, broadcasting. */
  min(a: Operand, b: Operand): Tensor {
    return this.binary('Min', a, b);
  }

  /** Elementwise maximum of two tensors, broadcasting. */
  max(a: Operand, b: Operand): Tensor {
    return this.binary('Max', a, b);
  }

  neg(x: Tensor): Tensor {
    return this.unary('Neg', x);
  }

  relu(x: Tensor): Tensor {
    return this.unary('Relu', x);
  }

  tanh(x: Tensor): Tensor {
    return this.unary('Tanh', x);
  }

  sigmoid(x: Tensor): Tensor {
    return this.unary('Sigmoid', x);
  }

  exp(x: Tensor): Tensor {
    return this.unary('Exp', x);
  }

  /** Natural log; the gradient is dy/x, so keep x away from 0. */
  log(x: Tensor): Tensor {
    return this.unary('Log', x);
  }

  sqrt(x: Tensor): Tensor {
    return this.unary('Sqrt', x);
  }

  identity(x: Tensor): Tensor {
    return this.unary('Identity', x);
  }

  /** Clamps x to [min, max]; either bound may be omitted. Bounds are scalars. */
  clip(x: Tensor, min?: Operand, max?: Operand): Tensor {
    const lift = (v: Operand | undefined, which: string): Tensor | undefined => {
      if (v === undefined) return undefined;
      const t = typeof v === 'number' ? this.scalar(v, x.dtype) : v;
      if (t.rank !== 0 || t.dtype !== x.dtype) throw new Error(`Clip: ${which} must be a ${x.dtype} scalar, got ${t.toString()}`);
      return t;
    };
    return this.op1('Clip', [x, lift(min, 'min'), lift(max, 'max')], {}, x.dtype, x.shape);
  }

  /** Picks a where cond is true, else b; all three broadcast. */
  where(cond: Tensor, a: Operand, b: Operand): Tensor {
    if (cond.dtype !== 'bool') throw new Error(`Where: condition must be bool, got ${cond.toString()}`);
    const [ta, tb] = this.pair('Where', a, b);
    const shape = broadcastShapes(cond.shape, broadcastShapes(ta.shape, tb.shape, 'Where'), 'Where');
    return this.op1('Where', [cond, ta, tb], {}, ta.dtype, shape);
  }

  greater(a: Operand, b: Operand): Tensor {
    return this.binary('Greater', a, b, 'bool');
  }

  less(a: Operand, b: Operand): Tensor {
    return this.binary('Less', a, b, 'bool');
  }

  greaterOrEqual(a: Operand, b: Operand): Tensor {
    return this.binary('GreaterOrEqual', a, b, 'bool');
  }

  lessOrEqual(a: Operand, b: Operand): Tensor {
    return this.binary('LessOrEqual', a, b, 'bool');
  }

  equal(a: Operand, b: Operand): Tensor {
    return this.binary('Equal', a, b, 'bool');
  }

  and(a: Tensor, b: Tensor): Tensor {
    return this.binary('And', a, b);
  }

  or(a: Tensor, b: Tensor): Tensor {
    return this.binary('Or', a, b);
  }

  not(x: Tensor): Tensor {
    return this.unary('Not', x);
  }

  /** Converts the element type; float → int truncates toward zero. */
  cast(x: Tensor, to: DType): Tensor {
    return this.op1('Cast', [x], { to: { type: 'int', value: ONNX_DTYPE[to] } }, to, x.shape);
  }

  // ---------------------------------------------------------------- linear algebra

  /** Matrix product with NumPy semantics: `[..., M, K] @ [..., K, N] → [..., M, N]` (rank ≥ 2). */
  matMul(a: Tensor, b: Tensor): Tensor {
    if (a.rank < 2 || b.rank < 2) throw new Error(`MatMul: both operands need rank ≥ 2, got ${a.toString()} and ${b.toString()}`);
    if (a.dtype !== 'float32' || b.dtype !== 'float32') throw new Error(`MatMul: needs float32 operands`);
    const k1 = a.shape[a.rank - 1]!;
    const k2 = b.shape[b.rank - 2]!;
    if (k1 !== k2) throw new Error(`MatMul: inner dimensions differ: ${a.toString()} @ ${b.toString()}`);
    const batch = broadcastShapes(a.shape.slice(0, -2), b.shape.slice(0, -2), 'MatMul');
    return this.op1('MatMul', [a, b], {}, 'float32', [...batch, a.shape[a.rank - 2]!, b.shape[b.rank - 1]!]);
  }

  /**
   * Y = alpha · A' @ B' + beta · C, with A' = Aᵀ when transA (and likewise B). A, B are 2-D;
   * C broadcasts to `[M, N]`. The usual dense layer is `gemm(x [B, in], W [in, out], b [out])`.
   */
  gemm(a: Tensor, b: Tensor, c?: Tensor, opts: GemmOptions = {}): Tensor {
    const { alpha = 1, beta = 1, transA = false, transB = false } = opts;
    if (a.rank !== 2 || b.rank !== 2) throw new Error(`Gemm: A and B must be 2-D, got ${a.toString()} and ${b.toString()}`);
    const [m, k1] = transA ? [a.shape[1]!, a.shape[0]!] : [a.shape[0]!, a.shape[1]!];
    const [k2, n] = transB ? [b.shape[1]!, b.shape[0]!] : [b.shape[0]!, b.shape[1]!];
    if (k1 !== k2) throw new Error(`Gemm: inner dimensions differ: ${a.toString()}${transA ? 'ᵀ' : ''} @ ${b.toString()}${transB ? 'ᵀ' : ''}`);
    if (c) {
      const bc = broadcastShapes([m, n], c.shape, 'Gemm');
      if (!sameShape(bc, [m, n])) throw new Error(`Gemm: C ${c.toString()} does not broadcast to [${m}, ${n}]`);
    }
    const attrs: Record<string, Attr> = {
      alpha: { type: 'float', value: alpha },
      beta: { type: 'float', value: beta },
      transA: { type: 'int', value: transA ? 1 : 0 },
      transB: { type: 'int', value: transB ? 1 : 0 },
    };
    return this.op1('Gemm', c ? [a, b, c] : [a, b], attrs, 'float32', [m, n]);
  }

  // ---------------------------------------------------------------- normalisation

  /** Softmax along one axis (opset ≥ 13 semantics: not flattened). */
  softmax(x: Tensor, axis = -1): Tensor {
    normAxis(axis, x.rank, 'Softmax');
    return this.op1('Softmax', [x], { axis: { type: 'int', value: axis } }, x.dtype, x.shape);
  }

  /** log(softmax(x)) along one axis, computed stably. */
  logSoftmax(x: Tensor, axis = -1): Tensor {
    normAxis(axis, x.rank, 'LogSoftmax');
    return this.op1('LogSoftmax', [x], { axis: { type: 'int', value: axis } }, x.dtype, x.shape);
  }

  // ---------------------------------------------------------------- reductions

  private reduceAxes(x: Tensor, axes: readonly number[] | undefined, op: string): number[] {
    const list = axes ?? x.shape.map((_, i) => i);
    const norm = list.map((a) => normAxis(a, x.rank, op));
    if (new Set(norm).size !== norm.length) throw new Error(`${op}: repeated axis in [${list.join(', ')}]`);
    return norm.sort((p, q) => p - q);
  }

  private reducedShape(x: Tensor, axes: readonly number[], keepDims: boolean): Dim[] {
    const out: Dim[] = [];
    x.shape.forEach((d, i) => {
      if (!axes.includes(i)) out.push(d);
      else if (keepDims) out.push(1);
    });
    return out;
  }

  /** Sum over `axes` (all when omitted). */
  reduceSum(x: Tensor, axes?: readonly number[], keepDims = false): Tensor {
    const ax = this.reduceAxes(x, axes, 'ReduceSum');
    if (ax.length === 0) return x;
    // opset 13+: axes is an input tensor.
    return this.op1('ReduceSum', [x, this.ints(ax)], { keepdims: { type: 'int', value: keepDims ? 1 : 0 } }, x.dtype, this.reducedShape(x, ax, keepDims));
  }

  /** Mean over `axes` (all when omitted). */
  reduceMean(x: Tensor, axes?: readonly number[], keepDims = false): Tensor {
    const ax = this.reduceAxes(x, axes, 'ReduceMean');
    if (ax.length === 0) return x;
    // opset < 18: axes is still an attribute.
    const attrs: Record<string, Attr> = { axes: { type: 'ints', value: ax }, keepdims: { type: 'int', value: keepDims ? 1 : 0 } };
    return this.op1('ReduceMean', [x], attrs, x.dtype, this.reducedShape(x, ax, keepDims));
  }

  /** Σ x² over every element → `[]`. Used for gradient norms; not differentiable here. */
  sumSquares(x: Tensor): Tensor {
    const ax = x.shape.map((_, i) => i);
    if (ax.length === 0) return this.mul(x, x);
    return this.op1('ReduceSumSquare', [x], { axes: { type: 'ints', value: ax }, keepdims: { type: 'int', value: 0 } }, x.dtype, []);
  }

  // ---------------------------------------------------------------- indexing

  /** Gather along `axis`: `data [d0.., dA, ..]`, `indices [I..]` → `[d0.., I.., ..]`. */
  gather(data: Tensor, indices: Tensor, axis = 0): Tensor {
    if (indices.dtype !== 'int64') throw new Error(`Gather: indices must be int64, got ${indices.toString()}`);
    const a = normAxis(axis, data.rank, 'Gather');
    const shape = [...data.shape.slice(0, a), ...indices.shape, ...data.shape.slice(a + 1)];
    return this.op1('Gather', [data, indices], { axis: { type: 'int', value: a } }, data.dtype, shape);
  }

  /**
   * Rows of `table [V, ...]` at `rows [U]` (int64), which the caller guarantees are distinct
   * (e.g. the deduplicated feature ids of a batch). The gradient is then row-sparse: `gradients`
   * hands it to the train step as U rows (no dense [V, ...] tensor, no scatter-add), and it is
   * the same on any number of threads.
   */
  gatherRows(table: Tensor, rows: Tensor): Tensor {
    if (rows.rank !== 1) throw new Error(`gatherRows: rows must be 1-D, got ${rows.toString()}`);
    if (this.rowFed.has(table)) {
      if (table.shape[0] !== rows.shape[0])
        throw new Error(`gatherRows: ${table.toString()} is fed with ${String(table.shape[0])} rows, but ${rows.toString()} picks ${String(rows.shape[0])}`);
      return table;
    }
    const out = this.gather(table, rows, 0);
    this.distinctRowGathers.add(out.producer!);
    return out;
  }

  /**
   * Declares that the input `t` is fed with only the rows of a table that `gatherRows(t, rows)`
   * reads (the caller gathers them), so `gatherRows` on it is the identity. A train step whose
   * table is far larger than a batch's rows then moves only those rows in and out.
   */
  feedRows(t: Tensor): void {
    this.checkOwn(t, 'feedRows');
    if (!this.inputList.includes(t)) throw new Error(`feedRows: ${t.toString()} must be a graph input`);
    this.rowFed.add(t);
  }

  /**
   * Declares that the input `tT` is fed with the transpose of the 2-D input `t`. Gradients that
   * need `tᵀ @ dy` (a Gemm's weight gradient) then read `tT` instead of transposing `t`, which
   * onnxruntime's GEMM does about twice as slowly.
   */
  declareTranspose(t: Tensor, tT: Tensor): void {
    this.checkOwn(t, 'declareTranspose');
    this.checkOwn(tT, 'declareTranspose');
    if (!this.inputList.includes(t) || !this.inputList.includes(tT))
      throw new Error(`declareTranspose: ${t.toString()} and ${tT.toString()} must both be graph inputs`);
    if (t.rank !== 2 || !sameShape(tT.shape, [t.shape[1]!, t.shape[0]!]))
      throw new Error(`declareTranspose: ${tT.toString()} is not shaped like the transpose of ${t.toString()}`);
    this.transposes.set(t, tT);
  }

  /** The input declared to hold `t`ᵀ, if any. */
  transposeOf(t: Tensor): Tensor | undefined {
    return this.transposes.get(t);
  }

  /** Was `node` made by `gatherRows` (distinct indices)? */
  isDistinctRowGather(node: GraphNode): boolean {
    return this.distinctRowGathers.has(node);
  }

  /**
   * GatherElements: picks `data` entries at `indices` along `axis`; output has the indices'
   * shape. E.g. the log-prob of the taken action: `gatherElements(logp [B, A], act [B, 1], 1)`.
   */
  gatherElements(data: Tensor, indices: Tensor, axis: number): Tensor {
    if (indices.dtype !== 'int64') throw new Error(`GatherElements: indices must be int64, got ${indices.toString()}`);
    if (indices.rank !== data.rank) throw new Error(`GatherElements: indices ${indices.toString()} and data ${data.toString()} need the same rank`);
    const a = normAxis(axis, data.rank, 'GatherElements');
    return this.op1('GatherElements', [data, indices], { axis: { type: 'int', value: a } }, data.dtype, indices.shape);
  }

  /**
   * Embedding bag over hashed features: `table [V, D]`, `indices [..., L]` (int64 rows) → `[..., D]`,
   * Gather then ReduceSum / ReduceMean over the bag axis L, optionally weighted per item.
   * Pad short bags with any valid row and weight 0.
   */
  embeddingBag(table: Tensor, indices: Tensor, opts: EmbeddingBagOptions = {}): Tensor {
    if (table.rank !== 2) throw new Error(`embeddingBag: table must be [V, D], got ${table.toString()}`);
    if (indices.rank < 1) throw new Error(`embeddingBag: indices need a bag axis, got ${indices.toString()}`);
    let rows = this.gather(table, indices, 0); // [..., L, D]
    const bagAxis = indices.rank - 1;
    if (opts.weights) {
      if (!sameShape(opts.weights.shape, indices.shape)) {
        throw new Error(`embeddingBag: weights ${opts.weights.toString()} must match indices ${indices.toString()}`);
      }
      rows = this.mul(rows, this.unsqueeze(opts.weights, [-1])); // [..., L, D]
    }
    return opts.mode === 'mean' ? this.reduceMean(rows, [bagAxis]) : this.reduceSum(rows, [bagAxis]);
  }

  /**
   * One-hot encoding: int64 `indices [...]` → float32 `[..., depth]` (new axis at `axis`).
   * Not differentiable (its input is integral).
   */
  oneHot(indices: Tensor, depth: number, opts: OneHotOptions = {}): Tensor {
    if (indices.dtype !== 'int64') throw new Error(`OneHot: indices must be int64, got ${indices.toString()}`);
    const { on = 1, off = 0, axis = -1 } = opts;
    const a = normAxis(axis, indices.rank + 1, 'OneHot');
    const shape = [...indices.shape];
    shape.splice(a, 0, depth);
    const values = this.constant(new Float32Array([off, on]), [2]);
    return this.op1('OneHot', [indices, this.scalar(depth, 'int64'), values], { axis: { type: 'int', value: a } }, 'float32', shape);
  }

  /**
   * ScatterND with reduction: `data` with `updates` written (or added) at `indices [..., k]`.
   * Gather's gradient uses it with 'add' so repeated indices accumulate.
   */
  scatterND(data: Tensor, indices: Tensor, updates: Tensor, reduction: 'none' | 'add' = 'none'): Tensor {
    return this.op1('ScatterND', [data, indices, updates], { reduction: { type: 'string', value: reduction } }, data.dtype, data.shape);
  }

  /** ScatterElements with reduction, the transpose of GatherElements. */
  scatterElements(data: Tensor, indices: Tensor, updates: Tensor, axis: number, reduction: 'none' | 'add' = 'none'): Tensor {
    const attrs: Record<string, Attr> = { axis: { type: 'int', value: axis }, reduction: { type: 'string', value: reduction } };
    return this.op1('ScatterElements', [data, indices, updates], attrs, data.dtype, data.shape);
  }

  // ---------------------------------------------------------------- shape plumbing

  /** Joins tensors along `axis`; other dimensions must agree. */
  concat(xs: readonly Tensor[], axis: number): Tensor {
    const first = xs[0];
    if (!first) throw new Error('Concat: needs at least one tensor');
    const a = normAxis(axis, first.rank, 'Concat');
    for (const x of xs) {
      if (x.rank !== first.rank || x.dtype !== first.dtype || x.shape.some((d, i) => i !== a && d !== first.shape[i])) {
        throw new Error(`Concat: ${x.toString()} does not match ${first.toString()} outside axis ${a}`);
      }
    }
    const shape = [...first.shape];
    shape[a] = concatDim(
      xs.map((x) => x.shape[a]!),
      () => this.freshDim(),
    );
    return this.op1('Concat', xs, { axis: { type: 'int', value: a } }, first.dtype, shape);
  }

  /** Splits along `axis` into pieces of the given (concrete) sizes. */
  split(x: Tensor, sizes: readonly number[], axis: number): Tensor[] {
    const a = normAxis(axis, x.rank, 'Split');
    const total = x.shape[a];
    if (typeof total === 'number' && sizes.reduce((s, v) => s + v, 0) !== total) {
      throw new Error(`Split: sizes [${sizes.join(', ')}] do not add up to dimension ${total} of ${x.toString()}`);
    }
    const outs = sizes.map((s) => {
      const shape = [...x.shape];
      shape[a] = s;
      return { dtype: x.dtype, shape };
    });
    return this.rawOp('Split', [x, this.ints(sizes)], { axis: { type: 'int', value: a } }, outs);
  }

  /** Reshape with ONNX semantics: 0 copies the input dimension, one -1 is inferred. */
  reshape(x: Tensor, shape: readonly number[]): Tensor {
    const out = reshapeShape(x.shape, shape, () => this.freshDim());
    return this.op1('Reshape', [x, this.ints(shape)], {}, x.dtype, out);
  }

  /** Reshape to the (possibly symbolic) shape of `like`, read at run time when not static. */
  reshapeLike(x: Tensor, like: Tensor): Tensor {
    if (sameShape(x.shape, like.shape)) return x;
    return this.op1('Reshape', [x, this.shapeTensor(like)], {}, x.dtype, like.shape);
  }

  /** Permutes axes (default: reversed). */
  transpose(x: Tensor, perm?: readonly number[]): Tensor {
    const p = perm ?? x.shape.map((_, i) => x.rank - 1 - i);
    if (p.length !== x.rank || [...p].sort((a, b) => a - b).some((v, i) => v !== i)) {
      throw new Error(`Transpose: [${p.join(', ')}] is not a permutation of ${x.rank} axes`);
    }
    return this.op1(
      'Transpose',
      [x],
      { perm: { type: 'ints', value: p } },
      x.dtype,
      p.map((i) => x.shape[i]!),
    );
  }

  /** Inserts size-1 axes; `axes` index the output. */
  unsqueeze(x: Tensor, axes: readonly number[]): Tensor {
    const rank = x.rank + axes.length;
    const norm = axes.map((a) => normAxis(a, rank, 'Unsqueeze')).sort((p, q) => p - q);
    const shape: Dim[] = [...x.shape];
    for (const a of norm) shape.splice(a, 0, 1);
    return this.op1('Unsqueeze', [x, this.ints(norm)], {}, x.dtype, shape);
  }

  /** Removes size-1 axes. */
  squeeze(x: Tensor, axes: readonly number[]): Tensor {
    const norm = axes.map((a) => normAxis(a, x.rank, 'Squeeze'));
    for (const a of norm) {
      if (x.shape[a] !== 1) throw new Error(`Squeeze: axis ${a} of ${x.toString()} is not 1`);
    }
    return this.op1(
      'Squeeze',
      [x, this.ints(norm)],
      {},
      x.dtype,
      x.shape.filter((_, i) => !norm.includes(i)),
    );
  }

  /** Broadcasts `x` to `like`'s shape (read at run time when symbolic). */
  expandLike(x: Tensor, like: Tensor): Tensor {
    const shape = broadcastShapes(x.shape, like.shape, 'Expand');
    if (!sameShape(shape, like.shape)) throw new Error(`Expand: ${x.toString()} does not broadcast to ${like.toString()}`);
    if (sameShape(x.shape, like.shape)) return x;
    return this.op1('Expand', [x, this.shapeTensor(like)], {}, x.dtype, like.shape);
  }

  /** Broadcasts `x` to a static shape. */
  expand(x: Tensor, shape: readonly number[]): Tensor {
    const out = broadcastShapes(x.shape, shape, 'Expand');
    return this.op1('Expand', [x, this.ints(shape)], {}, x.dtype, out);
  }

  /** Zeros shaped like `like` (float32 unless `like` says otherwise). */
  zerosLike(like: Tensor): Tensor {
    return this.expandLike(this.scalar(0, like.dtype), like);
  }

  /** The shape of `x` as a 1-D int64 tensor: a constant when static, else a Shape node. */
  shapeTensor(x: Tensor): Tensor {
    if (isStatic(x.shape)) return this.ints(x.shape);
    return this.op1('Shape', [x], {}, 'int64', [x.rank]);
  }

  /** Element count of `x` as an int64 scalar (a constant when static). */
  sizeOf(x: Tensor): Tensor {
    const n = numel(x.shape);
    if (n !== undefined) return this.scalar(n, 'int64');
    return this.op1('Size', [x], {}, 'int64', []);
  }

  // ---------------------------------------------------------------- serialisation

  /**
   * Removes declared inputs that no output depends on (e.g. labels when building an inference
   * graph from a spec that also serves training), so callers are not asked to feed them.
   */
  dropUnusedInputs(): void {
    const { liveTensors } = this.liveSet();
    for (let i = this.inputList.length - 1; i >= 0; i--) {
      const t = this.inputList[i]!;
      if (!liveTensors.has(t)) {
        this.inputList.splice(i, 1);
        this.usedNames.delete(t.name);
      }
    }
  }

  /** Nodes and tensors that some output depends on. */
  private liveSet(): { live: Set<GraphNode>; liveTensors: Set<Tensor> } {
    const live = new Set<GraphNode>();
    const liveTensors = new Set<Tensor>();
    const stack = [...this.outputList];
    while (stack.length > 0) {
      const t = stack.pop()!;
      liveTensors.add(t);
      const node = t.producer;
      if (!node || live.has(node)) continue;
      live.add(node);
      for (const i of node.inputs) if (i) stack.push(i);
    }
    return { live, liveTensors };
  }

  /** The ModelProto for this graph, with nodes and constants no output depends on dropped. */
  toModel(opts: { docString?: string } = {}): InstanceType<typeof onnx.ModelProto> {
    if (this.outputList.length === 0) throw new Error(`graph '${this.name}' has no outputs`);
    const { live, liveTensors } = this.liveSet();
    const attr = (name: string, a: Attr): InstanceType<typeof onnx.AttributeProto> => {
      const T = onnx.AttributeProto.AttributeType;
      switch (a.type) {
        case 'int':
          return onnx.AttributeProto.create({ name, type: T.INT, i: a.value });
        case 'float':
          return onnx.AttributeProto.create({ name, type: T.FLOAT, f: a.value });
        case 'ints':
          return onnx.AttributeProto.create({ name, type: T.INTS, ints: [...a.value] });
        case 'floats':
          return onnx.AttributeProto.create({ name, type: T.FLOATS, floats: [...a.value] });
        case 'string':
          return onnx.AttributeProto.create({ name, type: T.STRING, s: new TextEncoder().encode(a.value) });
      }
    };
    const graph = onnx.GraphProto.create({
      name: this.name,
      node: this.nodeList
        .filter((n) => live.has(n))
        .map((n, i) =>
          onnx.NodeProto.create({
            name: `n${i}_${n.opType}`,
            opType: n.opType,
            input: n.inputs.map((t) => t?.name ?? ''),
            output: n.outputs.map((t) => t.name),
            attribute: Object.entries(n.attrs).map(([k, v]) => attr(k, v)),
          }),
        ),
      initializer: this.initList
        .filter((t) => liveTensors.has(t))
        .map((t) =>
          onnx.TensorProto.create({
            name: t.name,
            dims: t.shape as number[],
            dataType: ONNX_DTYPE[t.dtype],
            rawData: new Uint8Array(t.data!.buffer, t.data!.byteOffset, t.data!.byteLength),
          }),
        ),
      input: this.inputList.map(valueInfo),
      output: this.outputList.map(valueInfo),
    });
    return onnx.ModelProto.create({
      irVersion: IR_VERSION,
      opsetImport: [{ domain: '', version: OPSET }],
      producerName: 'sparring',
      docString: opts.docString ?? '',
      graph,
    });
  }

  /** Serialised model bytes, ready for `InferenceSession.create`. */
  encode(opts: { docString?: string } = {}): Uint8Array {
    return onnx.ModelProto.encode(this.toModel(opts)).finish();
  }

  // ---------------------------------------------------------------- helpers

  private claim(name: string): void {
    if (name === '') throw new Error('tensor names must not be empty');
    if (this.usedNames.has(name)) throw new Error(`graph '${this.name}': the name '${name}' is already used`);
    this.usedNames.add(name);
  }

  private fresh(prefix: string): string {
    let name: string;
    do name = `_${prefix}${++this.counter}`;
    while (this.usedNames.has(name));
    this.usedNames.add(name);
    return name;
  }

  private checkOwn(t: Tensor, op: string): void {
    if (t.graph !== this) throw new Error(`${op}: tensor ${t.toString()} belongs to graph '${t.graph.name}', not '${this.name}'`);
  }
}

/** Sum of dimensions along a concat axis: concrete when all are, else a fresh symbol. */
function concatDim(dims: readonly Dim[], fresh: () => string): Dim {
  if (dims.every((d) => typeof d === 'number')) return (dims as number[]).reduce((s, d) => s + d, 0);
  if (dims.length === 1) return dims[0]!;
  return fresh();
}

function valueInfo(t: Tensor): InstanceType<typeof onnx.ValueInfoProto> {
  return onnx.ValueInfoProto.create({
    name: t.name,
    type: {
      tensorType: {
        elemType: ONNX_DTYPE[t.dtype],
        shape: { dim: t.shape.map((d) => (typeof d === 'number' ? { dimValue: d } : { dimParam: d })) },
      },
    },
  });
}
