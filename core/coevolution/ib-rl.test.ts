import { describe, expect, it } from 'vitest';
import { describeDraw, drawPairing, drawRound } from './ib-rl';
import type { Pairing } from './ib-rl';

const counts = (seed: number, pool: { pBoth: number; pDa: number; pCa: number }, n: number) => {
  const c: Record<Pairing, number> = { 'both-current': 0, 'historical-ca': 0, 'historical-da': 0 };
  for (let round = 1; round <= n; round++) c[drawPairing(seed, round, pool)]++;
  return c;
};

describe('IB-RL opponent pool', () => {
  it('draws pairings with the configured probabilities (p_both, p_agent1, p_agent2)', () => {
    const n = 3000;
    for (const pool of [
      { pBoth: 0.7, pDa: 0.2, pCa: 0.1 },
      { pBoth: 0.4, pDa: 0.3, pCa: 0.3 },
    ]) {
      const c = counts(7, pool, n);
      // Binomial standard error at n = 3,000 is ≤ 0.0092: 0.03 is over 3 of them.
      expect(c['both-current'] / n).toBeCloseTo(pool.pBoth, 1);
      expect(Math.abs(c['both-current'] / n - pool.pBoth)).toBeLessThan(0.03);
      expect(Math.abs(c['historical-ca'] / n - pool.pDa)).toBeLessThan(0.03);
      expect(Math.abs(c['historical-da'] / n - pool.pCa)).toBeLessThan(0.03);
    }
    // Across seeds too (round 1 of 2,000 runs), and from one round to the next (no run stuck on one pairing).
    const paper = { pBoth: 0.7, pDa: 0.2, pCa: 0.1 };
    const firstRounds = Array.from({ length: 2000 }, (_, i) => drawPairing(i + 1, 1, paper));
    expect(Math.abs(firstRounds.filter((p) => p === 'both-current').length / 2000 - 0.7)).toBeLessThan(0.04);
    const afterHistorical = Array.from({ length: 2000 }, (_, i) => i + 1)
      .filter((seed) => drawPairing(seed, 1, paper) !== 'both-current')
      .map((seed) => drawPairing(seed, 2, paper));
    expect(Math.abs(afterHistorical.filter((p) => p === 'both-current').length / afterHistorical.length - 0.7)).toBeLessThan(0.07);
    expect(counts(3, { pBoth: 1, pDa: 0, pCa: 0 }, 2000)).toEqual({ 'both-current': 2000, 'historical-ca': 0, 'historical-da': 0 });
  });

  it('is determined by the run seed and the round: same seed, same draws; another seed, other draws', () => {
    const pool = { pBoth: 0.7, pDa: 0.2, pCa: 0.1 };
    const seq = (seed: number) => Array.from({ length: 200 }, (_, i) => drawPairing(seed, i + 1, pool));
    expect(seq(1)).toEqual(seq(1));
    expect(seq(1)).not.toEqual(seq(2));
    const history = { DA: ['DA0', 'DA1', 'DA2', 'DA3'], CA: ['CA0', 'CA1', 'CA2'] };
    const rounds = (seed: number) =>
      Array.from({ length: 50 }, (_, i) => drawRound(seed, i + 1, { kind: 'ib-rl', pool: { pBoth: 0, pDa: 0.5, pCa: 0.5 } }, history));
    expect(rounds(4)).toEqual(rounds(4));
  });

  it('a historical member is an earlier checkpoint of the run, never the current one, and never trains', () => {
    const history = { DA: ['DA0', 'DA1', 'DA2'], CA: ['CA0', 'CA1'] };
    const seen = new Set<string>();
    for (let round = 1; round <= 200; round++) {
      const d = drawRound(5, round, { kind: 'ib-rl', pool: { pBoth: 0, pDa: 0, pCa: 1 }, stagger: { daEvery: 1, caEvery: 1 } }, history);
      expect(d.pairing).toBe('historical-da');
      expect(d.ca).toBe('CA1');
      expect(['DA0', 'DA1']).toContain(d.da);
      seen.add(d.da);
      expect(d.trains).toEqual(['CA']);
    }
    expect(seen).toEqual(new Set(['DA0', 'DA1']));
  });

  it('staggers updates: each role trains in the rounds its frequency falls on', () => {
    const history = { DA: ['DA0'], CA: ['CA0'] };
    const trains = (daEvery: number, caEvery: number) =>
      [1, 2, 3, 4].map((r) => drawRound(1, r, { kind: 'ib-rl', pool: { pBoth: 1, pDa: 0, pCa: 0 }, stagger: { daEvery, caEvery } }, history).trains);
    expect(trains(1, 2)).toEqual([['DA'], ['DA', 'CA'], ['DA'], ['DA', 'CA']]);
    expect(trains(1, 1)).toEqual([
      ['DA', 'CA'],
      ['DA', 'CA'],
      ['DA', 'CA'],
      ['DA', 'CA'],
    ]);
    const d = drawRound(1, 1, { kind: 'ib-rl', pool: { pBoth: 1, pDa: 0, pCa: 0 } }, history);
    expect(describeDraw(d)).toBe('IB-RL round 1: pool drew both current (DA0 vs CA0); DA trains (CA skipped by the stagger)');
  });
});
