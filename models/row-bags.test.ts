/** The train steps' bag form: distinct ids, summed weights per bag, its transpose, and buffer reuse across calls. */
import { describe, expect, it } from 'vitest';
import { bankingDomain } from '../host/domain-files';
import { buildCaPgStep, buildCaSftStep, caNetShape } from './ca-net';
import { buildDaPgStep, buildDaSftStep, DEFAULT_DA_NET } from './da-net';
import { RowBagEncoder } from './row-bags';
import { usesScatterReduction } from './runner';

describe('RowBagEncoder', () => {
  it('turns [B, L] slots into distinct ascending ids and a [B, U] matrix of summed weights', () => {
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
  });

  it('keeps one zero column when no slot carries weight, and names a size mismatch', () => {
    const enc = new RowBagEncoder();
    const r = enc.encode(new Float32Array(4), new Float32Array(4), 2, 2);
    expect(Array.from(r.rows)).toEqual([0]);
    expect(Array.from(r.mat)).toEqual([0, 0]);
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
