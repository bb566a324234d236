import { describe, expect, it } from 'vitest';
import { parseSeeds } from './study';

describe('--seeds', () => {
  it('reads a count, a list and ranges with their ends', () => {
    expect(parseSeeds('3')).toEqual([1, 2, 3]);
    expect(parseSeeds('1,4,7')).toEqual([1, 4, 7]);
    expect(parseSeeds('11-14')).toEqual([11, 12, 13, 14]);
    expect(parseSeeds('1-2, 7, 9-10')).toEqual([1, 2, 7, 9, 10]);
    expect(parseSeeds('5-5')).toEqual([5]);
  });

  it('refuses what it cannot read, a downward range and a seed given twice, by what was given', () => {
    expect(() => parseSeeds('a-b')).toThrow(/--seeds must be a count \(10\), a list of integer seeds \(1,2,5\) or ranges \(11-20\), got "a-b"/);
    expect(() => parseSeeds('20-11')).toThrow(/the range "20-11" must run upwards/);
    expect(() => parseSeeds('1-3,2')).toThrow(/--seeds lists a seed twice: "1-3,2"/);
    expect(() => parseSeeds('0')).toThrow(/1\.\.1000/);
  });
});
