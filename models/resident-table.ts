/**
 * A parameter with its AdamW moments, held between train steps in a WebAssembly memory of its
 * own (models/graph/train-step.ts): a row-fed table gathers the batch's rows into a buffer fed to
 * onnxruntime, any other parameter is fed whole; onnxruntime writes the gradient into another
 * buffer, and AdamW runs on the parameter with SIMD kernels emitted by this file. The same update as plain JS over Float32Arrays
 * (every operation rounded with Math.fround) cost about 10 ns an element on this 2-core machine,
 * a third of a DA train step; four lanes of float32 take a fraction of that.
 *
 * Every kernel runs the float32 operations of the train-step graph's dense AdamW in its order
 * (m ← β1·m + s1·g, v ← β2·v + s2·g², w ← w·keep − (m / (√v + ε̂))·stepSize), and WebAssembly's
 * float32 arithmetic, SIMD included, is IEEE with round-to-nearest and no flush-to-zero, so a
 * row gets the bits the graph would give it.
 *
 * Rows whose moments are all zero (never in a batch since they were last zero) are not live:
 * AdamW leaves such a row where it is (its moments stay zero and its update is 0 / (0 + ε̂)), so
 * the per-step pass skips it, unless weight decay applies, which makes every row live.
 */
import type { HeldParam, RowFedParam } from './graph';
import { TABLE_SCALARS } from './graph';
import type { ValType, WasmModule } from './wasm';
import { compileWasm, FnBuilder, instantiateWasm, WASM_PAGE, wasmMemory, wasmModule } from './wasm';

/** The kernels' float operations, either on four lanes (v128) or one (f32). */
interface Lanes {
  width: number;
  type: ValType;
  load(f: FnBuilder): FnBuilder;
  store(f: FnBuilder): FnBuilder;
  add(f: FnBuilder): FnBuilder;
  sub(f: FnBuilder): FnBuilder;
  mul(f: FnBuilder): FnBuilder;
  div(f: FnBuilder): FnBuilder;
  sqrt(f: FnBuilder): FnBuilder;
  /** Local names: scalars as this kind of value, and temporaries. */
  at: (n: string) => string;
}

const VEC: Lanes = {
  width: 16,
  type: 'v128',
  load: (f) => f.v128_load(),
  store: (f) => f.v128_store(),
  add: (f) => f.f32x4_add(),
  sub: (f) => f.f32x4_sub(),
  mul: (f) => f.f32x4_mul(),
  div: (f) => f.f32x4_div(),
  sqrt: (f) => f.f32x4_sqrt(),
  at: (n) => `${n}4`,
};

const ONE: Lanes = {
  width: 4,
  type: 'f32',
  load: (f) => f.f32_load(),
  store: (f) => f.f32_store(),
  add: (f) => f.f32_add(),
  sub: (f) => f.f32_sub(),
  mul: (f) => f.f32_mul(),
  div: (f) => f.f32_div(),
  sqrt: (f) => f.f32_sqrt(),
  at: (n) => n,
};

/** The scalars the kernels take, as f32 parameters (TABLE_SCALARS less s1, s2 for the decay pass). */
const ADAM_SCALARS = ['beta1', 'beta2', 's1', 's2', 'keep', 'stepSize', 'epsHat'] as const;
const DECAY_SCALARS = ['beta1', 'beta2', 'keep', 'stepSize', 'epsHat'] as const;

/**
 * Emits the update of the elements of one row at byte offset `row` of the tables, `k` running
 * over [from, to) bytes of the row in steps of the lanes' width; `grad` (a local) addresses the
 * gradient row, or there is none (the decay pass: g = 0, so m ← β1·m and v ← β2·v).
 */
function rowUpdate(f: FnBuilder, x: Lanes, from: string | number, to: string, grad: string | null): void {
  const c = x.at;
  f.forRange('k', from, to, x.width, () => {
    f.get('row').get('k').i32_add().set('o');
    const addr = (base: string) => f.get(base).get('o').i32_add();
    // m ← β1·m (+ s1·g)
    addr('m');
    x.mul(x.load(addr('m')).get(c('beta1')));
    if (grad) {
      x.load(f.get(grad).get('k').i32_add()).set(c('gi'));
      x.add(x.mul(f.get(c('gi')).get(c('s1'))));
    }
    x.store(f.tee(c('mi')));
    // v ← β2·v (+ s2·g²)
    addr('v');
    x.mul(x.load(addr('v')).get(c('beta2')));
    if (grad) x.add(x.mul(x.mul(f.get(c('gi')).get(c('gi'))).get(c('s2'))));
    x.store(f.tee(c('vi')));
    // w ← w·keep − (m / (√v + ε̂))·stepSize
    addr('w');
    x.mul(x.load(addr('w')).get(c('keep')));
    x.mul(x.div(x.add(x.sqrt(f.get(c('mi')).get(c('vi'))).get(c('epsHat')))).get(c('stepSize')));
    x.store(x.sub(f));
  });
}

/** Locals of a kernel: lane temporaries and splats of its scalars. */
function declareLanes(f: FnBuilder, scalars: readonly string[], withGrad: boolean): void {
  f.locals('i32', 'row', 'k', 'o');
  const temps = withGrad ? ['gi', 'mi', 'vi'] : ['mi', 'vi'];
  f.locals('f32', ...temps);
  f.locals('v128', ...temps.map(VEC.at), ...scalars.map(VEC.at));
  for (const s of scalars) f.get(s).f32x4_splat().set(VEC.at(s));
}

/** gather(table, ids, n, rowBytes, out): row ids[u] of table → row u of out, for u < n. */
function gatherFn(): FnBuilder {
  const f = new FnBuilder('gather', [
    ['table', 'i32'],
    ['ids', 'i32'],
    ['n', 'i32'],
    ['rowBytes', 'i32'],
    ['out', 'i32'],
  ]).locals('i32', 'u');
  f.forRange('u', 0, 'n', 1, () => {
    f.get('out').get('u').get('rowBytes').i32_mul().i32_add();
    f.get('table').get('ids').get('u').i32_const(4).i32_mul().i32_add().i32_load().get('rowBytes').i32_mul().i32_add();
    f.get('rowBytes').memory_copy();
  });
  return f;
}

/** adam(w, m, v, ids, n, rowBytes, vecBytes, g, …ADAM_SCALARS): the rows ids[0…n) with gradient rows g[0…n). */
function adamFn(): FnBuilder {
  const f = new FnBuilder('adam', [
    ...(['w', 'm', 'v', 'ids', 'n', 'rowBytes', 'vecBytes', 'g'] as const).map((n) => [n, 'i32'] as const),
    ...ADAM_SCALARS.map((n) => [n, 'f32'] as const),
  ]).locals('i32', 'u', 'grow');
  declareLanes(f, ADAM_SCALARS, true);
  f.forRange('u', 0, 'n', 1, () => {
    f.get('ids').get('u').i32_const(4).i32_mul().i32_add().i32_load().get('rowBytes').i32_mul().set('row');
    f.get('g').get('u').get('rowBytes').i32_mul().i32_add().set('grow');
    rowUpdate(f, VEC, 0, 'vecBytes', 'grow');
    rowUpdate(f, ONE, 'vecBytes', 'rowBytes', 'grow');
  });
  return f;
}

/** decay(w, m, v, live, nLive, stamp, call, rowBytes, vecBytes, …DECAY_SCALARS): the live rows r with stamp[r] ≠ call, at g = 0. */
function decayFn(): FnBuilder {
  const f = new FnBuilder('decay', [
    ...(['w', 'm', 'v', 'live', 'nLive', 'stamp', 'call', 'rowBytes', 'vecBytes'] as const).map((n) => [n, 'i32'] as const),
    ...DECAY_SCALARS.map((n) => [n, 'f32'] as const),
  ]).locals('i32', 'j', 'r');
  declareLanes(f, DECAY_SCALARS, false);
  f.forRange('j', 0, 'nLive', 1, () => {
    f.get('live').get('j').i32_const(4).i32_mul().i32_add().i32_load().set('r');
    f.get('stamp').get('r').i32_const(4).i32_mul().i32_add().i32_load().get('call').i32_eq().br_if(0); // in this step's batch
    f.get('r').get('rowBytes').i32_mul().set('row');
    rowUpdate(f, VEC, 0, 'vecBytes', null);
    rowUpdate(f, ONE, 'vecBytes', 'rowBytes', null);
  });
  return f;
}

interface Kernels {
  gather(table: number, ids: number, n: number, rowBytes: number, out: number): void;
  adam(w: number, m: number, v: number, ids: number, n: number, rowBytes: number, vecBytes: number, g: number, ...scalars: number[]): void;
  decay(
    w: number,
    m: number,
    v: number,
    live: number,
    nLive: number,
    stamp: number,
    call: number,
    rowBytes: number,
    vecBytes: number,
    ...scalars: number[]
  ): void;
}

let compiled: WasmModule | undefined;
/** The kernels' module, compiled once per process. */
function kernelModule(): WasmModule {
  return (compiled ??= compileWasm(wasmModule([gatherFn(), adamFn(), decayFn()])));
}

const align16 = (n: number) => (n + 15) & ~15;

/**
 * One parameter's memory: w, m, v [rows, width], then stamp and the live list [rows] (int32),
 * then a step's ids [rows], gathered rows and their gradient [rows, width]. The memory never
 * grows (that would detach every view handed out), and pages a step does not touch cost no RAM.
 * A parameter fed whole is one row.
 */
export class ResidentTable {
  /** Floats per row. */
  readonly width: number;
  readonly rows: number;
  /** The row-fed table's spec; undefined for a parameter fed whole. */
  readonly rowFed: RowFedParam | undefined;
  private readonly rowBytes: number;
  private readonly kernels: Kernels;
  private readonly offsets: { w: number; m: number; v: number; stamp: number; live: number; ids: number; feed: number; grad: number };
  private readonly views: {
    w: Float32Array;
    m: Float32Array;
    v: Float32Array;
    stamp: Uint32Array;
    live: Int32Array;
    ids: Int32Array;
    feed: Float32Array;
    grad: Float32Array;
  };
  /** live[r]: row r is in the live list. */
  private readonly isLive: Uint8Array;
  private nLive = 0;
  /** Marks the rows of the current step (stamp[r] === call), so the decay pass skips them. */
  private call = 0;
  /** Rows of the current step (the last `ids`). */
  private n = 0;

  /** A row-fed table (`spec.rows` set) or a parameter fed whole, starting from `s` (copied). */
  constructor(
    readonly spec: RowFedParam | HeldParam,
    s: { w: Float32Array; m: Float32Array; v: Float32Array },
  ) {
    this.rowFed = 'rows' in spec ? spec : undefined;
    const size = spec.shape.reduce((a: number, d: number) => a * d, 1);
    this.rows = this.rowFed ? spec.shape[0]! : 1;
    this.width = size / this.rows;
    this.rowBytes = this.width * 4;
    const table = align16(size * 4);
    const list = align16(this.rows * 4);
    const o = { w: 0, m: table, v: 2 * table, stamp: 3 * table, live: 3 * table + list, ids: 3 * table + 2 * list, feed: 0, grad: 0 };
    o.feed = o.ids + list;
    o.grad = this.rowFed ? o.feed + table : o.feed; // a whole parameter is fed from w itself
    this.offsets = o;
    const memory = wasmMemory(Math.ceil((o.grad + table) / WASM_PAGE));
    this.kernels = instantiateWasm<Kernels>(kernelModule(), memory);
    const buf = memory.buffer;
    const f32 = (at: number) => new Float32Array(buf, at, size);
    this.views = {
      w: f32(o.w),
      m: f32(o.m),
      v: f32(o.v),
      stamp: new Uint32Array(buf, o.stamp, this.rows),
      live: new Int32Array(buf, o.live, this.rows),
      ids: new Int32Array(buf, o.ids, this.rows),
      feed: f32(o.feed),
      grad: f32(o.grad),
    };
    this.isLive = new Uint8Array(this.rows);
    this.load(s);
  }

  /** Replaces weights and moments (copied), in this memory: a runner switched back to reuses it. */
  load(s: { w: Float32Array; m: Float32Array; v: Float32Array }): void {
    this.views.w.set(s.w);
    this.views.m.set(s.m);
    this.views.v.set(s.v);
    this.isLive.fill(0);
    this.nLive = 0;
    for (let r = 0; r < this.rows; r++) {
      if (this.spec.decay || !zeroRow(this.views.m, this.views.v, r * this.width, this.width)) this.markLive(r);
    }
  }

  /** The weights, a view of the parameter's memory (updated in place by each step). */
  get w(): Float32Array {
    return this.views.w;
  }
  get m(): Float32Array {
    return this.views.m;
  }
  get v(): Float32Array {
    return this.views.v;
  }

  private markLive(r: number): void {
    if (this.isLive[r]) return;
    this.isLive[r] = 1;
    this.views.live[this.nLive++] = r;
  }

  /**
   * Takes the row ids of a batch input (whole, in range, distinct: gatherRows' contract, checked)
   * as this step's rows, and returns how many there are.
   */
  ids(f: { data: unknown }, graph: string): number {
    const data = f.data as Float32Array | BigInt64Array;
    const { ids, stamp } = this.views;
    const what = this.rowFed ? `${this.rowFed.rows}` : 'rows';
    if (data.length > this.rows) throw new Error(`train step '${graph}': ${data.length} row ids in ${what} for the ${this.rows} rows of '${this.spec.param}'`);
    const call = (this.call = (this.call + 1) >>> 0);
    for (let i = 0; i < data.length; i++) {
      const r = Number(data[i]);
      if (!Number.isInteger(r) || r < 0 || r >= this.rows)
        throw new Error(`train step '${graph}': row id ${String(data[i])} at ${what}[${i}] is not a row of '${this.spec.param}' (0…${this.rows - 1})`);
      if (stamp[r] === call) throw new Error(`train step '${graph}': row id ${r} appears twice in ${what}; gatherRows needs distinct ids`);
      stamp[r] = call;
      ids[i] = r;
    }
    this.n = data.length;
    return this.n;
  }

  /** Takes every row as this step's (a parameter fed whole). */
  all(): void {
    const call = (this.call = (this.call + 1) >>> 0);
    for (let r = 0; r < this.rows; r++) {
      this.views.stamp[r] = call;
      this.views.ids[r] = r;
    }
    this.n = this.rows;
  }

  /** The weights of this step's rows, [n, width]: a view valid until the next step. */
  gather(): Float32Array {
    const o = this.offsets;
    this.kernels.gather(o.w, o.ids, this.n, this.rowBytes, o.feed);
    return this.views.feed.subarray(0, this.n * this.width);
  }

  /** Where the graph writes the gradient of this step's rows, [n, width] (a preallocated output; valid while the table is). */
  gradient(): Float32Array {
    return this.views.grad.subarray(0, this.n * this.width);
  }

  /**
   * The AdamW step of the whole table: the gradient (in `gradient()`) for this step's rows, zero
   * elsewhere, so other live rows only decay. `k` holds the graph's TABLE_SCALARS.
   */
  step(k: Float32Array): void {
    const s = {} as Record<(typeof TABLE_SCALARS)[number], number>;
    TABLE_SCALARS.forEach((name, i) => (s[name] = k[i]!));
    if (!this.spec.decay) s.keep = 1; // w · 1 is w: the table does not decay
    const o = this.offsets;
    const vecBytes = this.rowBytes & ~15;
    // Decay first: it skips this step's rows by their stamp, and the rows that join the live list below are this step's.
    this.kernels.decay(o.w, o.m, o.v, o.live, this.nLive, o.stamp, this.call | 0, this.rowBytes, vecBytes, ...DECAY_SCALARS.map((n) => s[n]));
    this.kernels.adam(o.w, o.m, o.v, o.ids, this.n, this.rowBytes, vecBytes, o.grad, ...ADAM_SCALARS.map((n) => s[n]));
    const ids = this.views.ids;
    for (let u = 0; u < this.n; u++) this.markLive(ids[u]!);
  }
}

function zeroRow(m: Float32Array, v: Float32Array, from: number, width: number): boolean {
  for (let i = from; i < from + width; i++) if (m[i] !== 0 || v[i] !== 0) return false;
  return true;
}
