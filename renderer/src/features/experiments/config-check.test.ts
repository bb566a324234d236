import { describe, expect, it } from 'vitest';
import { checkConfigText, lineColumn, seedProblem } from './config-check';

describe('config editor checks', () => {
  it('accepts a JSON object', () => {
    expect(checkConfigText('{"arena": {"n": [1, 2.5e3, true, null, "x\\"y"]}}')).toEqual({ ok: true });
  });

  it('rejects empty text and non-objects', () => {
    expect(checkConfigText('  ')).toMatchObject({ ok: false, message: 'the config is empty' });
    expect(checkConfigText('[1]')).toMatchObject({ ok: false, message: 'the config must be a JSON object' });
  });

  it('points at the line and column where JSON breaks', () => {
    expect(checkConfigText('{\n  "a": 1,\n  "b": }')).toEqual({ ok: false, message: 'unexpected "}": expected a value', line: 3, column: 8 });
    expect(checkConfigText('{\n  "a": 1,\n}')).toMatchObject({ line: 3, column: 1, message: expect.stringMatching(/field name/) });
    expect(checkConfigText('{"a": 1 "b": 2}')).toMatchObject({ line: 1, column: 9, message: expect.stringMatching(/expected "," or "}"/) });
    expect(checkConfigText('{"a": 1')).toMatchObject({ message: expect.stringMatching(/ends too early/) });
  });

  it('maps offsets to 1-based lines and columns', () => {
    expect(lineColumn('ab\ncd', 4)).toEqual({ line: 2, column: 2 });
    expect(lineColumn('abc', 0)).toEqual({ line: 1, column: 1 });
  });
});

describe('seed check', () => {
  it('says why a seed cannot start a run: empty, not whole, out of range', () => {
    expect(seedProblem(1)).toBeNull();
    expect(seedProblem(-7)).toBeNull();
    expect(seedProblem(Number.NaN)).toBe('Enter a seed: a whole number such as 1.');
    expect(seedProblem(1.5)).toBe('The seed must be a whole number (not 1.5).');
    expect(seedProblem(2 ** 31)).toMatch(/between/);
  });
});
