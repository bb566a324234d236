/**
 * What a study's size means before it starts: its seeds (as `studies/seeds` read them), its run
 * count (seeds × arms) and, for a large study, a warning in plain words. Pure, for the New study form.
 */

/** A study of more runs than this gets the warning. */
export const LARGE_STUDY_RUNS = 20;

export interface StudySize {
  /** "3 seeds (1–3)", "10 seeds (11–20)", "3 seeds (1, 4, 7)". */
  seedsText: string;
  runs: number;
  /** A sentence for a large study, or null. */
  warning: string | null;
}

/** "1–3" for a consecutive list, otherwise the seeds (the first few, then how many more). */
function seedList(seeds: readonly number[]): string {
  const consecutive = seeds.every((s, i) => i === 0 || s === seeds[i - 1]! + 1);
  if (seeds.length > 2 && consecutive) return `${seeds[0]}–${seeds.at(-1)}`;
  const shown = seeds.slice(0, 8).join(', ');
  return seeds.length > 8 ? `${shown}, … ${seeds.length - 8} more` : shown;
}

export function studySize(seeds: readonly number[], arms: number, preset: string, workers: number): StudySize {
  const runs = seeds.length * arms;
  const seedsText = `${seeds.length} seed${seeds.length === 1 ? '' : 's'} (${seedList(seeds)})`;
  const warning =
    runs > LARGE_STUDY_RUNS
      ? `A large study: ${runs} runs (${seeds.length} seeds × ${arms} arm${arms === 1 ? '' : 's'}), each a full run of the ${preset} preset, ` +
        `${workers} at a time: about ${Math.ceil(runs / workers)} times as long as one ${preset} run. Try a few seeds first.`
      : null;
  return { seedsText, runs, warning };
}
