import { describe, expect, it } from 'vitest';
import { DEFAULT_HASHING, HashedTexts, hashText, hashTextWeighted, tokenize } from './features';

describe('feature hashing', () => {
  it('is deterministic, in range, and pads with bucket 0 at weight 0', () => {
    const a = hashText('I was charged twice at Blue Bottle Coffee');
    const b = hashText('I was charged twice at Blue Bottle Coffee');
    expect(a).toEqual(b);
    const used = a.weights.filter((w) => w > 0).length;
    expect(used).toBeGreaterThan(10);
    for (let i = 0; i < DEFAULT_HASHING.bagLength; i++) {
      if (i < used) expect(a.indices[i]).toBeGreaterThan(0);
      else expect([a.indices[i], a.weights[i]]).toEqual([0, 0]);
      expect(a.indices[i]).toBeLessThan(DEFAULT_HASHING.buckets);
    }
    // 1/sqrt(n) weights: unit L2 norm over the kept grams
    expect(a.weights.reduce((s, w) => s + w * w, 0)).toBeCloseTo(1, 5);
  });

  it('collapses numbers to shape tokens and separates namespaces', () => {
    expect(tokenize('It was $1,250.50, not 40 bucks!')).toEqual(['it', 'was', '<money>', 'not', '<num>', 'bucks']);
    expect(hashText('hello there', DEFAULT_HASHING, 'agent:').indices).not.toEqual(hashText('hello there').indices);
    expect(hashText('').weights.every((w) => w === 0)).toBe(true);
  });

  it('sublinearTf gives a repeated gram one slot at 1 + ln tf; blockNorm splits the norm between word and character grams', () => {
    const cfg = { buckets: 1 << 12, bagLength: 64, wordNgrams: [1], charNgrams: [3] };
    // "aa aa b": words aa (twice) and b; character 3-grams <aa, aa> (twice each) and <b>.
    const plain = hashText('aa aa b', cfg);
    expect(plain.weights.filter((w) => w > 0)).toHaveLength(3 + 5); // a slot per occurrence
    const tf = hashText('aa aa b', { ...cfg, sublinearTf: true });
    const kept = tf.weights.filter((w) => w > 0);
    expect(kept).toHaveLength(2 + 3); // aa, b, <aa, aa>, <b>
    const raw = [1 + Math.log(2), 1, 1 + Math.log(2), 1 + Math.log(2), 1];
    const norm = Math.sqrt(raw.reduce((a, x) => a + x * x, 0));
    raw.forEach((x, i) => expect(kept[i]).toBeCloseTo(x / norm, 6));
    expect(tf.indices[0]).toBe(plain.indices[0]); // the same buckets: only the weights and slots change
    const both = hashText('aa aa b', { ...cfg, sublinearTf: true, blockNorm: true });
    const w2 = (from: number, to: number) => Array.from(both.weights.subarray(from, to)).reduce((a, w) => a + w * w, 0);
    expect(w2(0, 2)).toBeCloseTo(0.5, 6); // word grams
    expect(w2(2, 5)).toBeCloseTo(0.5, 6); // character grams
    expect(both.weights[1]! / both.weights[0]!).toBeCloseTo(1 / (1 + Math.log(2)), 6);
    expect(hashText('', { ...cfg, blockNorm: true }).weights.every((w) => w === 0)).toBe(true);
  });

  it('HashedTexts returns hashText by namespace and text, and stays bounded', () => {
    const memo = new HashedTexts(DEFAULT_HASHING, 2);
    const a = memo.get('my card is lost', 'x');
    expect(a).toEqual(hashText('my card is lost', DEFAULT_HASHING, 'x'));
    expect(memo.get('my card is lost', 'x')).toBe(a); // memoised
    expect(memo.get('my card is lost', 'y')).toEqual(hashText('my card is lost', DEFAULT_HASHING, 'y'));
    expect(memo.get('my card is lost', 'y')).not.toEqual(a); // the namespace is part of the key
    memo.get('a third text'); // full at 2: cleared, then this one kept
    expect(memo.get('my card is lost', 'x')).not.toBe(a);
    expect(memo.get('my card is lost', 'x')).toEqual(a);
  });
});

describe('hashText without building gram strings', () => {
  it('gives the bag of the gram strings: slots, buckets and weights, in every namespace, order and truncation', () => {
    const texts = [
      '',
      'hi',
      "I was charged twice at Blue Bottle Coffee, $12.50 — can you reverse it? it's not mine",
      'my card my card my card',
      'a '.repeat(200), // more grams than the bag holds: truncated in the same place
      'Ünïcödé wörds ’quoted’ and 40 numbers',
    ];
    const configs = [
      DEFAULT_HASHING,
      { ...DEFAULT_HASHING, buckets: 1 << 14, blockNorm: true },
      { buckets: 1 << 13, bagLength: 48, wordNgrams: [1, 2], charNgrams: [] },
      { buckets: 977, bagLength: 40, wordNgrams: [1, 2, 3], charNgrams: [2, 5], blockNorm: true },
      { buckets: 1 << 12, bagLength: 64, wordNgrams: [], charNgrams: [3] },
    ];
    for (const cfg of configs)
      for (const ns of ['', 'agent:'])
        for (const t of texts) {
          const want = hashTextWeighted(t, cfg, ns);
          const got = hashText(t, cfg, ns);
          expect(Array.from(got.indices), `${JSON.stringify(cfg)} ${ns} ${t.slice(0, 20)}`).toEqual(Array.from(want.indices));
          expect(Array.from(got.weights)).toEqual(Array.from(want.weights));
        }
  });
});
