/**
 * Hashed-feature bags in the form the train-step graphs take: a batch's distinct bucket ids
 * `rows [U]` and a dense weight matrix `mat [T, U]` (with its transpose) over its T distinct
 * bags, so their sums are one GEMM, `mat @ emb[rows]`, and the embedding gradient is
 * `matᵀ @ dbag` on those U rows only (`Graph.gatherRows`). The per-slot form [B, L] (ids,
 * weights) needs a scatter-add for that gradient, which onnxruntime runs either on one thread or
 * in a thread-dependent order.
 *
 * Samples often share a bag: the decision points of one episode share the customer's text, and
 * GRPO's K samples of a prompt all do. `sel [B, T]` (one 1 a row) picks each sample's bag, so the
 * two [·, U] GEMMs and the matrices built here scale with T rather than B.
 */
import type { Graph, Tensor } from './graph';

/** The graph inputs of a row bag; bucket ids travel as float32 (exact below 2^24) and are cast in the graph. */
export const ROW_BAG_INPUTS = {
  bag_rows: { dtype: 'float32', shape: ['U'] },
  bag_mat: { dtype: 'float32', shape: ['T', 'U'] },
  bag_mat_t: { dtype: 'float32', shape: ['U', 'T'] },
  bag_sel: { dtype: 'float32', shape: ['B', 'T'] },
} as const;

/** The weighted bag sums [B, E] = bag_sel [B, T] @ (bag_mat [T, U] @ emb[bag_rows] [U, E]). */
export function rowBagSum(g: Graph, emb: Tensor, x: Record<keyof typeof ROW_BAG_INPUTS, Tensor>): Tensor {
  g.declareTranspose(x.bag_mat, x.bag_mat_t); // the embedding gradient bag_matᵀ @ dbag reads it
  const bags = g.gemm(x.bag_mat, g.gatherRows(emb, g.cast(x.bag_rows, 'int64'))); // [T, E]
  return g.gemm(x.bag_sel, bags); // [B, E]; its gradient bag_selᵀ @ dy sums a bag's samples
}

/** A RowBags as feeds for ROW_BAG_INPUTS. */
export function rowBagFeeds(r: RowBags): Record<keyof typeof ROW_BAG_INPUTS, { data: Float32Array; dims: number[] }> {
  const U = r.rows.length;
  return {
    bag_rows: { data: r.rows, dims: [U] },
    bag_mat: { data: r.mat, dims: [r.bags, U] },
    bag_mat_t: { data: r.matT, dims: [U, r.bags] },
    bag_sel: { data: r.sel, dims: [r.size, r.bags] },
  };
}

export interface RowBags {
  /** Distinct bucket ids with a non-zero weight somewhere in the batch, ascending, as float32 (exact below 2^24); [0] when there are none. */
  rows: Float32Array; // [U]
  /** mat[t, u] = the summed weight of rows[u] in distinct bag t. */
  mat: Float32Array; // [T, U]
  /** matT[u, t] = mat[t, u]. */
  matT: Float32Array; // [U, T]
  /** sel[b, t] = 1 where sample b has distinct bag t (the first sample with it sets t's place: t ≤ b). */
  sel: Float32Array; // [B, T]
  /** B, the samples. */
  size: number;
  /** T, the distinct bags. */
  bags: number;
}

/** A hash of bag b's slots (ids and weights as bits), FNV-1a. */
function bagHash(idBits: Int32Array, wBits: Int32Array, b: number, L: number): number {
  let h = 0x811c9dc5;
  for (let i = b * L, end = i + L; i < end; i++) {
    h = Math.imul(h ^ idBits[i]!, 0x01000193);
    h = Math.imul(h ^ wBits[i]!, 0x01000193);
  }
  return h;
}

/** Do bags a and b have the same slots (same ids and weight bits, slot by slot)? */
function sameBag(idBits: Int32Array, wBits: Int32Array, a: number, b: number, L: number): boolean {
  for (let i = 0; i < L; i++) if (idBits[a * L + i] !== idBits[b * L + i] || wBits[a * L + i] !== wBits[b * L + i]) return false;
  return true;
}

/**
 * Writes the distinct ids of the weighted slots of bags `reps[0…T)` into `out` (first-seen
 * order) and returns how many, or −1 when an id is not below `stamp.length` (the caller grows
 * its arrays and calls again); `stamp[id] === call` marks the seen ones, and `top[0]` gets the
 * largest.
 */
function distinctIds(
  ids: Float32Array,
  w: Float32Array,
  reps: Int32Array,
  T: number,
  L: number,
  stamp: Uint32Array,
  call: number,
  out: Int32Array,
  top: Int32Array,
): number {
  let U = 0;
  let max = 0;
  const limit = stamp.length;
  for (let t = 0; t < T; t++) {
    for (let i = reps[t]! * L, end = i + L; i < end; i++) {
      const id = ids[i]! | 0; // integer indices keep the typed-array accesses on V8's fast path
      if (w[i] !== 0 && stamp[id] !== call) {
        if (id >= limit) return -1;
        stamp[id] = call;
        out[U++] = id;
        if (id > max) max = id;
      }
    }
  }
  top[0] = max;
  return U;
}

/**
 * Puts the U distinct ids of `distinctIds` in ascending order: a scan of the stamps when the ids
 * are dense enough (a hashed batch's usually are: a third of the buckets), else a sort.
 */
function sortIds(distinct: Int32Array, U: number, stamp: Uint32Array, call: number, top: number): void {
  if (top >= 16 * U) {
    distinct.subarray(0, U).sort();
    return;
  }
  let u = 0;
  for (let id = 0; id <= top; id++) if (stamp[id] === call) distinct[u++] = id;
}

/**
 * Writes mat [T, U] from the slots of bags `reps` and adds each weighted slot to matT [U, T]
 * (zeroed), in slot order. A row of mat is cleared just before its slots land in it, so they hit
 * a row still in cache rather than lines of a multi-MB matrix cleared long before.
 */
function fillMats(
  ids: Float32Array,
  w: Float32Array,
  reps: Int32Array,
  T: number,
  L: number,
  col: Int32Array,
  U: number,
  mat: Float32Array,
  matT: Float32Array,
): void {
  for (let t = 0; t < T; t++) {
    const o = reps[t]! * L;
    mat.fill(0, t * U, (t + 1) * U);
    for (let l = 0; l < L; l++) {
      const x = w[o + l]!;
      if (x === 0) continue;
      const u = col[ids[o + l]! | 0]!;
      mat[t * U + u]! += x;
      matT[u * T + t]! += x;
    }
  }
}

/**
 * Converts batches of bags. It keeps its buffers between calls, so the arrays a call returns are
 * valid until the next call (feed them to one train step, then let go). The loops live in small
 * functions: V8 optimises each once, where one long method with several hot loops was
 * deoptimised again at each loop's exit for dozens of calls.
 */
export class RowBagEncoder {
  /** Column of each bucket id in the batch being converted; `stamp` says which call wrote it, so nothing is cleared between calls. */
  private col = new Int32Array(0);
  private stamp = new Uint32Array(0);
  private call = 0;
  private matBuf = new Float32Array(0);
  private matTBuf = new Float32Array(0);
  private selBuf = new Float32Array(0);
  private distinct = new Int32Array(0);
  private readonly top = new Int32Array(1);
  private reps = new Int32Array(0);
  private bagOf = new Int32Array(0);
  private readonly firstWithHash = new Map<number, number>();

  /**
   * B bags of L slots: `ids` are float32 bucket numbers, `w` their weights (0 = unused slot).
   * Bags with the same slots share a row of `mat`, unless `share` is false (every sample then has
   * its own, T = B: the layout before sharing, kept as a reference for tests). `keys`, where the
   * caller knows them, name each sample's bag: samples have the same slots exactly when they have
   * the same key, and the slots are not compared.
   */
  encode(ids: Float32Array, w: Float32Array, size: number, L: number, share = true, keys?: ArrayLike<number>): RowBags {
    if (ids.length !== size * L || w.length !== size * L) throw new Error(`RowBagEncoder: ${ids.length} ids and ${w.length} weights for ${size} bags of ${L}`);
    if (keys && keys.length !== size) throw new Error(`RowBagEncoder: ${keys.length} keys for ${size} bags`);
    const T = share && keys ? this.shareKeys(keys, size) : this.shareBags(ids, w, size, L, share);
    const reps = this.reps;
    if (this.distinct.length < T * L + 1) this.distinct = new Int32Array(T * L + 1);
    const distinct = this.distinct;
    let U = distinctIds(ids, w, reps, T, L, this.stamp, ++this.call, distinct, this.top);
    if (U < 0) {
      // An id beyond the arrays: grow them to the batch's largest id and list again.
      let top = 0;
      for (let i = 0; i < ids.length; i++) if (w[i] !== 0 && ids[i]! > top) top = ids[i]! | 0;
      this.col = new Int32Array(Math.max(top + 1, 2 * this.col.length));
      this.stamp = new Uint32Array(this.col.length);
      this.call = 0;
      U = distinctIds(ids, w, reps, T, L, this.stamp, ++this.call, distinct, this.top);
    }
    if (U === 0)
      distinct[U++] = 0; // bucket 0 is padding: a zero column keeps U ≥ 1
    else sortIds(distinct, U, this.stamp, this.call, this.top[0]!);
    const rows = Float32Array.from(distinct.subarray(0, U));
    for (let u = 0; u < U; u++) this.col[rows[u]!] = u;

    // Fresh multi-MB arrays cost more in page faults than clearing kept ones (fill is a memset).
    const n = T * U;
    if (this.matBuf.length < n) [this.matBuf, this.matTBuf] = [new Float32Array(n), new Float32Array(n)];
    const mat = this.matBuf.subarray(0, n);
    const matT = this.matTBuf.subarray(0, n).fill(0);
    fillMats(ids, w, reps, T, L, this.col, U, mat, matT);
    if (this.selBuf.length < size * T) this.selBuf = new Float32Array(size * T);
    const sel = this.selBuf.subarray(0, size * T).fill(0);
    for (let b = 0; b < size; b++) sel[b * T + this.bagOf[b]!] = 1;
    return { rows, mat, matT, sel, size, bags: T };
  }

  private ensureSamples(size: number): void {
    if (this.reps.length < size) [this.reps, this.bagOf] = [new Int32Array(size), new Int32Array(size)];
  }

  /** shareBags for samples whose bags are named by keys. */
  private shareKeys(keys: ArrayLike<number>, size: number): number {
    this.ensureSamples(size);
    const [reps, bagOf] = [this.reps, this.bagOf];
    const first = this.firstWithHash;
    first.clear();
    let T = 0;
    for (let b = 0; b < size; b++) {
      const a = first.get(keys[b]!);
      if (a !== undefined) {
        bagOf[b] = bagOf[a]!;
        continue;
      }
      first.set(keys[b]!, b);
      bagOf[b] = T;
      reps[T++] = b;
    }
    return T;
  }

  /** Fills reps (the first sample of each distinct bag) and bagOf (each sample's bag); returns T. */
  private shareBags(ids: Float32Array, w: Float32Array, size: number, L: number, share: boolean): number {
    this.ensureSamples(size);
    const [reps, bagOf] = [this.reps, this.bagOf];
    const idBits = new Int32Array(ids.buffer, ids.byteOffset, ids.length);
    const wBits = new Int32Array(w.buffer, w.byteOffset, w.length);
    const first = this.firstWithHash;
    first.clear();
    let T = 0;
    for (let b = 0; b < size; b++) {
      if (share) {
        const h = bagHash(idBits, wBits, b, L);
        const a = first.get(h);
        if (a !== undefined && sameBag(idBits, wBits, a, b, L)) {
          bagOf[b] = bagOf[a]!;
          continue;
        }
        if (a === undefined) first.set(h, b); // a hash collision keeps the first bag; the other stays unshared
      }
      bagOf[b] = T;
      reps[T++] = b;
    }
    return T;
  }
}
