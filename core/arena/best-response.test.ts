import { describe, expect, it } from 'vitest';
import { allCaChoices } from '../agents/ca-choices';
import type { CaChoice } from '../agents/ca-choices';
import { summariseBestResponse } from './best-response';

const base: CaChoice = { directness: 'direct', detail: 0, decoy: null, hedge: false, tone: 'neutral', withhold: false };
/** Three columns: a plain opening, a vague one, a vague one with a decoy. */
const cols: CaChoice[] = [base, { ...base, directness: 'vague' }, { ...base, directness: 'vague', decoy: 'transfer_funds' }];

describe('summariseBestResponse', () => {
  it('computes greedy, per-intent 2-fold and oracle W_DA and the per-factor rates by hand', () => {
    // intent a: column 1 wins episodes 0 and 2 (fold 0), column 2 wins episode 1 (fold 1), episode 3 nothing.
    // intent b: column 2 wins both of its episodes.
    const rows = [
      { intent: 'a', wins: [0, 1, 0], greedy: 0 },
      { intent: 'a', wins: [0, 0, 1], greedy: 0 },
      { intent: 'a', wins: [0, 1, 0], greedy: 1 },
      { intent: 'a', wins: [0, 0, 0], greedy: 0 },
      { intent: 'b', wins: [0, 0, 1], greedy: 2 },
      { intent: 'b', wins: [0, 0, 1], greedy: 0 },
    ];
    const s = summariseBestResponse(rows, cols);
    expect(s.episodes).toBe(6);
    expect(s.choices).toBe(3);
    // Greedy wins episodes 2 and 4: W_DA 4/6.
    expect(s.wDaGreedy).toBeCloseTo(4 / 6, 12);
    // a: fold 0 (eps 0, 2) picks column 1, which wins none of fold 1 (eps 1, 3); fold 1 picks
    // column 2 (ep 1), which wins none of fold 0. b: fold 0 (ep 4) picks 2, wins ep 5; and back: 2 wins.
    expect(s.wDaPerIntent).toBeCloseTo(4 / 6, 12);
    expect(s.wDaPerIntentByReward).toBeNaN(); // no rewards to choose by
    expect(s.gymReward.greedy).toBeNaN();
    // Only episode 3 has no winning choice.
    expect(s.wDaOracle).toBeCloseTo(1 / 6, 12);
    expect(s.meanWinShare).toBeCloseTo(5 / 18, 12);
    const directness = s.factors.find((f) => f.head === 'directness')!.values;
    // One-step deviations: episode 4's greedy opening (column 2) made direct keeps its decoy, which no column has: no figure.
    expect(directness.find((v) => v.value === 'direct')).toEqual({
      value: 'direct',
      winRate: 0,
      meanReward: Number.NaN,
      deviation: Number.NaN,
      greedyShare: 4 / 6,
    });
    // vague: columns 1 and 2, 12 cells, 5 wins; greedy picks columns 1 or 2 in episodes 2 and 4.
    // vague: greedy 0 (eps 0, 1, 3, 5) → column 1 wins ep 0; greedy 1 (ep 2) stays, wins; greedy 2 (ep 4) stays, wins.
    expect(directness.find((v) => v.value === 'vague')).toEqual({
      value: 'vague',
      winRate: 5 / 12,
      meanReward: Number.NaN,
      deviation: 3 / 6,
      greedyShare: 2 / 6,
    });
    // No column is indirect: no rate to give.
    expect(directness.find((v) => v.value === 'indirect')!.winRate).toBeNaN();
    const decoy = s.factors.find((f) => f.head === 'decoy')!.values;
    expect(decoy.find((v) => v.value === 'transfer_funds')!.winRate).toBeCloseTo(3 / 6, 12);
    // A direct opening with a decoy is not a column: no deviation to give.
    expect(decoy.find((v) => v.value === 'transfer_funds')!.deviation).toBeNaN();
  });

  it("averages the gym's reward per value when every episode carries it", () => {
    const rows = [
      { intent: 'a', wins: [0, 1, 0], rewards: [-0.5, 1.5, -0.4], greedy: 0 },
      { intent: 'a', wins: [0, 0, 1], rewards: [-0.6, -0.5, 1.6], greedy: 2 },
    ];
    const s = summariseBestResponse(rows, cols);
    const directness = s.factors.find((f) => f.head === 'directness')!.values;
    expect(directness.find((v) => v.value === 'direct')!.meanReward).toBeCloseTo(-0.55, 12);
    expect(directness.find((v) => v.value === 'vague')!.meanReward).toBeCloseTo((1.5 - 0.4 - 0.5 + 1.6) / 4, 12);
  });

  it('chooses one opening per intent by the gym reward too: where the reward points, against where the wins are', () => {
    // Column 1 wins both episodes but its other reward terms cost more than the win pays; column 2
    // never wins and has the highest reward: a gym that follows its reward stays away from column 1.
    const rows = [
      { intent: 'a', wins: [0, 1, 0], rewards: [0.2, 0.1, 0.5], greedy: 0 },
      { intent: 'a', wins: [0, 1, 0], rewards: [0.3, 0.0, 0.4], greedy: 2 },
    ];
    const s = summariseBestResponse(rows, cols);
    expect(s.wDaGreedy).toBe(1);
    expect(s.wDaPerIntent).toBe(0); // by wins: column 1 on both folds
    expect(s.wDaPerIntentByReward).toBe(1); // by reward: column 2 on both folds, which never wins
    expect(s.gymReward.greedy).toBeCloseTo((0.2 + 0.4) / 2, 12);
    expect(s.gymReward.perIntent).toBeCloseTo((0.1 + 0.0) / 2, 12);
    expect(s.gymReward.perIntentByReward).toBeCloseTo((0.5 + 0.4) / 2, 12);
  });

  it('names what is wrong with a malformed matrix', () => {
    expect(() => summariseBestResponse([], cols)).toThrow(/no episodes/);
    expect(() => summariseBestResponse([{ intent: 'a', wins: [0, 1], greedy: 0 }], cols)).toThrow(/episode 0 has 2 results for 3 choices/);
    expect(() => summariseBestResponse([{ intent: 'a', wins: [0, 1, 0], greedy: 3 }], cols)).toThrow(/greedy choice 3/);
  });

  it('defaults to the whole action space', () => {
    const all = allCaChoices();
    const s = summariseBestResponse([{ intent: 'a', wins: all.map((_, i) => (i === 7 ? 1 : 0)), greedy: 7 }]);
    expect(s.choices).toBe(8640);
    expect(s.wDaGreedy).toBe(0);
    expect(s.wDaOracle).toBe(0);
    // One episode: the other fold is empty, so the per-intent CA is never scored and W_DA stays 1.
    expect(s.wDaPerIntent).toBe(1);
  });
});
