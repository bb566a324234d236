/**
 * The study tests' run config: the smoke preset made smaller (2 matches at most, 2-step gyms and
 * bootstrap, 2 episodes per arena scenario), written as tiny.json in `dir` for `--config`.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { PRESETS } from '../../core/presets';

export function writeTinyStudyConfig(dir: string): string {
  const c = structuredClone(PRESETS.smoke.config);
  c.stopping.nMax = 2;
  c.stopping.nMin = Math.min(c.stopping.nMin, 2);
  c.arena.episodesPerScenario = 2;
  c.bootstrap.daWarmup.steps = 2;
  c.bootstrap.caPressure.steps = 2;
  c.gym.da.steps = 2;
  c.gym.ca.steps = 2;
  const file = path.join(dir, 'tiny.json');
  writeFileSync(file, JSON.stringify(c));
  return file;
}
