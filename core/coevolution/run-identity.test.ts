import { describe, expect, it } from 'vitest';
import { armConfig } from './arms';
import { PRESETS } from '../presets';
import { configChangeLine, configChanges, runConfigChange } from './run-identity';

const quick = PRESETS.quick.config;

describe('configChanges', () => {
  it('is empty for the preset itself, stored as a run stores it', () => {
    expect(runConfigChange(quick, JSON.stringify(quick))).toEqual([]);
  });

  it("names each leaf an arm's overlay changes, with the preset's value and the run's", () => {
    const config = armConfig(quick, 'no-ca-training');
    expect(runConfigChange(quick, JSON.stringify(config))).toEqual(['schedule.caGyms unset → false']);
    const mix = { ...quick, gym: { ...quick.gym, failureShare: 0.5 } };
    expect(configChanges(quick, mix)).toEqual([{ path: 'gym.failureShare', from: quick.gym.failureShare, to: 0.5 }]);
  });

  it('compares arrays whole, reports keys the run drops, and cuts long values', () => {
    expect(configChanges({ a: [1, 2], b: 1 }, { a: [1, 3] })).toEqual([
      { path: 'a', from: [1, 2], to: [1, 3] },
      { path: 'b', from: 1, to: undefined },
    ]);
    expect(configChangeLine({ path: 'judge', from: undefined, to: 'x'.repeat(60) })).toBe(`judge unset → ${'x'.repeat(39)}…`);
  });

  it('is null for a run without a preset or with a config that is not JSON', () => {
    expect(runConfigChange(undefined, '{}')).toBeNull();
    expect(runConfigChange(quick, '{not json')).toBeNull();
  });
});
