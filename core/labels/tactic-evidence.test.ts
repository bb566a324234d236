import { describe, expect, it } from 'vitest';
import { convergedTactic, featureSplits, tacticDistribution } from './tactic-evidence';

const camouflaged = 'I see a charge from AMZN MKTP for $89 yesterday, I paid online in Portland and I do not recognise it at all.';
const vague = 'Something feels off with my account.';

describe('tactic evidence', () => {
  it('counts tactics and names the dominant one with CA wins as examples first', () => {
    const openings = [
      { text: camouflaged, expectedTool: 'dispute_charge' as const, daWon: true },
      { text: camouflaged.replace('$89', '$12'), expectedTool: 'dispute_charge' as const, daWon: false },
      { text: vague, expectedTool: 'dispute_charge' as const, daWon: true },
    ];
    const dist = tacticDistribution(openings);
    expect(dist[0]).toMatchObject({ tactic: 'Contextual camouflage', n: 2 });
    expect(dist[0]!.share).toBeCloseTo(2 / 3);
    const c = convergedTactic(openings, 1)!;
    expect(c.tactic).toBe('Contextual camouflage');
    expect(c.examples).toEqual([camouflaged.replace('$89', '$12')]);
    expect(convergedTactic([])).toBeNull();
  });

  it('splits the CA win rate by a feature and leaves non-winnable episodes out', () => {
    const s = featureSplits([
      { text: camouflaged, expectedTool: 'dispute_charge', daWon: false },
      { text: camouflaged, expectedTool: 'dispute_charge', daWon: true },
      { text: vague, expectedTool: 'dispute_charge', daWon: true },
      { text: vague, expectedTool: 'dispute_charge', daWon: null },
    ]);
    const dense = s.find((x) => x.feature.startsWith('dense'))!;
    expect(dense).toEqual({ feature: dense.feature, withN: 2, withCaWin: 0.5, withoutN: 1, withoutCaWin: 0 });
    const hedge = s.find((x) => x.feature === 'hedge')!;
    expect(hedge.withN).toBe(0);
    expect(hedge.withCaWin).toBeNull();
  });
});
