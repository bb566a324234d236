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

/**
 * Converts batches of bags. It keeps its buffers between calls, so the arrays a call returns are
 * valid until the next call (feed them to one train step, then let go).
 */
export class RowBagEncoder {
  /** Column of each bucket id in the batch being converted; `stamp` says which call wrote it, so nothing is cleared between calls. */
  private col = new Int32Array(0);
  private stamp = new Uint32Array(0);
  private call = 0;
  private matBuf = new Float32Array(0);
  private matTBuf = new Float32Array(0);
  /** Entries of matBuf / matTBuf the last call wrote (the rest are zero). */
  private written: { mat: Int32Array; matT: Int32Array; n: number } = { mat: new Int32Array(0), matT: new Int32Array(0), n: 0 };

  /** B bags of L slots: `ids` are float32 bucket numbers, `w` their weights (0 = unused slot). */
  encode(ids: Float32Array, w: Float32Array, size: number, L: number): RowBags {
    if (ids.length !== size * L || w.length !== size * L) throw new Error(`RowBagEncoder: ${ids.length} ids and ${w.length} weights for ${size} bags of ${L}`);
    let maxId = 0;
    for (let i = 0; i < ids.length; i++) if (ids[i]! > maxId) maxId = ids[i]! | 0;
    if (maxId >= this.col.length) {
      this.col = new Int32Array(Math.max(maxId + 1, 2 * this.col.length));
      this.stamp = new Uint32Array(this.col.length);
      this.call = 0;
    }
    const { col, stamp } = this;
    const call = ++this.call;
    const distinct = new Int32Array(Math.max(1, ids.length));
    let U = 0;
    for (let i = 0; i < ids.length; i++) {
      const id = ids[i]! | 0; // integer indices keep the typed-array accesses on V8's fast path
      if (w[i] !== 0 && stamp[id] !== call) {
        stamp[id] = call;
        distinct[U++] = id;
      }
    }
    if (U === 0) distinct[U++] = 0; // bucket 0 is padding: a zero column keeps U ≥ 1
    const sorted = distinct.subarray(0, U).sort();
    for (let u = 0; u < U; u++) col[sorted[u]!] = u;
    // Fresh multi-MB arrays cost more in page faults than filling them: keep them, and zero only
    // what the last call wrote (a few % of the matrix).
    const n = size * U;
    const last = this.written;
    if (this.matBuf.length < n) {
      this.matBuf = new Float32Array(n);
      this.matTBuf = new Float32Array(n);
    } else {
      for (let i = 0; i < last.n; i++) {
        this.matBuf[last.mat[i]!] = 0;
        this.matTBuf[last.matT[i]!] = 0;
      }
    }
    if (last.mat.length < ids.length) this.written = { mat: new Int32Array(ids.length), matT: new Int32Array(ids.length), n: 0 };
    const at = this.written;
    at.n = 0;
    const mat = this.matBuf.subarray(0, n);
    const matT = this.matTBuf.subarray(0, n);
    for (let b = 0; b < size; b++) {
      const o = b * L;
      for (let l = 0; l < L; l++) {
        const x = w[o + l]!;
        if (x === 0) continue;
        const u = col[ids[o + l]! | 0]!;
        const i = b * U + u;
        const j = u * size + b;
        mat[i]! += x;
        matT[j]! += x;
        at.mat[at.n] = i;
        at.matT[at.n++] = j;
      }
    }
    return { rows: Float32Array.from(sorted), mat, matT, size };
  }
}
