/**
 * Hashed-feature bags in the form the train-step graphs take: a batch's distinct bucket ids
 * `rows [U]` and a dense weight matrix `mat [B, U]` (with its transpose), so the bag sum is one
 * GEMM, `mat @ emb[rows]`, and the embedding gradient is `matᵀ @ dbag` on those U rows only
 * (`Graph.gatherRows`). The per-slot form [B, L] (ids, weights) needs a scatter-add for that
 * gradient, which onnxruntime runs either on one thread or in a thread-dependent order.
 */
import type { Graph, Tensor } from './graph';

/** The graph inputs of a row bag; bucket ids travel as float32 (exact below 2^24) and are cast in the graph. */
export const ROW_BAG_INPUTS = {
  bag_rows: { dtype: 'float32', shape: ['U'] },
  bag_mat: { dtype: 'float32', shape: ['B', 'U'] },
  bag_mat_t: { dtype: 'float32', shape: ['U', 'B'] },
} as const;

/** The weighted bag sum [B, E] = bag_mat [B, U] @ emb[bag_rows] [U, E]. */
export function rowBagSum(g: Graph, emb: Tensor, x: Record<keyof typeof ROW_BAG_INPUTS, Tensor>): Tensor {
  g.declareTranspose(x.bag_mat, x.bag_mat_t); // the embedding gradient bag_matᵀ @ dbag reads it
  return g.gemm(x.bag_mat, g.gatherRows(emb, g.cast(x.bag_rows, 'int64'))); // [B, E]
}

/** A RowBags as feeds for ROW_BAG_INPUTS. */
export function rowBagFeeds(r: RowBags): Record<keyof typeof ROW_BAG_INPUTS, { data: Float32Array; dims: number[] }> {
  const U = r.rows.length;
  return { bag_rows: { data: r.rows, dims: [U] }, bag_mat: { data: r.mat, dims: [r.size, U] }, bag_mat_t: { data: r.matT, dims: [U, r.size] } };
}

export interface RowBags {
  /** Distinct bucket ids with a non-zero weight somewhere in the batch, ascending, as float32 (exact below 2^24); [0] when there are none. */
  rows: Float32Array; // [U]
  /** mat[b, u] = the summed weight of rows[u] in bag b. */
  mat: Float32Array; // [B, U]
  /** matT[u, b] = mat[b, u]. */
  matT: Float32Array; // [U, B]
  size: number;
}

/** The largest id in `ids` (float32 bucket numbers). */
function maxId(ids: Float32Array): number {
  let max = 0;
  for (let i = 0; i < ids.length; i++) if (ids[i]! > max) max = ids[i]! | 0;
  return max;
}

/** Writes the distinct ids of weighted slots into `out` (first-seen order) and returns how many; `stamp[id] === call` marks the seen ones. */
function distinctIds(ids: Float32Array, w: Float32Array, stamp: Uint32Array, call: number, out: Int32Array): number {
  let U = 0;
  for (let i = 0; i < ids.length; i++) {
    const id = ids[i]! | 0; // integer indices keep the typed-array accesses on V8's fast path
    if (w[i] !== 0 && stamp[id] !== call) {
      stamp[id] = call;
      out[U++] = id;
    }
  }
  return U;
}

/**
 * Writes mat [B, U] and adds each weighted slot to matT [U, B] (zeroed), in slot order. A row of
 * mat is cleared just before its slots land in it, so they hit a row still in cache rather than
 * lines of a multi-MB matrix cleared long before.
 */
function fillMats(ids: Float32Array, w: Float32Array, size: number, L: number, col: Int32Array, U: number, mat: Float32Array, matT: Float32Array): void {
  for (let b = 0; b < size; b++) {
    const o = b * L;
    mat.fill(0, b * U, (b + 1) * U);
    for (let l = 0; l < L; l++) {
      const x = w[o + l]!;
      if (x === 0) continue;
      const u = col[ids[o + l]! | 0]!;
      mat[b * U + u]! += x;
      matT[u * size + b]! += x;
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
  private distinct = new Int32Array(0);

  /** B bags of L slots: `ids` are float32 bucket numbers, `w` their weights (0 = unused slot). */
  encode(ids: Float32Array, w: Float32Array, size: number, L: number): RowBags {
    if (ids.length !== size * L || w.length !== size * L) throw new Error(`RowBagEncoder: ${ids.length} ids and ${w.length} weights for ${size} bags of ${L}`);
    const top = maxId(ids);
    if (top >= this.col.length) {
      this.col = new Int32Array(Math.max(top + 1, 2 * this.col.length));
      this.stamp = new Uint32Array(this.col.length);
      this.call = 0;
    }
    if (this.distinct.length < ids.length) this.distinct = new Int32Array(ids.length);
    const distinct = this.distinct;
    let U = distinctIds(ids, w, this.stamp, ++this.call, distinct);
    if (U === 0) distinct[U++] = 0; // bucket 0 is padding: a zero column keeps U ≥ 1
    const rows = Float32Array.from(distinct.subarray(0, U).sort());
    for (let u = 0; u < U; u++) this.col[rows[u]!] = u;

    // Fresh multi-MB arrays cost more in page faults than clearing kept ones (fill is a memset).
    const n = size * U;
    if (this.matBuf.length < n) [this.matBuf, this.matTBuf] = [new Float32Array(n), new Float32Array(n)];
    const mat = this.matBuf.subarray(0, n);
    const matT = this.matTBuf.subarray(0, n).fill(0);
    fillMats(ids, w, size, L, this.col, U, mat, matT);
    return { rows, mat, matT, size };
  }
}
