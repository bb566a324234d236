import { describe, expect, it } from 'vitest';
import { studySize } from './study-size.data';

describe('a study size before it starts', () => {
  it('names the seeds as ranges or lists and counts the runs', () => {
    expect(studySize([11, 12, 13, 14, 15, 16, 17, 18, 19, 20], 2, 'quick', 2)).toEqual({ seedsText: '10 seeds (11–20)', runs: 20, warning: null });
    expect(studySize([1, 4, 7], 1, 'quick', 2).seedsText).toBe('3 seeds (1, 4, 7)');
    expect(studySize([-1], 1, 'quick', 2).seedsText).toBe('1 seed (-1)');
  });

  it('warns about a large study with its run count and how long it takes against one run', () => {
    const seeds = Array.from({ length: 50 }, (_, i) => i + 1);
    const s = studySize(seeds, 3, 'paper', 2);
    expect(s.runs).toBe(150);
    expect(s.warning).toBe(
      'A large study: 150 runs (50 seeds × 3 arms), each a full run of the paper preset, 2 at a time: about 75 times as long as one paper run. Try a few seeds first.',
    );
  });
});
