import { describe, expect, it } from 'vitest';
import { DEFAULT_HASHING, hashText, tokenize } from './features';

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
});
