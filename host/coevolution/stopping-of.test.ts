import { describe, expect, it } from 'vitest';
import { DEFAULT_CONFIG } from '../../core/config';
import { PRESETS } from '../../core/presets';
import { stoppingOf } from './run-reader';

describe('the stopping constants a run detail carries', () => {
  it("are the run config's own, parsed and complete", () => {
    const config = { ...PRESETS.quick.config, stopping: { ...PRESETS.quick.config.stopping, tauDa: 0.7, epsilon: 0.1, nMax: 3 } };
    expect(stoppingOf(JSON.stringify(config), 'R1')).toEqual(config.stopping);
  });

  it('fall back to the defaults under whatever a config that no longer parses still says', () => {
    expect(stoppingOf('{"stopping":{"tauDa":0.7},"retired":true}', 'R1')).toEqual({ ...DEFAULT_CONFIG.stopping, tauDa: 0.7 });
    expect(stoppingOf('not json', 'R1')).toEqual(DEFAULT_CONFIG.stopping);
  });
});
