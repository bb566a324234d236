/**
 * The study tests' run config: the smoke preset made smaller (2 matches at most, 2-step gyms and
 * bootstrap, 1 SFT epoch, 2 episodes per arena scenario), written as tiny.json in `dir` for `--config`.
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
  // DA0's SFT is most of a tiny run's time (two epochs: ~8 of 15 s): one epoch, as the fault-injection test's config.
  c.bootstrap.sft.epochs = 1;
  c.gym.da.steps = 2;
  c.gym.ca.steps = 2;
  const file = path.join(dir, 'tiny.json');
  writeFileSync(file, JSON.stringify(c));
  return file;
}
