/** `sparring import-banking77 FILE`: check a Banking77-format CSV and store it in the lab. */
import path from 'node:path';
import type { Command } from 'commander';
import { readBanking77Csv } from '../../banking77';
import { bankingDomain } from '../../domain-files';
import { corpusHash, saveCorpusImport } from '../../store/corpus-store';
import { openSqliteStore } from '../../store/sqlite-store';
import { UsageError } from '../options';
import { table } from '../../format/table';
import type { GlobalOptions } from '../global-options';

export function registerImportBanking77(program: Command, globals: () => GlobalOptions): void {
  program
    .command('import-banking77')
    .description('check a Banking77-format CSV (text,category) against the taxonomy and store it in the lab')
    .argument('<file>', 'the CSV, e.g. $BANKING77_DIR/train.csv')
    .option('--dry-run', 'check and report only; store nothing', false)
    .option('--max-problems <n>', 'refuse the import when more rows than this have problems', '0')
    .action((file: string, opts: { dryRun: boolean; maxProblems: string }) => {
      const g = globals();
      const maxProblems = Number(opts.maxProblems);
      if (!Number.isInteger(maxProblems) || maxProblems < 0) throw new UsageError(`--max-problems must be a non-negative integer, got "${opts.maxProblems}".`);
      const intents = new Set(bankingDomain().taxonomy.map((e) => e.intent));
      const result = readBanking77Csv(file, intents);
      for (const p of result.problems.slice(0, 50)) process.stderr.write(`${file}:${p.line}: ${p.problem}\n`);
      if (result.problems.length > 50) process.stderr.write(`… and ${result.problems.length - 50} more problems\n`);

      const refused = result.problems.length > maxProblems;
      let importId: number | null = null;
      if (!opts.dryRun && !refused) {
        const store = openSqliteStore(g.db);
        try {
          importId = saveCorpusImport(store.db, 'banking77', path.resolve(file), result.rows, result.problems.length);
        } finally {
          store.close();
        }
      }
      const doc = {
        file,
        db: g.db,
        importId,
        stored: importId !== null,
        /** What a run config names these rows by (bootstrap.sft.corpus). */
        hash: corpusHash(result.rows),
        rows: result.rows.length,
        problems: result.problems,
        intents: Object.keys(result.perIntent).length,
        perIntent: result.perIntent,
      };
      if (g.json) process.stdout.write(JSON.stringify(doc, null, 2) + '\n');
      else {
        const top = Object.entries(result.perIntent).sort((a, b) => b[1] - a[1]);
        process.stdout.write(
          `${table(['intent', 'rows'], [...top.slice(0, 5), ['…', ''], ...top.slice(-3)], ['l', 'r'])}\n\n` +
            `${result.rows.length} rows over ${doc.intents} intents, ${result.problems.length} problem rows; ` +
            (importId !== null
              ? `stored as import ${importId} in ${g.db} (content hash ${doc.hash}); \`sparring run --corpus banking77\` adds it to DA0's SFT\n`
              : opts.dryRun
                ? 'dry run: nothing stored\n'
                : 'nothing stored\n'),
        );
      }
      if (refused) {
        throw new UsageError(
          `${file}: ${result.problems.length} rows have problems (see above; allowed: ${maxProblems}); nothing was stored. Fix them or pass --max-problems.`,
        );
      }
    });
}
