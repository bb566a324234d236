/**
 * `sparring runs list` / `sparring runs note R "…"`: which run is which. Checkpoint names are
 * lab-wide, so the list says of each run its study and arm, seed, preset, what its config changes
 * from that preset and the note a person wrote; `runs note` writes that note (an empty one clears
 * it), as the app's run identity does. `sparring runs hash R` prints the run's content digest, table
 * by table (host/store/run-digest.ts): two labs that ran the same seed and config print the same.
 */
import type { Command } from 'commander';
import type { RunSummary } from '../../../core/contract/contract';
import { createRunReader } from '../../coevolution/run-reader';
import { setRunNote } from '../../coevolution/run-identity';
import { DIGEST_PARTS, runDigest } from '../../store/run-digest';
import { TextTooLongError } from '../../store/text-bounds';
import { table } from '../../format/table';
import { UsageError } from '../options';
import { withLab } from '../study-lab';
import type { GlobalOptions } from '../global-options';

/** The config change column: the first line and how many more (every line with --json). */
export function changeCell(r: Pick<RunSummary, 'configChange'>): string {
  const c = r.configChange;
  if (c === null || c === undefined) return 'own config';
  if (c.length === 0) return '—';
  return c.length === 1 ? c[0]! : `${c[0]} (+${c.length - 1} more)`;
}

export function registerRuns(program: Command, globals: () => GlobalOptions): void {
  const runs = program.command('runs').description("the lab's runs: which is which (study, arm, seed, preset, config changes, note)");
  runs
    .command('list')
    .description('every run of the lab with its study and arm, seed, preset, what its config changes from the preset, and its note')
    .action(() => {
      const g = globals();
      const list = withLab(g.db, (db) => createRunReader(db, g.db, () => undefined).list());
      if (g.json) {
        process.stdout.write(JSON.stringify(list, null, 2) + '\n');
        return;
      }
      if (!list.length) {
        process.stdout.write(`no runs in ${g.db} (sparring run --preset quick starts one)\n`);
        return;
      }
      process.stdout.write(
        table(
          ['run', 'status', 'study/arm', 'seed', 'preset', 'changed from preset', 'note'],
          list.map((r) => [r.id, r.status, r.study ? `${r.study.id}/${r.study.arm}` : '—', r.seed, r.preset || 'custom', changeCell(r), r.note ?? '']),
        ) + '\n',
      );
    });
  runs
    .command('note')
    .description('write a note about a run, shown wherever the run or its checkpoints are (an empty note clears it)')
    .argument('<run>', 'the run, e.g. R1')
    .argument('<text>', 'the note (at most 2000 characters); "" clears it')
    .action((runId: string, text: string) => {
      const g = globals();
      const stored = withLab(g.db, (db) => {
        try {
          return setRunNote(db, runId, text);
        } catch (e) {
          if (e instanceof TextTooLongError || (e instanceof Error && /^no run /.test(e.message))) throw new UsageError(`runs note ${runId}: ${e.message}`);
          throw e;
        }
      });
      if (g.json) process.stdout.write(JSON.stringify({ runId, note: stored }) + '\n');
      else process.stdout.write(stored === null ? `${runId}: note cleared\n` : `${runId}: ${stored}\n`);
    });
  runs
    .command('hash')
    .description(
      "the run's content digest (sha256 of its matches, episodes, turns, rewards, checkpoints and training metrics, without wall-clock times): the same seed and config give the same digest",
    )
    .argument('<run>', 'the run, e.g. R1')
    .action((runId: string) => {
      const g = globals();
      const digest = withLab(g.db, (db) => {
        try {
          return runDigest(db, runId);
        } catch (e) {
          if (e instanceof Error && /^no run /.test(e.message)) throw new UsageError(`runs hash ${runId}: ${e.message}`);
          throw e;
        }
      });
      if (g.json) {
        process.stdout.write(JSON.stringify(digest, null, 2) + '\n');
        return;
      }
      process.stdout.write(
        table(['part', 'rows', 'sha256'], [...DIGEST_PARTS.map((p) => [p, digest.parts[p].rows, digest.parts[p].sha256]), ['run', '', digest.sha256]]) + '\n',
      );
    });
}
