/**
 * `sparring study estimate S`: an arena-only estimate of what held-out evaluation measures, per
 * run of a study. Each finished run's DA0 and its final DA play the run's final CA on the arena
 * scenarios as the run's own matches play (`runArena`, as `sparring match --run R`), the CA
 * speaking the run's train slice of the bank or, with `--speak validation`, the validation slice
 * its config kept out (`validation.bankShare`). The two matches share a seed (1000 + the run's
 * seed), so their episodes are paired. Settings can be chosen on it without reading anything held
 * out. Per arm: DA0, the final DA and the gain, mean [95% t] over seeds, and each arm's gain
 * paired against a baseline arm. Resumable: a run's figures are stored in the study
 * (study_evaluations, kind `arena-estimate:<slice>`) and not computed twice; its matches are
 * stored in the lab like any other.
 */
import type { Command } from 'commander';
import { Option } from 'commander';
import { estimateScenarioView, estimateView, OTHER_INTENTS_EPISODES } from '../../../core/coevolution/study-estimate';
import type { EstimateScenarios, EstimateSlice, EstimateTables } from '../../../core/coevolution/study-estimate';
import { openSqliteStore } from '../../store/sqlite-store';
import { estimateStudy, StudyEstimateError } from '../../study/study-estimate';
import { studyStore } from '../../study/study-store';
import { table } from '../../format/table';
import { progressBar } from '../progress';
import { UsageError } from '../options';
import { withLab } from '../study-lab';
import type { GlobalOptions } from '../global-options';

export function registerStudyEstimate(study: Command, globals: () => GlobalOptions): void {
  study
    .command('estimate')
    .description(
      "arena-only estimate of the held-out gain: each finished run's DA0 and final DA against its final CA on the arena scenarios, as the run's matches play; mean [95% t] over seeds per arm, paired against a baseline arm; resumable",
    )
    .argument('<study>', 'the study id, e.g. S1')
    .addOption(
      new Option('--speak <slice>', "the bank slice the CA speaks: the run's train slice, or the validation slice its config kept out (validation.bankShare)")
        .choices(['train', 'validation'])
        .default('train'),
    )
    .addOption(
      new Option(
        '--scenarios <set>',
        `the scenarios the matches play: the arena's, or synthetic scenarios of the intents no arena, held-out or gym scenario names (${OTHER_INTENTS_EPISODES} episodes each): how far the gains reach intents no gym trained on`,
      )
        .choices(['arena', 'other-intents'])
        .default('arena'),
    )
    .option('--baseline <arm>', 'the arm the others are paired against (default: the first arm)')
    .action(async (id: string, opts: { speak: EstimateSlice; scenarios: EstimateScenarios; baseline?: string }) => {
      const g = globals();
      const { arms } = withLab(g.db, (db) => studyStore(db).get(id));
      if (opts.baseline !== undefined && !arms.includes(opts.baseline))
        throw new UsageError(`--baseline ${opts.baseline}: not an arm of study ${id} (${arms.join(', ')})`);
      const out = await estimateStep(g, id, opts.speak, { ...(opts.baseline !== undefined ? { baseline: opts.baseline } : {}), scenarios: opts.scenarios });
      if (g.json) process.stdout.write(JSON.stringify({ study: id, ...out }, null, 2) + '\n');
      else process.stdout.write(estimateText(id, out));
    });
}

/**
 * Plays what is missing of study `id`'s estimate on `speak` with a progress bar per match, and
 * returns its tables (`study estimate`, and `study --estimate` once the runs have finished). Bad
 * input is a UsageError that starts with `o.flag`, the option the user gave.
 */
export async function estimateStep(
  g: GlobalOptions,
  id: string,
  speak: EstimateSlice,
  o: { baseline?: string; scenarios?: EstimateScenarios; flag?: string } = {},
): Promise<EstimateTables> {
  const { baseline, scenarios = 'arena' } = o;
  const flag = o.flag ?? `study estimate --speak ${speak}${scenarios === 'arena' ? '' : ` --scenarios ${scenarios}`}`;
  const store = openSqliteStore(g.db);
  try {
    return await estimateStudy(store, {
      studyId: id,
      speak,
      scenarios,
      ...(baseline !== undefined ? { baseline } : {}),
      ctx: { db: g.db, ...(g.cache === false ? { cache: false } : {}) },
      onSkip: (key, why) => process.stderr.write(`estimate: ${key}: skipped (${why})\n`),
      onMatch: progressBar,
    }).catch((e: unknown) => {
      throw e instanceof StudyEstimateError ? new UsageError(`${flag}: ${e.message}`) : e;
    });
  } finally {
    store.close();
  }
}

/** The estimate's table as `study estimate` and `study show` print it. */
export function estimateText(id: string, out: EstimateTables): string {
  const v = estimateView(out);
  const sc = estimateScenarioView(out);
  return (
    `study ${id}: ${v.title}\n\n` +
    table(v.header, v.rows, ['l', 'l', 'r', 'r', 'r', 'r', 'r']) +
    '\n' +
    (sc ? `\n${sc.title}\n${table(sc.header, sc.rows, ['l', ...sc.header.slice(1).map(() => 'r' as const)])}\n` : '')
  );
}
