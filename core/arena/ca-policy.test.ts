import { describe, expect, it } from 'vitest';
import { CA_HEAD_OFFSETS, CA_HEAD_SIZES, CA_LOGITS } from '../agents/ca-choices';
import { summariseCaPolicy } from './ca-policy';

/** Two rows; every head uniform except `withhold` (head 5) and `detail` (head 1), set by hand. */
function rows(): Float32Array {
  const logp = new Float32Array(2 * CA_LOGITS);
  for (let r = 0; r < 2; r++)
    CA_HEAD_SIZES.forEach((size, h) => {
      for (let i = 0; i < size; i++) logp[r * CA_LOGITS + CA_HEAD_OFFSETS[h]! + i] = Math.log(1 / size);
    });
  const set = (r: number, h: number, ps: number[]) => ps.forEach((p, i) => (logp[r * CA_LOGITS + CA_HEAD_OFFSETS[h]! + i] = Math.log(p)));
  set(0, 5, [0.2, 0.8]); // withhold: true at 0.8
  set(1, 5, [0.6, 0.4]); // withhold: false at 0.6
  set(0, 1, [0.1, 0.2, 0.3, 0.4]); // detail 3 most probable
  set(1, 1, [0.4, 0.3, 0.2, 0.1]); // detail 0 most probable
  return logp;
}

describe('summariseCaPolicy', () => {
  it('gives the mean probability and the greedy share of each value, head by head', () => {
    const s = summariseCaPolicy(rows(), 2);
    expect(s.map((h) => h.head)).toEqual(['directness', 'detail', 'decoy', 'hedge', 'tone', 'withhold', 'placement', 'phrasing']);
    const withhold = s.find((h) => h.head === 'withhold')!.values;
    expect(withhold.map((v) => v.value)).toEqual(['false', 'true']);
    // (0.2 + 0.6) / 2 and (0.8 + 0.4) / 2; one opening's greedy choice each way.
    expect(withhold[0]!.meanP).toBeCloseTo(0.4, 6);
    expect(withhold[1]!.meanP).toBeCloseTo(0.6, 6);
    expect(withhold.map((v) => v.greedyShare)).toEqual([0.5, 0.5]);
    const detail = s.find((h) => h.head === 'detail')!.values;
    // (0.1 + 0.4) / 2, (0.2 + 0.3) / 2, …: each 0.25, though each opening leans one way.
    for (const v of detail) expect(v.meanP).toBeCloseTo(0.25, 6);
    expect(detail.map((v) => v.greedyShare)).toEqual([0.5, 0, 0, 0.5]);
    // A uniform head: every value 1/size, and a tie goes to the first value, as greedyChoice does.
    const decoy = s.find((h) => h.head === 'decoy')!.values;
    expect(decoy[0]!.value).toBe('null');
    for (const v of decoy) expect(v.meanP).toBeCloseTo(1 / 6, 6);
    expect(decoy.map((v) => v.greedyShare)).toEqual([1, 0, 0, 0, 0, 0]);
    for (const h of s) expect(h.values.reduce((a, v) => a + v.meanP, 0)).toBeCloseTo(1, 6);
  });

  it('refuses an empty match and a batch of the wrong width', () => {
    expect(() => summariseCaPolicy(new Float32Array(0), 0)).toThrow(/no openings/);
    expect(() => summariseCaPolicy(new Float32Array(CA_LOGITS + 1), 1)).toThrow(/log-probabilities for 1 rows/);
  });
});
