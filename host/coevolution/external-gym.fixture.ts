/**
 * The run the external-trainer tests share: the quick preset with its DA gyms handed to an
 * external trainer, exactly two of them (one after each of the first two matches), and a
 * one-pass held-out evaluation.
 */
import { PRESETS } from '../../core/coevolution/run-config';
import type { RunConfig } from '../../core/coevolution/run-config';

const quick = PRESETS.quick.config;

export const EXTERNAL_DA_QUICK: RunConfig = {
  ...quick,
  gym: { ...quick.gym, da: { ...quick.gym.da, trainer: 'external' } },
  schedule: { daGyms: 2 },
  eval: { runs: 1, episodesPerScenario: 1, gateEpisodesPerScenario: 1 },
};
