/**
 * `sparring labels export --format json|csv [--queue Q] [--out FILE]`: every human label (tactic
 * and judge audit) with its annotator, time spent and item ids — the same rows as the app's
 * export.
 */
import { writeFileSync } from 'node:fs';
import type { Command } from 'commander';
import { Option } from 'commander';
import { formatLabelExport, labelExportRows } from '../../engine/labels';
import { labelStore } from '../../store/label-store';
import { openSqliteStore } from '../../store/sqlite-store';
import { UsageError } from '../options';
import type { GlobalOptions } from '../global-options';

export function registerLabels(program: Command, globals: () => GlobalOptions): void {
  const labels = program.command('labels').description('human labels: tactic annotations and judge audits');
  labels
    .command('export')
    .description('labels with annotator, time spent and item ids, as JSON or CSV')
    .addOption(new Option('--format <f>', 'json or csv').choices(['json', 'csv']).default('json'))
    .option('--queue <id>', 'one queue (T1, A1, …) instead of all')
    .option('--out <file>', 'write here instead of stdout')
    .action((opts: { format: 'json' | 'csv'; queue?: string; out?: string }) => {
      const g = globals();
      const store = openSqliteStore(g.db);
      try {
        const ls = labelStore(store.db);
        if (opts.queue !== undefined && !ls.listQueues().some((q) => q.id === opts.queue)) {
          throw new UsageError(`labels export: no labelling queue "${opts.queue}" in ${g.db}`);
        }
        const rows = labelExportRows(store, ls, opts.queue);
        const text = formatLabelExport(rows, opts.format);
        if (opts.out) writeFileSync(opts.out, text);
        else process.stdout.write(text);
        process.stderr.write(`exported ${rows.length} label${rows.length === 1 ? '' : 's'}${opts.out ? ` to ${opts.out}` : ''}\n`);
      } finally {
        store.close();
      }
    });
}
