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
import { heldoutMetrics } from '../../../core/arena/evaluate';
import { selectScenarios } from '../../../core/arena/scenarios';
import { RUN_THREADS } from '../../../core/coevolution/run-config';
import { meanInterval, pairedDifference } from '../../../core/stats/intervals';
import type { MeanInterval } from '../../../core/stats/intervals';
import { runArena } from '../../coevolution/actors';
import { runAndStoreMatch } from '../../llm/store-match';
import { labDomain } from '../../store/scenario-store';
import { openSqliteStore } from '../../store/sqlite-store';
import { studyStore } from '../../study/study-store';
import { pct, table } from '../../format/table';
import { matchConcurrency, pendingLlmCalls, resolveCa, resolveDa, resolveJudge } from '../policies';
import { progressBar } from '../progress';
import { UsageError } from '../options';
import { withLab } from '../study-lab';
import type { GlobalOptions } from '../main';

/** One run's figures: DA0 and the final DA against the run's final CA (rates in [0, 1]). */
export interface ArenaEstimateFigures {
  speak: 'train' | 'validation';
  da0: string;
  finalDa: string;
  finalCa: string;
  /** The seed both matches played (estimateSeed of the run's seed). */
  matchSeed: number;
  matches: { da0: string; finalDa: string };
  da0Metrics: { routing: number; strictPass: number; episodes: number };
  finalMetrics: { routing: number; strictPass: number; episodes: number };
}

/** The seed both matches of a run's estimate play: the one `match --run R --seed 1000+seed` takes. */
export const estimateSeed = (runSeed: number) => 1000 + runSeed;

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
    .option('--baseline <arm>', 'the arm the others are paired against (default: the first arm)')
    .action(async (id: string, opts: { speak: 'train' | 'validation'; baseline?: string }) => {
      const g = globals();
      const kind = `arena-estimate:${opts.speak}`;
      const s = withLab(g.db, (db) => studyStore(db).get(id));
      const store = openSqliteStore(g.db);
      try {
        const studies = studyStore(store.db);
        if (opts.baseline !== undefined && !s.arms.includes(opts.baseline))
          throw new UsageError(`--baseline ${opts.baseline}: not an arm of study ${id} (${s.arms.join(', ')})`);
        const lab = labDomain(store.db);
        const figures = new Map<string, ArenaEstimateFigures>();
        for (const e of studies.entries(id)) {
          const key = `${e.arm}/${e.seed}`;
          if (e.status !== 'finished') {
            process.stderr.write(`estimate: ${key}: skipped (its run ${e.runId} ${e.status})\n`);
            continue;
          }
          const have = studies.evaluation<ArenaEstimateFigures>(id, e.arm, e.seed, kind);
          if (have) {
            figures.set(key, have);
            continue;
          }
          const run = runArena(store.db, e.runId, lab)!;
          const speak = opts.speak === 'validation' ? run.speakValidation : run.speak;
          if (!speak)
            throw new UsageError(
              `study estimate --speak validation: run ${e.runId} (${key}) keeps no validation slice (its config has no validation.bankShare)`,
            );
          const named = (role: 'DA' | 'CA', order: 'ASC' | 'DESC') =>
            (
              store.db
                .prepare(`SELECT name FROM checkpoints WHERE run_id = ? AND role = ? ORDER BY generation ${order}, rowid ${order} LIMIT 1`)
                .get(e.runId, role) as { name: string } | undefined
            )?.name;
          const [da0, finalDa, finalCa] = [named('DA', 'ASC'), named('DA', 'DESC'), named('CA', 'DESC')];
          if (!da0 || !finalDa || !finalCa) throw new Error(`study estimate: run ${e.runId} (${key}) has no DA or CA checkpoint`);
          const seed = estimateSeed(run.seed);
          // The runs' own thread count, so the figures depend on the seed and config only.
          const opt = { session: { intraOpNumThreads: RUN_THREADS } };
          const ca = await resolveCa(finalCa, run.domain, { ...g, seed }, opt, speak);
          const judge = resolveJudge(run.judge, g);
          const play = async (daName: string) => {
            const da = await resolveDa(daName, run.domain, { ...g, seed }, opt);
            const bar = progressBar(`estimate ${key}: ${daName} vs ${finalCa}`);
            try {
              return await runAndStoreMatch(
                store,
                {
                  matchId: `M${store.listMatches().length + 1}`,
                  createdAt: new Date().toISOString(),
                  domain: run.domain,
                  scenarios: selectScenarios(run.domain, 'arena'),
                  scenarioSet: 'arena',
                  da,
                  ca,
                  judge,
                  config: run.sparring,
                  seed,
                  concurrency: matchConcurrency(da, ca, 32),
                  ...(run.symbolic ? { symbolic: run.symbolic } : {}),
                  onProgress: (d, t) => bar.update(d, t),
                },
                pendingLlmCalls(g.db),
              );
            } finally {
              bar.stop();
            }
          };
          const rates = (m: Awaited<ReturnType<typeof play>>) => {
            const h = heldoutMetrics(m.episodes);
            return { routing: h.routingAccuracy, strictPass: h.strictPass, episodes: h.episodes };
          };
          const a = await play(da0);
          const b = da0 === finalDa ? a : await play(finalDa);
          const f: ArenaEstimateFigures = {
            speak: opts.speak,
            da0,
            finalDa,
            finalCa,
            matchSeed: seed,
            matches: { da0: a.match.id, finalDa: b.match.id },
            da0Metrics: rates(a),
            finalMetrics: rates(b),
          };
          studies.saveEvaluation(id, e.arm, e.seed, kind, f);
          figures.set(key, f);
        }
        const out = estimateTables(s.arms, figures, opts.baseline ?? s.arms[0]!);
        const runs = [...figures].map(([k, f]) => ({ arm: k.slice(0, k.lastIndexOf('/')), seed: Number(k.slice(k.lastIndexOf('/') + 1)), ...f }));
        if (g.json) process.stdout.write(JSON.stringify({ study: id, speak: opts.speak, ...out, runs }, null, 2) + '\n');
        else process.stdout.write(estimateText(id, opts.speak, out));
      } finally {
        store.close();
      }
    });
}

type Measure = 'routing' | 'strictPass';

/** Per arm: DA0, the final DA and the gain (points), mean [95% t] over seeds; each arm's gain paired against the baseline's. */
export function estimateTables(arms: readonly string[], figures: ReadonlyMap<string, ArenaEstimateFigures>, baseline: string) {
  const perSeed = (arm: string, f: (x: ArenaEstimateFigures) => number) =>
    new Map([...figures].filter(([k]) => k.startsWith(`${arm}/`)).map(([k, x]) => [Number(k.slice(arm.length + 1)), 100 * f(x)]));
  const gain = (arm: string, m: Measure) => perSeed(arm, (x) => x.finalMetrics[m] - x.da0Metrics[m]);
  const of = (arm: string, m: Measure) => ({
    da0: meanInterval([...perSeed(arm, (x) => x.da0Metrics[m]).values()]),
    final: meanInterval([...perSeed(arm, (x) => x.finalMetrics[m]).values()]),
    gain: meanInterval([...gain(arm, m).values()]),
    ...(arm === baseline ? {} : { gainVsBaseline: pairedDifference(gain(arm, m), gain(baseline, m)) }),
  });
  return { baseline, arms: arms.map((arm) => ({ arm, seeds: perSeed(arm, () => 0).size, routing: of(arm, 'routing'), strictPass: of(arm, 'strictPass') })) };
}

function estimateText(id: string, speak: string, out: ReturnType<typeof estimateTables>): string {
  const ci = (m: MeanInterval) =>
    m.n === 0 ? '—' : `${m.mean >= 0 ? '+' : ''}${m.mean.toFixed(1)}${m.ci ? ` [${m.ci[0].toFixed(1)}, ${m.ci[1].toFixed(1)}]` : ''}`;
  const rate = (m: MeanInterval) => (m.n === 0 ? '—' : pct(m.mean / 100));
  const rows = out.arms.flatMap((a) =>
    (['routing', 'strictPass'] as const).map((k) => [
      a.arm,
      k === 'routing' ? 'routing' : 'strict PASS',
      String(a.seeds),
      rate(a[k].da0),
      rate(a[k].final),
      ci(a[k].gain),
      'gainVsBaseline' in a[k] ? ci(a[k].gainVsBaseline!) : '(baseline)',
    ]),
  );
  return (
    `study ${id}: DA0 and the final DA against each run's final CA, arena scenarios, CA speaking the run's ${speak === 'validation' ? 'validation slice' : 'train slice'}; points, mean [95% t] over seeds\n\n` +
    table(['arm', 'measure', 'seeds', 'DA0', 'final DA', 'gain', `gain − ${out.baseline}'s (paired)`], rows, ['l', 'l', 'r', 'r', 'r', 'r', 'r']) +
    '\n'
  );
}
