import { describe, expect, it } from 'vitest';
import { DEFAULT_CONFIG } from '../config';
import { gap, stoppingDecision, weakerAgent } from './stopping';

const cfg = DEFAULT_CONFIG.stopping;

describe('stopping rule (RL-ADA §3.6)', () => {
  /**
   * The paper's Table 3 trajectory. The extracted seed lost the table's numbers; this sequence
   * is reconstructed from the text: W_DA drops at matches 3 and 5 (after CA gym cycles), the
   * rule fires at match 5 with |δ| = 0.02 ≤ ε and P = 2, three of eight matches unused.
   */
  const table3 = [0.45, 0.63, 0.55, 0.68, 0.66];

  it('replays the Table 3 trajectory and fires at match 5', () => {
    const decisions = table3.map((_, i) => stoppingDecision(table3.slice(0, i + 1), cfg));
    expect(decisions.map((d) => d.stop)).toEqual([false, false, false, false, true]);
    const d5 = decisions[4]!;
    expect(d5.reason).toBe('converged');
    expect(d5.delta).toBeCloseTo(0.02);
    expect(d5.streak).toBe(2);
    expect(d5.explanation).toMatch(/stop at match 5: converged/);
    // match 4 passes competency only once in a row (0.55 < τ at match 3)
    expect(decisions[3]).toMatchObject({ streak: 1, competencyGate: false });
    expect(decisions[1]!.explanation).toMatch(/fewer than n_min=3/);
  });

  it('needs n_min matches even when both gates hold early', () => {
    expect(stoppingDecision([0.7, 0.71], cfg).stop).toBe(false);
    expect(stoppingDecision([0.7, 0.71, 0.72], cfg)).toMatchObject({ stop: true, reason: 'converged' });
  });

  it('needs the stability gate on the latest match', () => {
    const d = stoppingDecision([0.5, 0.62, 0.75], cfg);
    expect(d).toMatchObject({ stop: false, competencyGate: true, stabilityGate: false });
    expect(d.explanation).toMatch(/stability gate not met/);
    expect(stoppingDecision([0.5, 0.62, 0.67], cfg).stop).toBe(true); // |δ| = 0.05 exactly
  });

  it('stops at n_max whatever the gates say', () => {
    const w = [0.3, 0.4, 0.3, 0.4, 0.3, 0.4, 0.3, 0.4];
    expect(stoppingDecision(w.slice(0, 7), cfg).stop).toBe(false);
    expect(stoppingDecision(w, cfg)).toMatchObject({ stop: true, reason: 'max_matches' });
  });
});

describe('weaker agent', () => {
  it('picks the agent further below its floor', () => {
    expect(weakerAgent(0.45, cfg).role).toBe('DA'); // DA 0.15 below, CA 0.20 above
    expect(weakerAgent(0.8, cfg).role).toBe('CA'); // W_CA 0.20 < r_CA 0.35
    const w = weakerAgent(0.62, cfg); // DA −0.02, CA 0.35 − 0.38 = −0.03
    expect(w.role).toBe('DA');
    expect(w.daShortfall).toBeCloseTo(-0.02);
    expect(w.caShortfall).toBeCloseTo(-0.03);
  });
});

describe('stopping rule in words', () => {
  it('says "above by" rather than a negative shortfall, and counts the run of matches plainly', () => {
    expect(gap(0.1, 'τ_DA=0.60')).toBe('0.10 below τ_DA=0.60');
    expect(gap(-0.4, 'τ_DA=0.60')).toBe('above τ_DA=0.60 by 0.40');
    expect(gap(0.001, 'τ_DA=0.60')).toBe('at τ_DA=0.60');
    const cfg = { ...DEFAULT_CONFIG.stopping, tauDa: 0.6, rCa: 0.1 };
    expect(weakerAgent(1, cfg).explanation).toBe('CA trains: the DA is above τ_DA=0.60 by 0.40, the CA is 0.10 below r_CA=0.10 (W_CA=0.00)');
    const d = stoppingDecision([0.7, 0.7, 0.7], { ...cfg, P: 2, nMin: 5 });
    expect(d.explanation).toContain('3 matches in a row at or above it, 2 needed');
    expect(d.explanation).not.toMatch(/consecutive|-\d/);
  });
});
