import { describe, expect, it } from 'vitest';
import { defaultChartMatch } from './export.data';

const match = (id: string, ...episodes: number[]) => ({
  id,
  perScenario: episodes.map((n, i) => ({ scenarioId: `s${i}`, fraudReference: false, episodes: n, daWins: 0, daWinRate: 0 })),
});

describe('export chart picker', () => {
  it('defaults to the newest match with enough episodes, not a one-episode human match', () => {
    expect(defaultChartMatch([match('M1', 3, 3), match('M2', 2, 2), match('human-1', 1)])).toBe('M2');
    expect(defaultChartMatch([match('human-1', 1)])).toBe('human-1');
    expect(defaultChartMatch([])).toBeNull();
  });
});
