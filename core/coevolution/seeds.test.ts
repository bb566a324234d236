import { describe, expect, it } from 'vitest';
import { parseSeedText } from './seeds';

describe('seeds text, as the CLI and the Studies screen read it', () => {
  it('reads counts, lists and ranges', () => {
    expect(parseSeedText('2')).toEqual([1, 2]);
    expect(parseSeedText('11-20', 'Seeds')).toEqual([11, 12, 13, 14, 15, 16, 17, 18, 19, 20]);
    expect(parseSeedText('-1,3')).toEqual([-1, 3]);
  });

  it('refuses 0, 2.5 and nonsense by the name the field has where it was written', () => {
    expect(() => parseSeedText('0', 'Seeds')).toThrow('Seeds must be 1..1000 or a list of seeds, got "0"');
    expect(() => parseSeedText('2.5', 'Seeds')).toThrow('Seeds must be a count (10), a list of integer seeds (1,2,5) or ranges (11-20), got "2.5"');
    expect(() => parseSeedText('', 'Seeds')).toThrow(/^Seeds must be a count/);
    expect(() => parseSeedText('1-1000,2000-2999', 'Seeds')).toThrow('Seeds names 2000 seeds; a study has at most 1000');
  });
});
