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
    expect(dense).toEqual({
      feature: dense.feature,
      withN: 2,
      withCaWin: 0.5,
      withoutN: 1,
      withoutCaWin: 0,
      withinToolGap: 0.5,
      withRCa: null,
      withoutRCa: null,
    });
    const hedge = s.find((x) => x.feature === 'hedge')!;
    expect(hedge.withN).toBe(0);
    expect(hedge.withCaWin).toBeNull();
  });

  it('gives the mean r_CA and each term with and without a feature, over the openings that carry it', () => {
    const r = (format: number, realism: number, conceal: number, invDa: number) => ({
      total: format + realism + conceal + invDa,
      format,
      realism,
      conceal,
      invDa,
    });
    const s = featureSplits([
      // Dense detail wins once in two but its realism is lower; the vague opening conceals better.
      { text: camouflaged, expectedTool: 'dispute_charge', daWon: false, rCa: r(0.2, 0.1, -0.5, 1) },
      { text: camouflaged, expectedTool: 'dispute_charge', daWon: true, rCa: r(0.2, 0.3, -0.5, -1) },
      { text: vague, expectedTool: 'dispute_charge', daWon: true, rCa: r(0.2, 0.6, 0, -1) },
      // Not CA-winnable: out of the split, r_CA included.
      { text: vague, expectedTool: 'dispute_charge', daWon: null, rCa: r(9, 9, 9, 9) },
      // No r_CA read: counts for the win rate, not for the means.
      { text: vague, expectedTool: 'dispute_charge', daWon: false },
    ]);
    const dense = s.find((x) => x.feature.startsWith('dense'))!;
    expect(dense.withCaWin).toBe(0.5);
    expect(dense.withoutN).toBe(2);
    expect(dense.withoutCaWin).toBe(0.5);
    // One tool: the gap within it is the plain gap.
    expect(dense.withinToolGap).toBe(0);
    expect(dense.withRCa).toEqual({ total: expect.closeTo(-0.1, 12), format: 0.2, realism: expect.closeTo(0.2, 12), conceal: -0.5, invDa: 0 });
    expect(dense.withoutRCa).toEqual({ total: expect.closeTo(-0.2, 12), format: 0.2, realism: 0.6, conceal: 0, invDa: -1 });
  });

  it('holds the mix of intents fixed in the within-tool gap (Mantel–Haenszel weights)', () => {
    const o = (text: string, expectedTool: 'dispute_charge' | 'transfer_to_human', daWon: boolean) => ({ text, expectedTool, daWon });
    // Dense openings are all disputes, which the CA wins more often whatever it says: the plain
    // gap is 0.5 − 0.25, and within the disputes dense detail wins no more (0.5 against 0.5).
    const s = featureSplits([
      o(camouflaged, 'dispute_charge', false),
      o(camouflaged, 'dispute_charge', true),
      o(vague, 'dispute_charge', false),
      o(vague, 'dispute_charge', true),
      o(vague, 'transfer_to_human', true),
      o(vague, 'transfer_to_human', true),
    ]);
    const dense = s.find((x) => x.feature.startsWith('dense'))!;
    expect(dense.withCaWin! - dense.withoutCaWin!).toBeCloseTo(0.25);
    expect(dense.withinToolGap).toBe(0);
    // Two tools with both: weights 1 (disputes, 2·2/4) and 2/3 (transfers, 1·2/3); gaps +0.5 and −0.5.
    const t = featureSplits([
      o(camouflaged, 'dispute_charge', false),
      o(camouflaged, 'dispute_charge', false),
      o(vague, 'dispute_charge', false),
      o(vague, 'dispute_charge', true),
      o(camouflaged, 'transfer_to_human', true),
      o(vague, 'transfer_to_human', false),
      o(vague, 'transfer_to_human', true),
    ]).find((x) => x.feature.startsWith('dense'))!;
    expect(t.withinToolGap).toBeCloseTo((1 * 0.5 + (2 / 3) * -0.5) / (1 + 2 / 3), 12);
  });
});
