import { describe, expect, it } from 'vitest';
import { checkWholeNumber } from './whole-number';

describe('a whole number typed into a form', () => {
  const episodes = (t: string) => checkWholeNumber(t, 'Episodes per scenario', { min: 1, max: 100, why: '0 would play nothing' });

  it('takes a whole number in range as it is, never clamped', () => {
    expect(episodes('7')).toEqual({ ok: true, value: 7 });
    expect(episodes(' 100 ')).toEqual({ ok: true, value: 100 });
  });

  it('refuses 0, 99999, 2.5, -1, text and nothing with a sentence naming the field', () => {
    expect(episodes('0')).toEqual({ ok: false, problem: 'Episodes per scenario must be at least 1 (0 would play nothing); 0 is too small.' });
    expect(episodes('99999')).toEqual({ ok: false, problem: 'Episodes per scenario must be at most 100; 99999 is too large.' });
    expect(episodes('2.5')).toEqual({ ok: false, problem: 'Episodes per scenario must be a whole number from 1 to 100; 2.5 is not whole.' });
    expect(episodes('-1')).toMatchObject({ ok: false, problem: expect.stringMatching(/^Episodes per scenario must be at least 1/) as string });
    expect(episodes('lots')).toEqual({ ok: false, problem: 'Episodes per scenario must be a whole number from 1 to 100; "lots" is not a number.' });
    expect(episodes('')).toEqual({ ok: false, problem: 'Episodes per scenario is empty: give a whole number from 1 to 100.' });
  });
});
