/**
 * `sparring export ID`: what a run, a match, a study or a tactic labelling queue produced, in the
 * forms other tools read.
 *
 * - Episodes (a run's, one match's, or every run of a study): JSONL in the OpenAI chat format with
 *   tool calls, or CSV with every reward term. Pages through the lab, so a large run streams.
 * - `--table NAME|all`: a results table as CSV or JSON (core/export: the same tables and the same
 *   bytes as the app's export buttons): a run's Table 4, per-scenario rows, matches and panel; a
 *   study's arms, paired differences, reach and W_DA; a tactic queue's Table 5, agreement and
 *   confusion matrix.
 * - `--tensorboard DIR`: the run's (or each study run's) metrics as TensorBoard event files, once
 *   or, with `--follow`, while the run runs.
 */
import { createWriteStream, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Writable } from 'node:stream';
import type { Command } from 'commander';
import { Option } from 'commander';
import { tableFile, tablesToJson } from '../../../core/export/data-table';
import type { DataTable } from '../../../core/export/data-table';
import { labDomain } from '../../store/scenario-store';
import { CSV_COLUMNS, episodeCsvRow, episodeToChat, exportMatchIds, validatedChat } from '../../engine/export';
import { openSqliteStore } from '../../store/sqlite-store';
import type { SqliteRunStore } from '../../store/sqlite-store';
import { resultTables, runDetail, runScalars, runsOf, sourceOf, TABLES } from '../../report/result-tables';
import type { TableSource } from '../../report/result-tables';
import { TensorBoardWriter } from '../../report/tensorboard';
import { runLease } from '../../store/run-lease';
import { ownerAlive } from '../../study/study-store';
import type { StudyOwner } from '../../study/study-store';
import { UsageError } from '../options';
import type { GlobalOptions } from '../global-options';

const PAGE = 500;
const ALL_TABLES = [...new Set(Object.values(TABLES).flat())];

interface ExportOptions {
  format?: 'jsonl' | 'csv' | 'json';
  out?: string;
  validated?: boolean;
  table?: string;
  tensorboard?: string;
  follow?: boolean;
  interval?: string;
}

export function registerExport(program: Command, globals: () => GlobalOptions): void {
  program
    .command('export')
    .description(
      'episodes of a run, a match or a study as JSONL (OpenAI chat format with tool calls) or CSV (every reward term); ' +
        'with --table, a results table as CSV or JSON; with --tensorboard, run metrics as TensorBoard event files',
    )
    .argument('<id>', 'a run (R1: all its matches), a match (R1-M3, M1), a study (S1: every run of it) or, with --table, a tactic labelling queue (T1)')
    .addOption(
      new Option(
        '--format <f>',
        'episodes: jsonl (default) or csv; --table: csv (default) or json. Floats are written rounded (0.29, not 0.29000000000000004)',
      ).choices(['jsonl', 'csv', 'json']),
    )
    .option('--out <path>', 'write here instead of stdout; with --table all --format csv, a folder that gets one file per table (sparring-ID-TABLE.csv)')
    .option('--validated', 'JSONL of the episodes that pass every validator (syntax, faithfulness, role confusion, task success), with scenario metadata')
    .addOption(
      new Option(
        '--table <name>',
        "a results table instead of episodes. A run: table4 (RL-ADA Table 4 per DA checkpoint, against the run's CA and the scripted CA, 95% Wilson intervals, change from the first DA), " +
          "scenarios (held-out results per scenario and checkpoint), matches (W_DA, fraud rate and the CA's tactic measures per match, the gyms after it), panel (the final DA's panel evaluation, when one was run). " +
          "A study: arms (each arm's measures, mean and 95% t interval over seeds), paired (each arm − the baseline, paired by seed), reach (held-out routing by the arena's reach), wda (W_DA per match and arm). " +
          "A tactic queue: table5 (RL-ADA Table 5: tactic shares per match), agreement (Cohen's κ per pair, Fleiss' κ, Krippendorff's α, the classifier's κ), confusion (classifier × consensus). " +
          'all: every table of the id (JSON: one document; CSV: --out FOLDER). Rows are one figure each, rates as fractions in [0, 1]',
      ).choices([...ALL_TABLES, 'all']),
    )
    .option(
      '--tensorboard <dir>',
      "metrics as TensorBoard event files (tensorboard --logdir DIR): one subfolder per run (a study: RUN-ARM-seedN) with its gym series, each match's W_DA, W_CA, fraud rate and tactic measures, and the held-out Table 4 per checkpoint; Sparring's earlier event files in that subfolder are replaced",
    )
    .option(
      '--follow',
      "with --tensorboard and a run: keep writing the run's new points while it runs (another process runs it), until it finishes, fails or stops; exits 1 when no live process drives it any more",
    )
    .option('--interval <seconds>', 'with --follow: how often to read the lab, in seconds', '2')
    .action(async (id: string, opts: ExportOptions) => {
      const g = globals();
      if (opts.follow && opts.tensorboard === undefined) throw new UsageError('export: --follow goes with --tensorboard DIR');
      if (opts.tensorboard !== undefined && (opts.table !== undefined || opts.format !== undefined || opts.validated))
        throw new UsageError('export: --tensorboard writes event files; drop --table, --format and --validated');
      const store = openSqliteStore(g.db);
      try {
        if (opts.tensorboard !== undefined) await tensorboardExport(store, id, opts.tensorboard, opts.follow === true, Number(opts.interval), g.db);
        else if (opts.table !== undefined) await tableExport(store, id, opts, g.db);
        else await episodeExport(store, id, opts, g.db);
      } finally {
        store.close();
      }
    });
}

function sourceOrRefuse(store: SqliteRunStore, id: string, db: string): TableSource {
  const source = sourceOf(store, id);
  if (!source) throw new UsageError(`export: no run, study or tactic labelling queue "${id}" in ${db}`);
  return source;
}

async function tableExport(store: SqliteRunStore, id: string, opts: ExportOptions, db: string): Promise<void> {
  if (opts.validated) throw new UsageError('export: --validated is for episodes; drop it with --table');
  if (opts.format === 'jsonl') throw new UsageError('export: --table writes csv or json, not jsonl');
  const format = opts.format ?? 'csv';
  const source = sourceOrRefuse(store, id, db);
  const names: readonly string[] = TABLES[source];
  if (opts.table !== 'all' && !names.includes(opts.table!))
    throw new UsageError(`export: a ${source === 'queue' ? 'tactic queue' : source} has the tables ${names.join(', ')}; "${opts.table}" is not one of them`);
  const tables = await resultTables(store, source, id);
  let chosen: DataTable[];
  if (opts.table === 'all') chosen = tables;
  else {
    const t = tables.find((x) => x.name === opts.table);
    if (!t)
      throw new UsageError(
        `export: ${id} has no ${opts.table} table (${opts.table === 'panel' ? 'no panel evaluation of its final DA: sparring eval --panel' : 'an --arena-only run shows only its matches'})`,
      );
    chosen = [t];
  }
  if (chosen.length > 1 && format === 'csv') {
    if (!opts.out) throw new UsageError('export: --table all --format csv writes one file per table: give --out FOLDER (or --format json for one document)');
    mkdirSync(opts.out, { recursive: true });
    for (const t of chosen) {
      const f = tableFile(t, 'csv', id);
      writeFileSync(path.join(opts.out, f.filename), f.content);
    }
    process.stderr.write(`exported ${chosen.length} tables of ${id} to ${opts.out}: ${chosen.map((t) => `${t.name} (${t.rows.length} rows)`).join(', ')}\n`);
    return;
  }
  const content = chosen.length > 1 ? tablesToJson(chosen) : tableFile(chosen[0]!, format, id).content;
  if (opts.out) writeFileSync(opts.out, content);
  else process.stdout.write(content);
  process.stderr.write(`exported ${chosen.map((t) => `${t.name} (${t.rows.length} rows)`).join(', ')} of ${id}${opts.out ? ` to ${opts.out}` : ''}\n`);
}

async function episodeExport(store: SqliteRunStore, id: string, opts: ExportOptions, db: string): Promise<void> {
  if (opts.format === 'json') throw new UsageError('export: episodes are jsonl or csv; json is for --table');
  const format = opts.format ?? 'jsonl';
  if (opts.validated && format !== 'jsonl') throw new UsageError('export: --validated writes JSONL; drop --format csv');
  const scenarios = new Map(labDomain(store.db).scenarios.map((s) => [s.id, s]));
  const matches = exportMatchIds(store, id);
  if (matches.length === 0) throw new UsageError(`export: no run, match or study "${id}" with episodes in ${db}`);
  const out: Writable = opts.out ? createWriteStream(opts.out) : process.stdout;
  const eol = format === 'csv' ? '\r\n' : '\n';
  const write = (line: string) => new Promise<void>((resolve) => (out.write(line + eol) ? resolve() : out.once('drain', resolve)));
  if (format === 'csv') await write(CSV_COLUMNS.join(','));
  let n = 0;
  let skipped = 0;
  for (const matchId of matches) {
    for (let offset = 0; ; offset += PAGE) {
      const page = store.listEpisodes({ matchId, offset, limit: PAGE });
      for (const e of page) {
        if (format === 'csv') await write(episodeCsvRow(e));
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
  process.stderr.write(`exported ${n - skipped} episodes of ${matches.length} match${matches.length === 1 ? '' : 'es'}${opts.out ? ` to ${opts.out}` : ''}\n`);
}

const ENDED = new Set(['finished', 'failed', 'stopped']);

/** Why a run the lab calls running is not running any more (its lease holder is gone), or null while a live process drives it. */
function notDriven(runId: string, owner: StudyOwner | null): string | null {
  if (!owner) return `${runId} is no longer running: no process drives it (the one that did ended without finishing it)`;
  if (ownerAlive(owner)) return null;
  const ago = Math.max(0, Math.round((Date.now() - Date.parse(owner.heartbeatAt)) / 1000));
  return `${runId} is no longer running: the process that drove it (pid ${owner.pid} on ${owner.host}) is gone (last heard from ${ago} s ago)`;
}

async function tensorboardExport(store: SqliteRunStore, id: string, dir: string, follow: boolean, interval: number, db: string): Promise<void> {
  const source = sourceOf(store, id);
  if (source !== 'run' && source !== 'study') throw new UsageError(`export --tensorboard: no run or study "${id}" in ${db}`);
  if (follow && source !== 'run') throw new UsageError('export --tensorboard --follow follows one run; a study exports its finished runs without --follow');
  if (!(interval > 0)) throw new UsageError(`--interval ${interval}: give a number of seconds above 0`);
  for (const { runId, label } of runsOf(store, source, id)) {
    const w = new TensorBoardWriter(path.join(dir, label), { replace: true });
    const push = () => w.append(runScalars(store, runId));
    try {
      push();
      if (follow) {
        process.stderr.write(`following ${runId} into ${w.file} (every ${interval} s, until it ends)\n`);
        const lease = runLease(store.db);
        let undriven = 0;
        for (;;) {
          const status = runDetail(store, runId).status;
          // A 'running' run that no live process drives (killed, or its app closed) makes no more
          // progress until someone resumes it. Seen twice in a row: a driver that ends the run
          // lets go of its lease a moment before it records the end.
          const why = status === 'running' ? notDriven(runId, lease.owner(runId)) : null;
          undriven = why ? undriven + 1 : 0;
          await new Promise((r) => setTimeout(r, interval * 1000));
          push();
          if (ENDED.has(status)) break;
          if (why && undriven >= 2)
            throw new Error(`${why}; what it wrote is in ${w.file}. Resume it with \`sparring run --resume ${runId}\`, then follow again`);
        }
      }
    } finally {
      w.close();
    }
    process.stderr.write(`wrote ${w.written} scalar points of ${runId} to ${w.file}\n`);
  }
}
