/** The train steps' bag form: distinct ids, summed weights per distinct bag, its transpose, each sample's bag, and buffer reuse across calls. */
import { describe, expect, it } from 'vitest';
import { bankingDomain } from '../test/support/banking-domain';
import { buildCaPgStep, buildCaSftStep, caNetShape } from './ca-net';
import { buildDaPgStep, buildDaSftStep, DEFAULT_DA_NET } from './da-net';
import { RowBagEncoder } from './row-bags';
import { usesScatterReduction } from './runner';

describe('RowBagEncoder', () => {
  it('turns [B, L] slots into distinct ascending ids and a [T, U] matrix of summed weights', () => {
    const enc = new RowBagEncoder();
    // Bag 0: id 7 twice, id 3; bag 1: id 3, a padding slot (weight 0) pointing at id 9.
    const r = enc.encode(new Float32Array([7, 3, 7, 3, 9, 0]), new Float32Array([0.5, 0.25, 0.5, 1, 0, 0]), 2, 3);
    expect(Array.from(r.rows)).toEqual([3, 7]);
    expect(Array.from(r.mat)).toEqual([0.25, 1, 1, 0]);
    expect(Array.from(r.matT)).toEqual([0.25, 1, 1, 0]); // [[0.25, 1], [1, 0]]ᵀ is itself
    const s = enc.encode(new Float32Array([2, 5, 5, 0]), new Float32Array([1, 0.5, 0.5, 0]), 2, 2);
    expect(Array.from(s.rows)).toEqual([2, 5]);
    expect(Array.from(s.mat)).toEqual([1, 0.5, 0, 0.5]);
    expect(Array.from(s.matT)).toEqual([1, 0, 0.5, 0.5]);
    expect([s.size, s.bags, ...s.sel]).toEqual([2, 2, 1, 0, 0, 1]);
  });

  it('gives samples with the same slots one row of mat, and each sample its row in sel', () => {
    const enc = new RowBagEncoder();
    // Bags 0 and 2 are the same; bag 3 has bag 1's ids with another weight; bag 4 has bag 0's slots in another order.
    const ids = new Float32Array([4, 6, 9, 0, 4, 6, 9, 0, 4, 6]);
    const w = new Float32Array([1, 0.5, 0.5, 0, 1, 0.5, 0.25, 0, 0.5, 1]);
    const r = enc.encode(ids, w, 5, 2);
    expect([r.size, r.bags]).toEqual([5, 4]);
    expect(Array.from(r.rows)).toEqual([4, 6, 9]);
    // Distinct bags in first-seen order: samples 0 (and 2), 1, 3, 4.
    expect(Array.from(r.mat)).toEqual([1, 0.5, 0, 0, 0, 0.5, 0, 0, 0.25, 0.5, 1, 0]);
    expect(Array.from(r.matT)).toEqual([1, 0, 0, 0.5, 0.5, 0, 0, 1, 0, 0.5, 0.25, 0]);
    expect(Array.from(r.sel)).toEqual([1, 0, 0, 0, 0, 1, 0, 0, 1, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1]);
    const own = enc.encode(ids, w, 5, 2, false);
    expect([own.size, own.bags]).toEqual([5, 5]);
    expect(Array.from(own.mat.subarray(0, 6))).toEqual([1, 0.5, 0, 0, 0, 0.5]);
    expect(Array.from(own.mat.subarray(6, 9))).toEqual([1, 0.5, 0]); // sample 2, its own row now
    expect(Array.from(own.sel)).toEqual(Array.from({ length: 25 }, (_, i) => (i % 6 === 0 ? 1 : 0)));
  });

  it('shares rows by the keys it is given, with the result of comparing slots', () => {
    const ids = new Float32Array([4, 6, 9, 0, 4, 6, 9, 0, 4, 6]);
    const w = new Float32Array([1, 0.5, 0.5, 0, 1, 0.5, 0.25, 0, 0.5, 1]);
    const compared = new RowBagEncoder().encode(ids, w, 5, 2);
    const keyed = new RowBagEncoder().encode(ids, w, 5, 2, true, [7, 3, 7, 1, 2]);
    for (const k of ['rows', 'mat', 'matT', 'sel'] as const) expect(Array.from(keyed[k]), k).toEqual(Array.from(compared[k]));
    expect(keyed.bags).toBe(4);
    expect(() => new RowBagEncoder().encode(ids, w, 5, 2, true, [1, 2])).toThrow(/2 keys for 5 bags/);
  });

  it('takes ids beyond those of earlier calls, and ids spread far apart', () => {
    const enc = new RowBagEncoder();
    enc.encode(new Float32Array([1, 2]), new Float32Array([1, 1]), 1, 2);
    const r = enc.encode(new Float32Array([70000, 3, 5, 0]), new Float32Array([0.5, 0.25, 1, 0]), 2, 2);
    expect(Array.from(r.rows)).toEqual([3, 5, 70000]);
    expect(Array.from(r.mat)).toEqual([0.25, 0, 0.5, 0, 1, 0]);
    expect(Array.from(r.matT)).toEqual([0.25, 0, 0, 1, 0.5, 0]);
  });

  it('keeps one zero column when no slot carries weight, and names a size mismatch', () => {
    const enc = new RowBagEncoder();
    const r = enc.encode(new Float32Array(4), new Float32Array(4), 2, 2);
    expect(Array.from(r.rows)).toEqual([0]);
    expect(Array.from(r.mat)).toEqual([0]); // two empty bags: one distinct bag
    expect(Array.from(r.sel)).toEqual([1, 1]);
    expect(() => enc.encode(new Float32Array(3), new Float32Array(4), 2, 2)).toThrow(/3 ids and 4 weights for 2 bags of 2/);
  });
});

describe('the builtin networks train without order-dependent scatters', () => {
  it('no DA or CA train-step graph has a scatter-add, so TrainStepRunner keeps every thread', () => {
    const taxonomy = bankingDomain().taxonomy;
    const da = { ...DEFAULT_DA_NET, intents: taxonomy.length };
    const ca = caNetShape(taxonomy);
    for (const graph of [buildDaSftStep(da), buildDaPgStep(da), buildCaSftStep(ca), buildCaPgStep(ca)]) {
      expect(usesScatterReduction(graph.bytes), graph.name).toBe(false);
    }
  });
});
