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
import { cancelGymJob, gymJobsOf } from '../../coevolution/external-gym';
import { GymJobError, gymJobStore } from '../../store/gym-job-store';
import { table } from '../../format/table';
import { labDomain } from '../../store/scenario-store';
import { openSqliteStore } from '../../store/sqlite-store';
import { positiveInt, UsageError } from '../options';
import type { GlobalOptions } from '../global-options';

export function registerGym(program: Command, globals: () => GlobalOptions): void {
  const gym = program.command('gym').description("a run's isolation gyms, for external trainers");
  gym
    .command('export')
    .description(
      'the decision points gym N of a run trains on (its match, 70:30 failure/success, the sliding-window slicer), one JSON line each, with the reset that brings `env serve` there',
    )
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
  gym
    .command('jobs')
    .description('gyms handed to an external trainer (gym.da.trainer / gym.ca.trainer "external"): waiting, done, cancelled; what to run for a waiting one')
    .option('--run <run>', "one run's jobs")
    .action((opts: { run?: string }) => {
      const g = globals();
      const store = openSqliteStore(g.db);
      try {
        if (opts.run && store.db.prepare('SELECT 1 FROM runs WHERE id = ?').pluck().get(opts.run) === undefined)
          throw new UsageError(`gym jobs: no run ${opts.run} in ${g.db}`);
        const runs = opts.run
          ? [opts.run]
          : [
              ...new Set(
                gymJobStore(store.db)
                  .list()
                  .map((j) => j.runId),
              ),
            ];
        const jobs = runs.flatMap((r) => gymJobsOf(store, r));
        if (g.json) {
          process.stdout.write(JSON.stringify(jobs, null, 2) + '\n');
          return;
        }
        if (!jobs.length) {
          process.stdout.write(`no gym jobs${opts.run ? ` for ${opts.run}` : ''} in ${g.db}\n`);
          return;
        }
        const out = [
          table(
            ['job', 'run', 'gym', 'role', 'from', 'opponent', 'status', 'checkpoint', 'created', 'export'],
            jobs.map((j) => [
              j.id,
              j.runId,
              j.gym,
              j.role,
              j.from,
              j.opponent,
              j.status,
              j.checkpoint ?? j.note ?? '–',
              j.createdAt.slice(0, 19),
              j.exportPath,
            ]),
            ['l', 'l', 'r', 'l', 'l', 'l', 'l', 'l', 'l', 'l'],
          ),
        ];
        for (const j of jobs.filter((x) => x.commands))
          out.push('', `${j.id} waits for a trainer (${j.runId} gym ${j.gym}); run:`, ...j.commands!.map((c) => `  ${c}`));
        process.stdout.write(out.join('\n') + '\n');
      } finally {
        store.close();
      }
    });
  gym
    .command('cancel')
    .description("end a gym job's wait: the run goes on with the checkpoint the gym started from, unchanged (noted in the gym's summary)")
    .argument('<job>', 'the job, e.g. J1 (sparring gym jobs)')
    .action((id: string) => {
      const g = globals();
      const store = openSqliteStore(g.db);
      try {
        let job;
        try {
          job = cancelGymJob(store.db, id);
        } catch (e) {
          if (e instanceof GymJobError) throw new UsageError(`gym cancel: ${e.message}`, { cause: e });
          throw e;
        }
        if (g.json) process.stdout.write(JSON.stringify(job, null, 2) + '\n');
        else process.stdout.write(`gym job ${job.id} cancelled: ${job.runId} goes on with ${job.from} unchanged after gym ${job.gym}\n`);
      } finally {
        store.close();
      }
    });
}
