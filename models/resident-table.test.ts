/**
 * The resident table's WebAssembly kernels against AdamW written out in JS with every operation
 * rounded to float32 (Math.fround), in the graph's order: the same bits, on rows in the batch,
 * live rows outside it and rows never touched, with rows wider than the SIMD lanes and a tail.
 */
import { describe, expect, it } from 'vitest';
import { TABLE_SCALARS } from './graph';
import { ResidentTable } from './resident-table';

const fr = Math.fround;

function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 4294967296;
  };
}

/** One step of the reference on rows `ids` with gradient rows `g`; every other row with non-zero moments (or any row, with decay) decays. */
function referenceStep(
  t: { w: Float32Array; m: Float32Array; v: Float32Array },
  width: number,
  ids: number[],
  g: Float32Array,
  k: Record<(typeof TABLE_SCALARS)[number], number>,
  decay: boolean,
  live: Set<number>,
): void {
  const keep = decay ? k.keep : 1;
  const rows = t.w.length / width;
  const update = (i: number, gi: number | null) => {
    const mi = gi === null ? fr(t.m[i]! * k.beta1) : fr(fr(t.m[i]! * k.beta1) + fr(gi * k.s1));
    const vi = gi === null ? fr(t.v[i]! * k.beta2) : fr(fr(t.v[i]! * k.beta2) + fr(fr(gi * gi) * k.s2));
    t.m[i] = mi;
    t.v[i] = vi;
    t.w[i] = fr(fr(t.w[i]! * keep) - fr(fr(mi / fr(fr(Math.sqrt(vi)) + k.epsHat)) * k.stepSize));
  };
  for (let r = 0; r < rows; r++) {
    const u = ids.indexOf(r);
    if (u < 0 && !live.has(r)) continue;
    for (let c = 0; c < width; c++) update(r * width + c, u < 0 ? null : g[u * width + c]!);
  }
  for (const r of ids) live.add(r);
}

describe('ResidentTable', () => {
  for (const decay of [false, true]) {
    it(`steps rows in and out of the batch with the bits of float32 AdamW in JS (${decay ? 'with' : 'without'} weight decay)`, () => {
      const [rows, width] = [9, 6]; // a row is one SIMD group of 4 and a tail of 2
      const u = rng(decay ? 2 : 1);
      const ref = { w: new Float32Array(rows * width), m: new Float32Array(rows * width), v: new Float32Array(rows * width) };
      const live = new Set<number>();
      for (let r = 0; r < rows; r++) {
        for (let c = 0; c < width; c++) {
          const i = r * width + c;
          ref.w[i] = u() - 0.5;
          if (r % 3 !== 0) [ref.m[i], ref.v[i]] = [(u() - 0.5) * 0.1, u() * 1e-3]; // rows 0, 3, 6 have no moments
        }
        if (decay || r % 3 !== 0) live.add(r);
      }
      const start = ref.w.slice();
      const table = new ResidentTable({ param: 'emb', rows: 'rows', shape: [rows, width], decay }, { w: ref.w.slice(), m: ref.m.slice(), v: ref.v.slice() });
      // The graph hands the scalars over as float32.
      const k = { beta1: fr(0.85), beta2: fr(0.99), s1: fr(0.15 * 0.7), s2: fr(0.01 * 0.49), keep: fr(1 - 0.05 * 0.1), stepSize: fr(0.05), epsHat: fr(1e-6) };
      for (const ids of [
        [4, 0, 7],
        [3, 4],
        [8, 1, 2, 5, 0],
      ]) {
        expect(table.ids({ data: Float32Array.from(ids) }, 'test')).toBe(ids.length);
        expect(Array.from(table.gather())).toEqual(ids.flatMap((r) => Array.from(ref.w.subarray(r * width, (r + 1) * width))));
        const g = Float32Array.from({ length: ids.length * width }, () => u() - 0.5);
        table.gradient().set(g);
        table.step(Float32Array.from(TABLE_SCALARS, (n) => k[n]));
        referenceStep(ref, width, ids, g, k, decay, live);
        expect(Array.from(table.w)).toEqual(Array.from(ref.w));
        expect(Array.from(table.m)).toEqual(Array.from(ref.m));
        expect(Array.from(table.v)).toEqual(Array.from(ref.v));
      }
      // Row 6 was in no batch and has no moments: only weight decay moves it.
      expect(table.w[6 * width] === start[6 * width]).toBe(!decay);
    });
  }

  it('takes a batch of every row of a large table, and names a batch of more ids than rows', () => {
    const [rows, width] = [3000, 4];
    const w = Float32Array.from({ length: rows * width }, (_, i) => i);
    const table = new ResidentTable(
      { param: 'emb', rows: 'rows', shape: [rows, width], decay: false },
      { w, m: new Float32Array(w.length), v: new Float32Array(w.length) },
    );
    expect(table.ids({ data: Float32Array.from([5, 2]) }, 'test')).toBe(2);
    expect(Array.from(table.gather())).toEqual([20, 21, 22, 23, 8, 9, 10, 11]);
    const all = Float32Array.from({ length: rows }, (_, i) => rows - 1 - i);
    expect(table.ids({ data: all }, 'test')).toBe(rows);
    const rowsOut = table.gather();
    expect(Array.from(rowsOut.subarray(0, 4))).toEqual([11996, 11997, 11998, 11999]);
    expect(Array.from(table.w)).toEqual(Array.from(w));
    expect(() => table.ids({ data: new Float32Array(rows + 1) }, 'test')).toThrow(/3001 row ids in rows for the 3000 rows of 'emb'/);
  });

  it('updates a parameter fed whole (every element, a SIMD part and a tail) with the same bits', () => {
    const n = 7;
    const u = rng(3);
    const ref = { w: Float32Array.from({ length: n }, () => u() - 0.5), m: new Float32Array(n), v: new Float32Array(n) };
    const table = new ResidentTable({ param: 'b', shape: [n], decay: true }, { w: ref.w.slice(), m: ref.m.slice(), v: ref.v.slice() });
    expect([table.rows, table.width, table.rowFed]).toEqual([1, n, undefined]);
    const k = { beta1: fr(0.9), beta2: fr(0.999), s1: fr(0.1), s2: fr(0.001), keep: fr(1 - 1e-3), stepSize: fr(1e-2), epsHat: fr(1e-8) };
    for (let step = 0; step < 3; step++) {
      table.all();
      expect(table.gradient().length).toBe(n);
      const g = Float32Array.from({ length: n }, () => u() - 0.5);
      table.gradient().set(g);
      table.step(Float32Array.from(TABLE_SCALARS, (name) => k[name]));
      referenceStep(ref, n, [0], g, k, true, new Set([0]));
      for (const key of ['w', 'm', 'v'] as const) expect(Array.from(table[key]), key).toEqual(Array.from(ref[key]));
    }
  });
});
