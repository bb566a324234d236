import { describe, expect, it } from 'vitest';
import { isMetricKey, METRICS } from './metrics';

describe('metrics registry', () => {
  it('names every key <phase>/<snake_case> with a one-line meaning', () => {
    for (const [key, info] of Object.entries(METRICS)) {
      expect(key).toMatch(/^[a-z]+\/[a-z][a-z0-9_]*$/);
      expect(info.meaning.trim().length, key).toBeGreaterThan(10);
      expect(info.meaning, key).not.toContain('\n');
    }
    for (const k of ['sft/loss', 'sft/accuracy', 'gym/reward_mean', 'gym/reward_std', 'gym/kl', 'gym/loss', 'gym/clip_frac', 'gym/grad_norm']) {
      expect(isMetricKey(k), k).toBe(true);
    }
    expect(isMetricKey('gym/made_up')).toBe(false);
    expect(isMetricKey('toString')).toBe(false);
  });
});
