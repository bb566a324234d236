/** `sparring report RUN --out FILE` / `sparring report --study S --out FILE`: a self-contained HTML report of a run or a study. */
import { writeFileSync } from 'node:fs';
import type { Command } from 'commander';
import { createRunService } from '../../coevolution/service';
import { renderReport } from '../../report/report';
import { studyCaPolicy } from '../../engine/ca-policy';
import { renderStudyReport } from '../../report/study-report';
import { loadStudy } from '../../study/study-data';
import { labDomainAt } from '../lab-domain';
import { UsageError } from '../options';
import { viewArenaOnly } from './study';
import type { GlobalOptions } from '../global-options';

export function registerReport(program: Command, globals: () => GlobalOptions): void {
  program
    .command('report')
    .description('a self-contained HTML report of a run (W_DA per match, per-scenario win rates, tactic measures, held-out table) or of a study (--study)')
    .argument('[run]', 'the run id, e.g. R1')
    .option('--study <id>', 'a report of a study (e.g. S1) instead: arms compared with 95% intervals over seeds')
    .option('--arena-only', 'no held-out or panel figure, for choosing settings on the arena (the default for a run or study made with --arena-only)')
    .option('--heldout', 'the held-out and panel figures of a run or study made with --arena-only (not for choosing settings)')
    .option('--ca-policy', "with --study: each arm's CA policy first match → last, charted, as `study ca-policy` reads it (one forward pass of two CAs a run)")
    .requiredOption('--out <file>', 'where to write the HTML')
    .action(async (runId: string | undefined, opts: { out: string; study?: string; arenaOnly?: boolean; heldout?: boolean; caPolicy?: boolean }) => {
      const g = globals();
      if (opts.study !== undefined && runId !== undefined) throw new UsageError('give a run or --study, not both');
      if (opts.study === undefined && opts.caPolicy) throw new UsageError('--ca-policy goes with --study');
      if (opts.study === undefined && runId === undefined) throw new UsageError('report needs a run (e.g. R1) or --study S');
      const service = createRunService({ dbPath: g.db });
      try {
        if (opts.study !== undefined) {
          let view;
          try {
            view = loadStudy(service.store.db, g.db, opts.study);
          } catch (e) {
            throw new UsageError((e as Error).message);
          }
          const { id, preset, arms, seeds, status, base } = view.study;
          const arenaOnly = viewArenaOnly(view.study, opts);
          const caPolicy = opts.caPolicy ? await studyCaPolicy({ db: g.db, domain: labDomainAt(g.db), studyId: id }) : undefined;
          writeFileSync(
            opts.out,
            renderStudyReport({
              id,
              preset,
              arms,
              seeds,
              status,
              tauDa: base.stopping.tauDa,
              runs: view.runs,
              summary: view.summary,
              arenaEstimate: view.arenaEstimate,
              otherIntentsEstimate: view.otherIntentsEstimate,
              customArms: view.customArms,
              arenaOnly,
              ...(caPolicy ? { caPolicy } : {}),
            }),
          );
          if (g.json) process.stdout.write(JSON.stringify({ studyId: id, out: opts.out, runs: view.runs.length }) + '\n');
          else process.stdout.write(`wrote ${opts.out} (study ${id}, ${view.runs.length} runs)\n`);
          return;
        }
        if (runId === undefined) return;
        let run;
        try {
          run = service.get(runId);
        } catch (e) {
          throw new UsageError((e as Error).message);
        }
        const matches = run.matchSummaries.map((m) => service.store.getMatch(m.matchId)).filter((m) => m !== undefined);
        writeFileSync(opts.out, renderReport(run, matches, { arenaOnly: viewArenaOnly(run, opts, 'run') }));
        if (g.json) process.stdout.write(JSON.stringify({ runId, out: opts.out, matches: matches.length }) + '\n');
        else process.stdout.write(`wrote ${opts.out} (${matches.length} matches)\n`);
      } finally {
        await service.close();
      }
    });
}
