/**
 * `sparring checkpoints add --role DA|CA --model FILE|SPEC --parent CKPT --run RUN --gym N`:
 * registers what an external trainer made of a run's gym (host/coevolution/external-gym.ts): an
 * `.onnx` of a builtin policy, or an LLM saved in the lab (an endpoint serving the new adapter, a
 * GGUF model, `gguf:FILE`), which then plays the role. The checkpoint is stored as a child of the
 * gym's start and the gym job ends; the run, waiting in this process or another, or resumed
 * later, goes on with it.
 */
import type { Command } from 'commander';
import { Option } from 'commander';
import { registerTrainerResult } from '../../coevolution/external-gym';
import { CheckpointError, compactCheckpoints, describeLlm } from '../../store/checkpoint-store';
import { GymJobError } from '../../store/gym-job-store';
import { openSqliteStore } from '../../store/sqlite-store';
import { positiveInt, UsageError } from '../options';
import { progressBar } from '../progress';
import type { GlobalOptions } from '../global-options';

interface AddOptions {
  role: 'DA' | 'CA';
  model: string;
  parent: string;
  run: string;
  gym: number;
}

export function registerCheckpoints(program: Command, globals: () => GlobalOptions): void {
  const cmd = program.command('checkpoints').description("the lab's checkpoints: register one an external trainer made; compact an older lab");
  cmd
    .command('compact')
    .description(
      "move the weights and optimiser state of checkpoints saved before this release's storage (each held its own bytes) into content storage, where copies — a study's arms copy each seed's DA0 and CA0 — share them; then VACUUM the lab so its file shrinks (needs free disk about the lab's size)",
    )
    .option('--no-vacuum', 'move the bytes but leave the file as it is (SQLite reuses the freed pages)')
    .action((opts: { vacuum: boolean }) => {
      const g = globals();
      const store = openSqliteStore(g.db);
      try {
        const bar = progressBar('checkpoints compact');
        const r = compactCheckpoints(store.db, { vacuum: opts.vacuum, onProgress: (d, t) => bar.update(d, t) });
        bar.stop();
        const mb = (b: number | null) => (b === null ? 'n/a' : `${(b / 1e6).toFixed(1)} MB`);
        if (g.json) process.stdout.write(JSON.stringify(r, null, 2) + '\n');
        else
          process.stdout.write(
            `${r.checkpoints} checkpoint${r.checkpoints === 1 ? '' : 's'} moved to content storage (${mb(r.inlineBytes)} held inline); ` +
              `${g.db}: ${mb(r.fileBytes.before)} → ${mb(r.fileBytes.after)}${opts.vacuum ? '' : ' (not vacuumed: the freed pages are reused, the file keeps its size)'}\n`,
          );
      } finally {
        store.close();
      }
    });
  cmd
    .command('add')
    .description(
      'register the checkpoint an external trainer made for a run\'s waiting gym (gym.da.trainer / gym.ca.trainer "external"); the run goes on with it',
    )
    .addOption(new Option('--role <role>', 'the role it plays').choices(['DA', 'CA']).makeOptionMandatory())
    .requiredOption(
      '--model <model>',
      'the trained model: an .onnx written by `sparring export-model` (the builtin policies), or an LLM saved in the lab (an endpoint name, a GGUF model name) or gguf:FILE',
    )
    .requiredOption('--parent <ckpt>', 'the checkpoint the gym trained from (the job says which)')
    .requiredOption('--run <run>', 'the run waiting for it, e.g. R1')
    .requiredOption('--gym <n>', "the gym's number in the run (sparring gym jobs)", positiveInt('--gym'))
    .action(async (opts: AddOptions) => {
      const g = globals();
      const store = openSqliteStore(g.db);
      try {
        let r;
        try {
          r = await registerTrainerResult(store.db, { runId: opts.run, gym: opts.gym, role: opts.role, model: opts.model, parent: opts.parent });
        } catch (e) {
          if (e instanceof GymJobError || e instanceof CheckpointError) throw new UsageError(`checkpoints add: ${e.message}`, { cause: e });
          throw e;
        }
        if (g.json)
          process.stdout.write(
            JSON.stringify({ checkpoint: r.checkpoint.name, parent: r.checkpoint.parent, llm: r.checkpoint.llm, job: r.job }, null, 2) + '\n',
          );
        else {
          process.stdout.write(
            `${r.checkpoint.name} (${r.checkpoint.role}${r.checkpoint.llm ? `, ${describeLlm(r.checkpoint.llm)}` : ''}, generation ${r.checkpoint.generation}, parent ${r.checkpoint.parent}) registered for gym ${r.job.gym} of ${r.job.runId}: ` +
              `gym job ${r.job.id} done; the run goes on with ${r.checkpoint.name} (a live run at its next poll, otherwise: npx sparring run --resume ${r.job.runId})\n`,
          );
        }
      } finally {
        store.close();
      }
    });
}
