import { describe, expect, it } from 'vitest';
import type { BestResponseView } from '../../../../core/contract/contract';
import { bestResponseFactorRows, bestResponseLines } from './best-response.data';

const report: BestResponseView = {
  matchId: 'R1-M5',
  da: 'DA3',
  ca: 'CA6',
  wDaStored: 0.882,
  runId: 'R1',
  episodes: 144,
  choices: 8640,
  wDaGreedy: 0.847,
  wDaPerIntent: 0.681,
  wDaPerIntentByReward: 0.674,
  gymReward: { greedy: -0.194, perIntent: -0.059, perIntentByReward: 0.102 },
  wDaOracle: 0.042,
  meanWinShare: 0.079,
  factors: [
    {
      head: 'withhold',
      values: [
        { value: 'false', winRate: 0.09, meanReward: -0.4, deviation: 0.2, greedyShare: 0 },
        { value: 'true', winRate: 0.07, meanReward: Number.NaN, deviation: Number.NaN, greedyShare: 1 },
      ],
    },
  ],
};

describe('best-response view', () => {
  it('lists the five lines of `sparring best-response`, a random opening as 1 − the mean win share, no reward where there is none', () => {
    const lines = bestResponseLines(report);
    expect(lines.map((l) => l.key)).toEqual(['greedy', 'perIntent', 'perIntentByReward', 'oracle', 'random']);
    expect(lines.map((l) => l.wDa)).toEqual([0.847, 0.681, 0.674, 0.042, 1 - 0.079]);
    expect(lines.map((l) => l.gymReward)).toEqual([-0.194, -0.059, 0.102, null, null]);
    expect(bestResponseLines({ ...report, gymReward: { greedy: Number.NaN, perIntent: Number.NaN, perIntentByReward: Number.NaN } })[0]!.gymReward).toBeNull();
  });
  it('flattens the factors, naming each head once and a missing value as null', () => {
    const rows = bestResponseFactorRows(report);
    expect(rows.map((r) => [r.head, r.value, r.first])).toEqual([
      ['withhold', 'false', true],
      ['withhold', 'true', false],
    ]);
    expect(rows[1]).toMatchObject({ winRate: 0.07, meanReward: null, deviation: null, greedyShare: 1 });
  });
});
