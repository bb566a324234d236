/**
 * `sparring lab merge OTHER.db [--dry-run]`: bring another lab's rows into this one (--db), ids
 * that are taken here renamed and every reference kept (host/store/lab-merge.ts); merging the same
 * lab again adds nothing. With --json, stdout is the merge report.
 */
import type { Command } from 'commander';
import { existsSync } from 'node:fs';
import { mergeLab, mergeReportText } from '../../store/lab-merge';
import { openSqliteStore } from '../../store/sqlite-store';
import { UsageError } from '../options';
import type { GlobalOptions } from '../global-options';

export function registerLab(program: Command, globals: () => GlobalOptions): void {
  const lab = program.command('lab').description('the lab file itself: merge another lab into it');
  lab
    .command('merge')
    .description(
      "bring another lab's runs, matches, episodes, checkpoints, studies, human episodes and labels into this one; taken ids are renamed, a second merge adds nothing, the same annotator's differing labels are both kept",
    )
    .argument('<other>', 'the other lab file (SQLite); only read, and migrated in a temporary copy when older')
    .option('--dry-run', 'say what would come in, and change nothing', false)
    .action((other: string, opts: { dryRun: boolean }) => {
      const g = globals();
      if (!existsSync(other)) throw new UsageError(`lab merge: no such lab file ${other}`);
      const store = openSqliteStore(g.db);
      try {
        const report = mergeLab(store.db, other, { dryRun: opts.dryRun });
        if (g.json) process.stdout.write(JSON.stringify(report, null, 2) + '\n');
        else process.stdout.write(mergeReportText(report));
        if (report.disagreements.length)
          process.stderr.write(
            `${report.disagreements.length} label disagreement(s) kept side by side: \`sparring labels export\` and the Labels screen's agreement reports show them\n`,
          );
      } finally {
        store.close();
      }
    });
}
