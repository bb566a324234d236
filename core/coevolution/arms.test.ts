import { describe, expect, it } from 'vitest';
import { ARMS, armConfig, configOverlay, customArm, deepMerge, overlayConfig, parseArms, studyArmConfigs } from './arms';
import { RunConfigError } from './run-config';
import { PRESETS } from '../presets';

const quick = PRESETS.quick.config;

describe('parseArms', () => {
  it('keeps the order given; refuses an unknown arm, a repeat, and a budget arm without full, by name', () => {
    expect(parseArms('full, no-ca-training')).toEqual(['full', 'no-ca-training']);
    expect(() => parseArms('full,no-such')).toThrow(/unknown arm "no-such"; known: full, fixed-opponent/);
    expect(() => parseArms('full,full')).toThrow(/arm "full" given twice/);
    expect(() => parseArms('fixed-opponent,no-isolation')).toThrow(/fixed-opponent takes the DA gym budget of the full arm .* add full/);
    expect(() => parseArms('')).toThrow(RunConfigError);
  });
});

describe('custom arms', () => {
  const steps = customArm('da-steps-3', '{"gym": {"da": {"steps": 3}}}', 'steps.json');

  it('come after the listed arms unless listed; their overlay is merged over the base and checked', () => {
    expect(parseArms('full,no-ca-training', [steps])).toEqual(['full', 'no-ca-training', 'da-steps-3']);
    expect(parseArms('da-steps-3,full', [steps])).toEqual(['da-steps-3', 'full']);
    expect(parseArms('', [steps])).toEqual(['da-steps-3']);
    const configOf = studyArmConfigs(quick, ['full', 'fixed-opponent', 'da-steps-3'], [steps]);
    expect(configOf('da-steps-3').gym.da.steps).toBe(3);
    expect(configOf('da-steps-3').gym.ca).toEqual(quick.gym.ca);
    expect(configOf('full')).toEqual(quick);
    expect(configOf('fixed-opponent').schedule?.daGyms).toBe(1);
    expect(() => configOf('nope')).toThrow(/no arm "nope"/);
  });

  it('show as the overlay their config makes of the base: the leaves that differ, nothing else', () => {
    const overlay = { schedule: { caGyms: false }, gym: { da: { steps: 3 }, failureShare: 0.5 } };
    const config = overlayConfig(quick, overlay, 'test');
    expect(configOverlay(quick, config)).toEqual(overlay);
    expect(configOverlay(quick, quick)).toEqual({});
    expect(configOverlay({ a: [1, 2], b: 1 }, { a: [1, 3], b: 1, c: { d: 1 } })).toEqual({ a: [1, 3], c: { d: 1 } });
  });

  it('refuse a bad name, a shipped name, text that is not a JSON object, an unknown field and a repeat, by name', () => {
    expect(() => customArm('Bad Name', '{}', 'x.json')).toThrow(/arm Bad Name \(x\.json\).*lower-case letters/);
    expect(() => customArm('full', '{}', 'x.json')).toThrow(/"full" is a shipped arm/);
    expect(() => customArm('a', '{\n  "gym": 1,\n}', 'x.json')).toThrow(/arm a \(x\.json\).*not JSON \(line 3, column 1\)/);
    expect(() => customArm('a', '{\n  "gym": }', 'x.json')).toThrow(/arm a \(x\.json\).*not JSON: Unexpected token/);
    expect(() => customArm('a', '[1]', 'x.json')).toThrow(/an overlay is a JSON object/);
    const typo = customArm('typo', '{"gym": {"failurShare": 0.5}}', 'typo.json');
    expect(() => studyArmConfigs(quick, ['typo'], [typo])).toThrow(/arm typo \(typo\.json\).*failurShare/);
    expect(() => parseArms('full', [steps, steps])).toThrow(/custom arm "da-steps-3" given twice/);
    expect(() => parseArms('full,other', [steps])).toThrow(/unknown arm "other"; known: .*da-steps-3/);
  });
});

describe('deepMerge', () => {
  it('merges objects key by key, replaces scalars and arrays, leaves the base unchanged', () => {
    const base = { a: { b: 1, c: [1, 2] }, d: 3 };
    expect(deepMerge(base, { a: { c: [9] }, e: { f: 1 } })).toEqual({ a: { b: 1, c: [9] }, d: 3, e: { f: 1 } });
    expect(base).toEqual({ a: { b: 1, c: [1, 2] }, d: 3 });
  });
});

describe('armConfig', () => {
  it('full is the preset; the mix arms set the failure share; no-stop-rule sets n_min = n_max', () => {
    expect(armConfig(quick, 'full')).toEqual(quick);
    expect(armConfig(quick, 'mix-50-50').gym.failureShare).toBe(0.5);
    expect(armConfig(quick, 'mix-100-0').gym.failureShare).toBe(1);
    const noStop = armConfig(PRESETS.paper.config, 'no-stop-rule');
    expect(noStop.stopping.nMin).toBe(PRESETS.paper.config.stopping.nMax);
    expect(noStop.stopping.nMax).toBe(PRESETS.paper.config.stopping.nMax);
  });

  it("the schedule arms: CA gyms off, both agents train, a frozen opponent with the full run's DA gym budget", () => {
    expect(armConfig(quick, 'no-ca-training').schedule).toEqual({ caGyms: false });
    expect(armConfig(quick, 'no-isolation').schedule).toEqual({ isolation: 'both' });
    expect(armConfig(quick, 'fixed-opponent', 3).schedule).toEqual({ daOpponent: 'CA0', daGyms: 3 });
    expect(armConfig(quick, 'fixed-opponent-scripted', 0).schedule).toEqual({ daOpponent: 'scripted', daGyms: 0 });
    expect(() => armConfig(quick, 'fixed-opponent')).toThrow(/arm fixed-opponent: field schedule.daGyms: needs the DA gym count of the full run/);
  });

  it("the IB-RL arms: the paper's pool and stagger, three pool settings, stagger off; unilateral is fixed-opponent", () => {
    const paper = PRESETS.paper.config;
    expect(armConfig(paper, 'ib-rl').schedule).toEqual({
      kind: 'ib-rl',
      pool: { pBoth: 0.7, pDa: 0.2, pCa: 0.1 },
      stagger: { daEvery: 1, caEvery: 2, caLr: paper.gym.ca.lr * 0.1 },
    });
    expect(armConfig(paper, 'ib-rl-pool-both').schedule!.pool).toEqual({ pBoth: 1, pDa: 0, pCa: 0 });
    expect(armConfig(paper, 'ib-rl-pool-even').schedule!.pool).toEqual({ pBoth: 0.4, pDa: 0.3, pCa: 0.3 });
    expect(armConfig(paper, 'ib-rl-no-stagger').schedule!.stagger).toEqual({ daEvery: 1, caEvery: 1 });
    expect(armConfig(paper, 'unilateral', 2)).toEqual(armConfig(paper, 'fixed-opponent', 2));
    expect(() => parseArms('unilateral,ib-rl')).toThrow(/unilateral takes the DA gym budget of the full arm/);
  });

  it('every shipped arm gives a valid config of both presets', () => {
    for (const preset of Object.values(PRESETS)) {
      for (const arm of Object.keys(ARMS) as (keyof typeof ARMS)[]) expect(() => armConfig(preset.config, arm, 2)).not.toThrow();
    }
  });

  it('an unknown overlay field is refused with the arm and the field path', () => {
    expect(() => overlayConfig(quick, { gym: { failurShare: 0.5 } }, 'arm custom')).toThrow(/arm custom: field gym: .*failurShare/);
    expect(() => overlayConfig(quick, { stopping: { nMin: 9 } }, 'arm custom')).toThrow(/arm custom: field stopping.nMin: nMin must be ≤ nMax/);
  });
});
