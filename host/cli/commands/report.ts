/** `sparring report RUN --out FILE`: a self-contained HTML report of a run. */
import { writeFileSync } from 'node:fs';
import type { Command } from 'commander';
import { parseRunConfig } from '../../../core/coevolution/run-config';
import { createRunService } from '../../coevolution/service';
import { renderReport } from '../../report/report';
import { UsageError } from '../options';
import type { GlobalOptions } from '../main';

export function registerReport(program: Command, globals: () => GlobalOptions): void {
  program
    .command('report')
    .description('a self-contained HTML report of a run: W_DA per match, per-scenario win rates, tactic measures, held-out table')
    .argument('<run>', 'the run id, e.g. R1')
    .requiredOption('--out <file>', 'where to write the HTML')
    .action(async (runId: string, opts: { out: string }) => {
      const g = globals();
      const service = createRunService({ dbPath: g.db });
      try {
        let run;
        try {
          run = service.get(runId);
        } catch (e) {
          throw new UsageError((e as Error).message);
        }
        const matches = run.matchSummaries.map((m) => service.store.getMatch(m.matchId)).filter((m) => m !== undefined);
        const tau = parseRunConfig(run.configJson, `run ${runId} config`).stopping.tauDa;
        writeFileSync(opts.out, renderReport(run, matches, tau));
        if (g.json) process.stdout.write(JSON.stringify({ runId, out: opts.out, matches: matches.length }) + '\n');
        else process.stdout.write(`wrote ${opts.out} (${matches.length} matches)\n`);
      } finally {
        await service.close();
      }
    });
}
