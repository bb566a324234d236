/**
 * `sparring export RUN|MATCH --format jsonl|csv [--out FILE]`: a run's (or one match's) episodes
 * as JSONL in the OpenAI chat format with tool calls, or as CSV with every reward term. Pages
 * through the lab, so a large run streams instead of being held in memory.
 */
import { createWriteStream } from 'node:fs';
import type { Writable } from 'node:stream';
import type { Command } from 'commander';
import { Option } from 'commander';
import { labDomain } from '../../store/scenario-store';
import { CSV_COLUMNS, episodeCsvRow, episodeToChat, validatedChat } from '../../engine/export';
import { openSqliteStore } from '../../store/sqlite-store';
import { UsageError } from '../options';
import type { GlobalOptions } from '../main';

const PAGE = 500;

export function registerExport(program: Command, globals: () => GlobalOptions): void {
  program
    .command('export')
    .description('episodes of a run or a match as JSONL (OpenAI chat format with tool calls) or CSV (every reward term)')
    .argument('<id>', 'a run (R1: all its matches) or a match (R1-M3, M1)')
    .addOption(new Option('--format <f>', 'jsonl or csv').choices(['jsonl', 'csv']).default('jsonl'))
    .option('--out <file>', 'write here instead of stdout')
    .option('--validated', 'JSONL of the episodes that pass every validator (syntax, faithfulness, role confusion, task success), with scenario metadata')
    .action(async (id: string, opts: { format: 'jsonl' | 'csv'; out?: string; validated?: boolean }) => {
      const g = globals();
      if (opts.validated && opts.format !== 'jsonl') throw new UsageError('export: --validated writes JSONL; drop --format csv');
      const store = openSqliteStore(g.db);
      const scenarios = new Map(labDomain(store.db).scenarios.map((s) => [s.id, s]));
      try {
        const matches = store.getMatch(id)
          ? [id]
          : store
              .listMatches()
              .map((m) => m.id)
              .filter((m) => m.startsWith(`${id}-M`));
        if (matches.length === 0) throw new UsageError(`export: no run or match "${id}" in ${g.db}`);
        const out: Writable = opts.out ? createWriteStream(opts.out) : process.stdout;
        const eol = opts.format === 'csv' ? '\r\n' : '\n';
        const write = (line: string) => new Promise<void>((resolve) => (out.write(line + eol) ? resolve() : out.once('drain', resolve)));
        if (opts.format === 'csv') await write(CSV_COLUMNS.join(','));
        let n = 0;
        let skipped = 0;
        for (const matchId of matches) {
          for (let offset = 0; ; offset += PAGE) {
            const page = store.listEpisodes({ matchId, offset, limit: PAGE });
            for (const e of page) {
              if (opts.format === 'csv') await write(episodeCsvRow(e));
              else {
                const full = store.getEpisode(e.id)!;
                const chat = opts.validated ? validatedChat(full, scenarios.get(e.scenarioId)) : episodeToChat(full, scenarios.get(e.scenarioId));
                if (chat) await write(JSON.stringify(chat));
                else skipped++;
              }
            }
            n += page.length;
            if (page.length < PAGE) break;
          }
        }
        if (opts.out) await new Promise<void>((resolve) => out.end(resolve));
        if (opts.validated) process.stderr.write(`${skipped} of ${n} episodes failed a validator and were left out\n`);
        process.stderr.write(
          `exported ${n - skipped} episodes of ${matches.length} match${matches.length === 1 ? '' : 'es'}${opts.out ? ` to ${opts.out}` : ''}\n`,
        );
      } finally {
        store.close();
      }
    });
}
