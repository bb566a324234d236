import { describe, expect, it } from 'vitest';
import { poolOf, scheduleOf, withPoolValue, withSchedule } from './schedule-choice';

const paper = { pBoth: 0.7, pDa: 0.2, pCa: 0.1 };

describe('the schedule picker', () => {
  const base = JSON.stringify({ arena: { episodesPerScenario: 3 } }, null, 2);
  it('IB-RL writes the schedule kind and pool into the config and reads them back; RL-ADA removes it', () => {
    const t = withSchedule(base, 'ib-rl', paper);
    expect(JSON.parse(t)).toEqual({ arena: { episodesPerScenario: 3 }, schedule: { kind: 'ib-rl', pool: paper } });
    expect(scheduleOf(t)).toBe('ib-rl');
    expect(poolOf(t)).toEqual(paper);
    const even = withPoolValue(withPoolValue(withPoolValue(t, 'pBoth', 0.4, paper), 'pDa', 0.3, paper), 'pCa', 0.3, paper);
    expect(poolOf(even)).toEqual({ pBoth: 0.4, pDa: 0.3, pCa: 0.3 });
    expect(JSON.parse(withSchedule(even, 'rl-ada', paper))).toEqual({ arena: { episodesPerScenario: 3 } });
    expect(scheduleOf(base)).toBe('rl-ada');
  });
  it("keeps what it does not own: an IB-RL block's stagger and rounds, an RL-ADA ablation, text that is not JSON", () => {
    const ib = JSON.stringify({ schedule: { kind: 'ib-rl', stagger: { daEvery: 1, caEvery: 2 }, rounds: 4, pool: { pBoth: 1, pDa: 0, pCa: 0 } } });
    expect(JSON.parse(withSchedule(ib, 'ib-rl', paper)).schedule).toEqual({
      kind: 'ib-rl',
      stagger: { daEvery: 1, caEvery: 2 },
      rounds: 4,
      pool: { pBoth: 1, pDa: 0, pCa: 0 },
    });
    const ablation = JSON.stringify({ schedule: { caGyms: false } });
    expect(JSON.parse(withSchedule(ablation, 'rl-ada', paper))).toEqual({ schedule: { caGyms: false } });
    expect(withSchedule('{ nope', 'ib-rl', paper)).toBe('{ nope');
    expect(withPoolValue(base, 'pBoth', 1, paper)).toBe(base); // no IB-RL block: nothing to set
  });
});
