import { describe, expect, it } from 'vitest';
import { DEFAULT_CONFIG } from '../config';
import { runConfigSchema } from '../coevolution/run-config';
import { PRESETS } from '../presets';
import { adversityProfile, checkWrite, effectiveConfig, KNOBS, knobValue, withKnob } from './knobs';
import { measureEffect } from './effect';
import { boundCaChoice } from '../agents/ca-choices';
import type { CaChoice } from '../agents/ca-choices';
import { Rng } from '../random';

const quick = PRESETS.quick.config;

describe('knob registry', () => {
  it('declares every knob once, each at a run-config path the schema accepts, with its current value in range', () => {
    expect(new Set(KNOBS.map((k) => k.id)).size).toBe(KNOBS.length);
    for (const k of KNOBS) {
      const v = knobValue(quick, k.id);
      expect(v, k.id).toBeGreaterThanOrEqual(k.min);
      expect(v, k.id).toBeLessThanOrEqual(k.max);
      // Setting it to a value in range yields a config the schema takes, with the value at the path.
      const target = k.type === 'integer' ? Math.min(k.max, Math.max(k.min, Math.round(v) === k.max ? k.max - 1 : Math.round(v) + 1)) : (k.min + k.max) / 2;
      const c = withKnob(quick, k.id, target);
      expect(runConfigSchema.safeParse(c).success, k.id).toBe(true);
      expect(knobValue(c, k.id), k.id).toBe(target);
      expect(k.meaning.length, k.id).toBeGreaterThan(10);
    }
  });

  it('covers what the issue lists: tactic bounds, adversities, turn limit, every reward weight, β, lr, K, clip ε, gym mix, τ_DA, r_CA, ε', () => {
    const ids = new Set(KNOBS.map((k) => k.id));
    for (const id of [
      'ca.tactics.detailDensity',
      'ca.tactics.decoyRate',
      'ca.tactics.directness',
      'ca.tactics.withholding',
      'adversities.partial_information',
      'arena.maxDaTurns',
      'gym.da.klBeta',
      'gym.ca.klBeta',
      'gym.da.lr',
      'gym.da.K',
      'gym.ca.clipEps',
      'gym.failureShare',
      'stopping.tauDa',
      'stopping.rCa',
      'customer.symbolicMix',
    ])
      expect(ids.has(id), id).toBe(true);
    for (const t of Object.keys(DEFAULT_CONFIG.daReward)) expect(ids.has(`daReward.${t}`), t).toBe(true);
    for (const t of Object.keys(DEFAULT_CONFIG.caReward)) expect(ids.has(`caReward.${t}`), t).toBe(true);
    expect(new Set(KNOBS.map((k) => k.owner))).toEqual(new Set(['user-simulator', 'environment', 'reward', 'rl']));
  });

  it('adversity rates turn adversities on at those rates, a 0 leaving a kind out', () => {
    expect(knobValue(quick, 'adversities.timeout')).toBe(0);
    const c = withKnob({ ...quick, adversities: true }, 'adversities.timeout', 0);
    expect(adversityProfile(c)!.map((a) => a.kind)).toEqual(['partial_information', 'adversarial_tone', 'backend_failure', 'empty_results']);
    expect(knobValue(c, 'adversities.partial_information')).toBe(0.3);
  });

  it('the effective config is the base with the writes set in order', () => {
    const c = effectiveConfig(quick, [
      { knob: 'gym.da.lr', value: 3e-4 },
      { knob: 'arena.maxDaTurns', value: 4 },
      { knob: 'gym.da.lr', value: 2e-4 },
    ]);
    expect(c.gym.da.lr).toBe(2e-4);
    expect(c.arena.maxDaTurns).toBe(4);
    expect(quick.gym.da.lr).not.toBe(2e-4); // the base is left as it was
  });
});

describe('checked writes', () => {
  const at = (over: Partial<Parameters<typeof checkWrite>[2]> = {}) => ({ config: quick, phase: 'gym', recentSuccess: 0.9, ...over });

  it('refuses out-of-range values and non-integers, naming the range rule', () => {
    expect(checkWrite('arena.maxDaTurns', 80, at())).toMatchObject({ ok: false, rule: 'range', message: expect.stringContaining('[1, 50]') });
    expect(checkWrite('gym.da.K', 4.5, at())).toMatchObject({ ok: false, rule: 'range' });
    expect(checkWrite('gym.da.lr', 'fast', at())).toMatchObject({ ok: false, rule: 'range' });
    expect(checkWrite('nope.knob', 1, at())).toMatchObject({ ok: false, rule: 'unknown-knob' });
    expect(checkWrite('gym.da.lr', 3e-4, at())).toMatchObject({ ok: true, from: quick.gym.da.lr, value: 3e-4 });
  });

  it('refuses a difficulty-raising write below the gate (0.80 by default, configurable), not an easing one', () => {
    expect(checkWrite('arena.maxDaTurns', 6, at({ recentSuccess: 0.79 }))).toMatchObject({ ok: false, rule: 'difficulty-gate' });
    expect(checkWrite('arena.maxDaTurns', 6, at({ recentSuccess: null }))).toMatchObject({
      ok: false,
      rule: 'difficulty-gate',
      message: expect.stringContaining('no match'),
    });
    expect(checkWrite('arena.maxDaTurns', 6, at({ recentSuccess: 0.8 }))).toMatchObject({ ok: true });
    expect(checkWrite('arena.maxDaTurns', 20, at({ recentSuccess: 0.1 }))).toMatchObject({ ok: true });
    expect(checkWrite('ca.tactics.decoyRate', 0.5, at({ recentSuccess: 0.1 }))).toMatchObject({ ok: true }); // 1 → 0.5 eases
    const gated = { ...quick, eau: { difficultyGate: 0.5 } };
    expect(checkWrite('arena.maxDaTurns', 6, at({ config: gated, recentSuccess: 0.6 }))).toMatchObject({ ok: true });
    // A revert restores a value the run had: the gate does not hold it back.
    expect(checkWrite('arena.maxDaTurns', 6, at({ recentSuccess: 0.1, revert: true }))).toMatchObject({ ok: true });
  });

  it('refuses writes while held-out evaluation runs and once the run has ended', () => {
    for (const phase of ['evaluate', 'done', 'stopped', 'failed'])
      expect(checkWrite('gym.da.lr', 3e-4, at({ phase }))).toMatchObject({ ok: false, rule: 'phase' });
    for (const phase of ['bootstrap', 'match', 'gym', 'paused']) expect(checkWrite('gym.da.lr', 3e-4, at({ phase })).ok).toBe(true);
  });
});

describe('measured effect', () => {
  it('keeps an improvement beyond the noise floor, proposes a revert for a loss beyond it, and says inconclusive inside it', () => {
    const spec = { name: 'W_DA', window: 3, better: 1 as const };
    expect(measureEffect(spec, [0.2, 0.22, 0.21], [0.6, 0.62, 0.61]).mark).toBe('kept');
    expect(measureEffect(spec, [0.6, 0.62, 0.61], [0.2, 0.22, 0.21]).mark).toBe('reverted');
    const flat = measureEffect(spec, [0.2, 0.6, 0.4], [0.3, 0.5, 0.45]);
    expect(flat.mark).toBe('inconclusive');
    expect(flat.noiseFloor!).toBeGreaterThan(Math.abs(flat.delta!));
    expect(measureEffect(spec, [0.2], [0.6, 0.7]).mark).toBe('too-early');
  });
});

describe('CA tactic bounds (ca.tactics)', () => {
  const choice: CaChoice = { directness: 'vague', detail: 3, decoy: 'dispute_charge', hedge: true, tone: 'neutral', withhold: true };
  it('leaves a choice and the random stream alone without bounds, and applies each bound', () => {
    const a = new Rng(5);
    const b = new Rng(5);
    expect(boundCaChoice(choice, undefined, a)).toBe(choice);
    expect(boundCaChoice(choice, { detailDensity: 3, decoyRate: 1, directness: 1, withholding: 1 }, a)).toEqual(choice);
    expect(a.next()).toBe(b.next()); // no draw was taken
    expect(boundCaChoice(choice, { detailDensity: 1, decoyRate: 0, directness: 0, withholding: 0 }, a)).toEqual({
      ...choice,
      detail: 1,
      decoy: null,
      directness: 'direct',
      withhold: false,
    });
    // A share keeps about that share of the tactic.
    const rng = new Rng(1);
    const kept = Array.from({ length: 2000 }, () => boundCaChoice(choice, { decoyRate: 0.25 }, rng).decoy !== null).filter(Boolean).length / 2000;
    expect(kept).toBeGreaterThan(0.2);
    expect(kept).toBeLessThan(0.3);
  });
});
