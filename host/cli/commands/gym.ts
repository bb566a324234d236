/**
 * `sparring gym export RUN --gym N --format jsonl [--out FILE]`: the decision points isolation gym
 * N of a run trains on, for an external trainer that rolls them out through `sparring env serve`
 * (host/coevolution/gym-export.ts). The file is written whole or not at all (a temporary file
 * renamed into place).
 */
import { renameSync, writeFileSync } from 'node:fs';
import type { Command } from 'commander';
import { Option } from 'commander';
import { exportGym } from '../../coevolution/gym-export';
import { labDomain } from '../../store/scenario-store';
import { openSqliteStore } from '../../store/sqlite-store';
import { positiveInt, UsageError } from '../options';
import type { GlobalOptions } from '../main';

export function registerGym(program: Command, globals: () => GlobalOptions): void {
  const gym = program.command('gym').description("a run's isolation gyms, for external trainers");
  gym
    .command('export')
    .description('the decision points gym N of a run trains on (its match, 70:30 failure/success, the sliding-window slicer), one JSON line each, with the reset that brings `env serve` there')
    .argument('<run>', 'the run, e.g. R1')
    .requiredOption('--gym <n>', "the gym's number in the run (1: the first; the run's next gym when it is about to start one)", positiveInt('--gym'))
    .addOption(new Option('--format <f>', 'output format').choices(['jsonl']).default('jsonl'))
    .option('--out <file>', 'write here instead of stdout')
    .action(async (runId: string, opts: { gym: number; format: 'jsonl'; out?: string }) => {
      const g = globals();
      const store = openSqliteStore(g.db);
      try {
        let ex;
        try {
          ex = await exportGym(store, labDomain(store.db), runId, opts.gym);
        } catch (e) {
          throw new UsageError(`gym export: ${(e as Error).message}`);
        }
        const text = ex.points.map((p) => JSON.stringify(p)).join('\n') + (ex.points.length ? '\n' : '');
        if (opts.out) {
          const tmp = `${opts.out}.${process.pid}.tmp`;
          writeFileSync(tmp, text);
          renameSync(tmp, opts.out);
        } else process.stdout.write(text);
        process.stderr.write(
          `gym ${ex.gym} of ${runId}: ${ex.role} ${ex.from}${ex.to ? ` → ${ex.to}` : ' (next)'} against frozen ${ex.opponent}, match ${ex.matchId}: ` +
            `${ex.episodes.failures} failures + ${ex.episodes.successes} successes${ex.episodes.human ? ` + ${ex.episodes.human} human` : ''} episodes → ` +
            `${ex.points.length} decision points${opts.out ? ` in ${opts.out}` : ''}\nserve its world with: ${ex.serve}\n`,
        );
      } finally {
        store.close();
      }
    });
}
