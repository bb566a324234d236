/**
 * The run the external-trainer tests share: the quick preset with its DA gyms handed to an
 * external trainer, exactly two of them (one after each of the first two matches), and a
 * one-pass held-out evaluation.
 */
import { PRESETS } from '../../core/presets';
import type { RunConfig } from '../../core/coevolution/run-config';

const quick = PRESETS.quick.config;

export const EXTERNAL_DA_QUICK: RunConfig = {
  ...quick,
  gym: { ...quick.gym, da: { ...quick.gym.da, trainer: 'external' } },
  schedule: { daGyms: 2 },
  eval: { runs: 1, episodesPerScenario: 1, gateEpisodesPerScenario: 1 },
};

/** Polls `probe` every 100 ms until it gives a value; fails naming `what` after `timeoutMs`. */
export async function until<T>(what: string, probe: () => T | null | undefined, timeoutMs: number): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = probe();
    if (v !== null && v !== undefined) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
