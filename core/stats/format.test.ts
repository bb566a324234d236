import { describe, expect, it } from 'vitest';
import { fixed, meanText, signedFixed } from './format';
import * as renderer from '../../renderer/src/format';

describe('fixed and signedFixed', () => {
  it('drops the sign of a value that rounds to zero and keeps every other', () => {
    expect((-0.001).toFixed(2)).toBe('-0.00');
    expect(fixed(-0.001, 2)).toBe('0.00');
    expect(fixed(-0, 1)).toBe('0.0');
    expect(fixed(-0.004, 0)).toBe('0');
    expect(fixed(-0.005, 2)).toBe('-0.01');
    expect(fixed(-12.34, 1)).toBe('-12.3');
    expect(fixed(0.04, 1)).toBe('0.0');
  });
  it('signs differences with U+2212, zero as +', () => {
    expect(signedFixed(1.23, 1)).toBe('+1.2');
    expect(signedFixed(-0.3, 1)).toBe('−0.3');
    expect(signedFixed(-0.0004, 2)).toBe('+0.00');
    expect(signedFixed(0, 1)).toBe('+0.0');
  });
  it('the renderer’s copy (renderer/src/format.ts) agrees around zero and away from it', () => {
    for (const x of [-0.001, -0, 0, 0.004, -0.005, -12.34, 7.5, 0.049, -0.049]) {
      for (const d of [0, 1, 2]) {
        expect(renderer.fixed(x, d)).toBe(fixed(x, d));
        expect(renderer.signedFixed(x, d)).toBe(signedFixed(x, d));
      }
    }
  });
});

describe('meanText', () => {
  it('prints the interval when there is one and says so when n is too small for one (hosts and renderer alike)', () => {
    const f = (v: number) => (v * 100).toFixed(1);
    for (const text of [meanText, renderer.meanText]) {
      expect(text({ n: 3, mean: 0.9, ci: [0.84, 0.96] }, f)).toBe('90.0 [84.0, 96.0]');
      expect(text({ n: 2, mean: 0.9, ci: null }, f)).toBe('90.0 (n=2: too few for an interval)');
      expect(text({ n: 0, mean: Number.NaN, ci: null }, f)).toBe('–');
    }
  });
});
