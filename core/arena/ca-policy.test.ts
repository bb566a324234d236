import { describe, expect, it } from 'vitest';
import { CA_HEAD_OFFSETS, CA_HEAD_SIZES, CA_LOGITS } from '../agents/ca-choices';
import { caPolicyShift, summariseCaPolicy } from './ca-policy';
import type { CaPolicyHead } from './ca-policy';

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

describe('caPolicyShift', () => {
  /** Heads with withhold = true at `p` (false at 1 − p) and one other head left as is. */
  const heads = (p: number): CaPolicyHead[] => [
    {
      head: 'withhold',
      values: [
        { value: 'false', meanP: 1 - p, greedyShare: 0 },
        { value: 'true', meanP: p, greedyShare: 1 },
      ],
    },
    {
      head: 'hedge',
      values: [
        { value: 'false', meanP: 0.5, greedyShare: 1 },
        { value: 'true', meanP: 0.5, greedyShare: 0 },
      ],
    },
  ];

  it('gives first, last and the per-seed change with its t interval, and the seeds up and down', () => {
    // Three seeds: withhold true 0.4 → 0.9, 0.5 → 0.8, 0.6 → 0.5 (changes +0.5, +0.3, −0.1).
    const rows = caPolicyShift([
      { first: heads(0.4), last: heads(0.9) },
      { first: heads(0.5), last: heads(0.8) },
      { first: heads(0.6), last: heads(0.5) },
    ]);
    expect(rows.map((r) => `${r.head}=${r.value}`)).toEqual(['withhold=false', 'withhold=true', 'hedge=false', 'hedge=true']);
    const w = rows[1]!;
    expect(w.first.mean).toBeCloseTo(0.5, 12);
    expect(w.last.mean).toBeCloseTo(2.2 / 3, 12);
    expect(w.change.mean).toBeCloseTo(0.7 / 3, 12);
    // sd of (0.5, 0.3, −0.1) = √(((0.5−0.2333)² + (0.3−0.2333)² + (−0.1−0.2333)²) / 2) = 0.30551; t(0.975, 2) = 4.30265.
    const half = 4.302652729911275 * (0.3055050463303893 / Math.sqrt(3));
    expect(w.change.ci![0]).toBeCloseTo(0.7 / 3 - half, 6);
    expect(w.change.ci![1]).toBeCloseTo(0.7 / 3 + half, 6);
    expect([w.up, w.down]).toEqual([2, 1]);
    // A head that did not move: no seed up or down.
    expect([rows[2]!.up, rows[2]!.down, rows[2]!.change.mean]).toEqual([0, 0, 0]);
  });

  it('is empty without seeds', () => {
    expect(caPolicyShift([])).toEqual([]);
  });
});
