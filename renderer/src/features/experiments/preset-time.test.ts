/** Experiments says each preset's time and starts on the quickest, not on paper (listed first). */
import { describe, expect, it } from 'vitest';
import type { PresetInfo } from '../../../../core/contract/contract';
import { defaultPreset, presetTimeText } from './preset-time';

const preset = (name: string, measured: PresetInfo['measured'] = null): PresetInfo => ({
  name,
  description: '',
  configJson: '{}',
  measured,
  budget: `at most ${name === 'quick' ? 3 : 8} matches`,
});

describe('preset time', () => {
  it('says the time measured in this lab, else that it was not measured and the budget', () => {
    expect(presetTimeText(preset('quick', { seconds: 41.2, runs: 3 }))).toBe('about 42 s here (median of 3 runs in this lab)');
    expect(presetTimeText(preset('paper', { seconds: 95, runs: 1 }))).toBe('about 1 min 35 s here (one run in this lab)');
    expect(presetTimeText(preset('paper'))).toBe('time not measured in this lab yet · at most 8 matches');
  });

  it('starts on quick rather than the first listed or the quickest measured, else on the preset measured quickest', () => {
    expect(defaultPreset([preset('paper'), preset('robust'), preset('quick')])?.name).toBe('quick');
    expect(defaultPreset([preset('paper'), preset('quick', { seconds: 40, runs: 1 }), preset('smoke', { seconds: 10, runs: 3 })])?.name).toBe('quick');
    expect(defaultPreset([preset('paper', { seconds: 90, runs: 1 }), preset('robust', { seconds: 60, runs: 2 })])?.name).toBe('robust');
    expect(defaultPreset([preset('paper')])?.name).toBe('paper');
    expect(defaultPreset([])).toBeNull();
  });
});
