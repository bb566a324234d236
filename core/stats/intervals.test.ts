import { describe, expect, it } from 'vitest';
import { meanInterval, MIN_T_INTERVAL_N, pairedDifference, studentTCdf, studentTQuantile, wilsonInterval } from './intervals';

/**
 * Student (1908), "The probable error of a mean", the sleep data of Cushny & Peebles (1905):
 * extra hours of sleep of 10 patients under two drugs (R's `sleep` data set).
 */
const drug1 = [0.7, -1.6, -0.2, -1.2, -0.1, 3.4, 3.7, 0.8, 0.0, 2.0];
const drug2 = [1.9, 0.8, 1.1, 0.1, -0.1, 4.4, 5.5, 1.6, 4.6, 3.4];
const bySeed = (xs: number[]) => new Map(xs.map((v, i) => [i + 1, v]));

describe('Student t', () => {
  it('quantiles match the printed tables', () => {
    expect(studentTQuantile(0.975, 9)).toBeCloseTo(2.262157, 5);
    expect(studentTQuantile(0.975, 1)).toBeCloseTo(12.7062, 3);
    expect(studentTQuantile(0.975, 4)).toBeCloseTo(2.776445, 5);
    expect(studentTQuantile(0.975, 1000)).toBeCloseTo(1.962339, 5);
    expect(studentTQuantile(0.025, 9)).toBeCloseTo(-2.262157, 5);
    expect(studentTCdf(0, 5)).toBeCloseTo(0.5, 12);
  });
});

describe('meanInterval', () => {
  it('one sample: drug 1 of the sleep data (R t.test: mean 0.75, t 1.3257, df 9, 95% CI [-0.5298, 2.0298])', () => {
    const r = meanInterval(drug1);
    expect(r.mean).toBeCloseTo(0.75, 10);
    expect(r.df).toBe(9);
    expect(r.t!).toBeCloseTo(1.3257, 4);
    expect(r.ci![0]).toBeCloseTo(-0.5297804, 5);
    expect(r.ci![1]).toBeCloseTo(2.0297804, 5);
  });

  it('needs MIN_T_INTERVAL_N (3) values for an interval; ignores non-finite values', () => {
    expect(MIN_T_INTERVAL_N).toBe(3);
    expect(meanInterval([0.4]).ci).toBeNull();
    expect(meanInterval([]).n).toBe(0);
    expect(meanInterval([1, Number.NaN, 3]).n).toBe(2);
    // Two values: the mean and sd, no interval (t(0.975, 1) = 12.71 would span any rate's range).
    const two = meanInterval([0.85, 0.95]);
    expect(two.mean).toBeCloseTo(0.9, 12);
    expect(two.sd).toBeCloseTo(0.0707107, 6);
    expect(two.ci).toBeNull();
    const same = meanInterval([0.5, 0.5, 0.5]);
    expect(same.ci).toEqual([0.5, 0.5]);
    expect(same.t).toBeNull();
  });

  it('cuts the interval to the bounds a quantity cannot leave, and only there', () => {
    // Three seeds at 0.75, 1.0, 1.0: mean 0.9167, sd 0.1443, t(0.975, 2) = 4.3027 → [0.5581, 1.2752].
    const open = meanInterval([0.75, 1, 1]);
    expect(open.ci![0]).toBeCloseTo(0.5581, 3);
    expect(open.ci![1]).toBeCloseTo(1.2752, 3);
    const rate = meanInterval([0.75, 1, 1], 0.95, [0, 1]);
    expect(rate.ci![0]).toBeCloseTo(0.5581, 3);
    expect(rate.ci![1]).toBe(1);
    expect(rate.mean).toBe(open.mean);
    // Inside the bounds nothing changes.
    expect(meanInterval(drug1, 0.95, [-10, 10]).ci).toEqual(meanInterval(drug1).ci);
  });
});

describe('pairedDifference', () => {
  it('the sleep data: drug 2 − drug 1 has mean 1.58, t 4.062, df 9, 95% CI [0.700, 2.460]', () => {
    const r = pairedDifference(bySeed(drug2), bySeed(drug1));
    expect(r.seeds).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    expect(r.mean).toBeCloseTo(1.58, 10);
    expect(r.sd).toBeCloseTo(1.229995, 5);
    expect(r.t!).toBeCloseTo(4.062128, 5);
    expect(r.df).toBe(9);
    expect(r.ci![0]).toBeCloseTo(0.7001142, 5);
    expect(r.ci![1]).toBeCloseTo(2.4598858, 5);
  });

  it('pairs on shared seeds only', () => {
    const a = new Map([
      [1, 0.9],
      [2, 0.8],
      [3, 0.7],
    ]);
    const b = new Map([
      [2, 0.5],
      [3, 0.6],
      [4, 0.1],
    ]);
    const r = pairedDifference(a, b);
    expect(r.seeds).toEqual([2, 3]);
    expect(r.mean).toBeCloseTo(0.2, 10);
  });
});

describe('wilsonInterval', () => {
  it('Newcombe (1998), Table I: 81/263 → [0.2553, 0.3662]; 15/148 → [0.0624, 0.1605]', () => {
    const [lo, hi] = wilsonInterval(81, 263)!;
    expect(lo).toBeCloseTo(0.2553, 4);
    expect(hi).toBeCloseTo(0.3662, 4);
    const [lo2, hi2] = wilsonInterval(15, 148)!;
    expect(lo2).toBeCloseTo(0.0624, 4);
    expect(hi2).toBeCloseTo(0.1605, 4);
  });
});
