/**
 * `sparring lab merge OTHER.db` (and the engine's `labs/merge`): brings another lab's rows into
 * this one — runs, matches, episodes, turns, rewards, checkpoints (their bytes stored once per
 * hash), metrics, studies, human episodes, annotators, label queues and labels, judge audits and
 * every other table — renaming the ids that are taken here and rewriting every reference to them,
 * the ones inside JSON columns and policy SPECs included (a run's snapshot names its checkpoints
 * and matches).
 *
 * Table-driven: MERGE_PLAN declares, for each table of the schema, its key and its references;
 * lab-merge.test.ts fails when a table or column of the current schema is missing from it, so a
 * new migration cannot slip past the merge.
 *
 * Identity and idempotence. Every lab has an id (lab_meta, migration 29). A row with an identity
 * of its own (an id or a serial number) is recorded in lab_merge_rows under the other lab's id
 * with the key it got here, so merging the same lab again finds it and adds nothing. A row whose
 * key is free here keeps it; one whose key is taken by an identical row (a copy of this lab) is
 * that row; one whose key is taken by a different row is renamed (R1 → R5, DA0 → DA7, its
 * matches R1-M1 → R5-M1 and their episodes with them). Rows keyed by their references (turns,
 * metrics, labels…) come in unless the same key already holds the same row.
 *
 * Labels: the same annotator's labels of the same item from two labs are both kept: the incoming
 * one under `<annotator>@<lab>` (an annotator of its own, so the agreement reports compare the two
 * and show the disagreement), and the report lists them. Other rows under a shared name that
 * differ (an LLM endpoint, a custom scenario of the same id) keep this lab's and are reported as
 * conflicts.
 *
 * A lab of a newer schema is refused by name; one of an older schema is migrated in a temporary
 * copy first (the file itself is only read). A dry run does the whole merge in a transaction and
 * rolls it back: it reports what would come in and changes nothing.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, realpathSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import type { Database as Db } from 'better-sqlite3';
import type { LabelDisagreement, LabMergeCounts, LabMergeReport } from '../../core/contract/contract';
import { LATEST_VERSION, applyMigrations, newerSchemaError, userVersion } from './migrations';

/** How a reference is written in its column. */
export type RefMode =
  /** The referenced row's key itself; it must resolve when not null (unless `loose`). */
  | 'key'
  /** A policy SPEC or similar string that may be a key of the referenced table ('DA3'), or something else ('scripted'). */
  | 'spec'
  /** Words of a string separated by ':', '/', ',' or spaces, any of which may be a key ('gym:DA1', 'ca:CA7'). */
  | 'words'
  /** A JSON document whose strings (values and object keys) may be keys of the referenced tables. */
  | 'json';

export interface RefPlan {
  col: string;
  to: readonly string[];
  mode: RefMode;
  /** A 'key' reference that need not resolve (no foreign key in the schema: a call of an episode since deleted). */
  loose?: boolean;
}

export interface TablePlan {
  table: string;
  /**
   * id: a text id of its own, renamed when taken by a different row; serial: an integer id,
   * numbered afresh when taken; shared: a name or hash that means the same thing in every lab
   * (same key, same row); child: a key made of references and positions.
   */
  key: { kind: 'id' | 'serial' | 'shared' | 'child'; cols: readonly string[] };
  refs: readonly RefPlan[];
  /** Every column of the table, as this plan was written against (the coverage test compares them with the schema). */
  columns: string;
  /** Columns left out when deciding whether two rows are the same row (filled in later, or this lab's own order). */
  volatile?: readonly string[];
  /** Columns not copied (the table numbers them itself). */
  omit?: readonly string[];
  /** A renamed id derived from a renamed parent's: R1-M1 → R5-M1 when R1 became R5. */
  derive?: { col?: string; pattern?: RegExp; to: string };
  /** labels: the same key with another value is a disagreement, kept under an aliased annotator. */
  onConflict?: 'keep-local' | 'alias-annotator';
}

const CHECKPOINT_REFS = ['checkpoints'] as const;

/** One entry per table of the schema, in the order rows come in (a table after the ones it refers to). */
export const MERGE_PLAN: readonly TablePlan[] = [
  { table: 'checkpoint_blobs', key: { kind: 'shared', cols: ['hash'] }, refs: [], columns: 'hash bytes' },
  { table: 'experiments', key: { kind: 'id', cols: ['id'] }, refs: [], columns: 'id name description created_at config_json' },
  {
    table: 'runs',
    key: { kind: 'id', cols: ['id'] },
    refs: [
      { col: 'experiment_id', to: ['experiments'], mode: 'key' },
      { col: 'snapshot_json', to: ['checkpoints', 'matches', 'runs', 'episodes'], mode: 'json' },
      { col: 'config_json', to: ['checkpoints'], mode: 'json' },
    ],
    columns:
      'id experiment_id created_at updated_at status seed config_json snapshot_json error preset device_json arena_only owner_host owner_pid heartbeat_at metric_marks_json note',
    // Who drives it and when it last said so (migration 28), and a person's note on it (migration 30): a copy of this lab's run is the same run.
    volatile: ['owner_host', 'owner_pid', 'heartbeat_at', 'note'],
  },
  {
    table: 'checkpoints',
    key: { kind: 'id', cols: ['id'] },
    refs: [
      { col: 'run_id', to: ['runs'], mode: 'key' },
      { col: 'parent_id', to: CHECKPOINT_REFS, mode: 'key' },
      { col: 'weights_hash', to: ['checkpoint_blobs'], mode: 'key' },
      { col: 'optimiser_hash', to: ['checkpoint_blobs'], mode: 'key' },
      { col: 'training_data_json', to: ['checkpoints', 'matches', 'episodes', 'runs', 'corpus_imports'], mode: 'json' },
      { col: 'name', to: CHECKPOINT_REFS, mode: 'spec' },
    ],
    columns:
      'id name role created_at run_id parent_id generation step source model_json weights optimiser metrics_json training_data_json note provider llm_json weights_hash optimiser_hash',
  },
  {
    table: 'matches',
    key: { kind: 'id', cols: ['id'] },
    refs: [
      { col: 'da_spec', to: CHECKPOINT_REFS, mode: 'spec' },
      { col: 'ca_spec', to: CHECKPOINT_REFS, mode: 'spec' },
      { col: 'da_checkpoint_id', to: CHECKPOINT_REFS, mode: 'key', loose: true },
      { col: 'da_checkpoint_name', to: CHECKPOINT_REFS, mode: 'spec' },
      { col: 'ca_checkpoint_id', to: CHECKPOINT_REFS, mode: 'key', loose: true },
      { col: 'ca_checkpoint_name', to: CHECKPOINT_REFS, mode: 'spec' },
    ],
    columns:
      'seq id created_at seed da_spec ca_spec scenario_set episodes_per_scenario w_da fraud_rate config_json da_checkpoint_id da_checkpoint_name ca_checkpoint_id ca_checkpoint_name',
    volatile: ['seq'],
    omit: ['seq'],
    derive: { pattern: /^(R\d+)(-.*)$/, to: 'runs' },
  },
  {
    table: 'match_scenarios',
    key: { kind: 'child', cols: ['match_id', 'pos'] },
    refs: [{ col: 'match_id', to: ['matches'], mode: 'key' }],
    columns: 'match_id pos scenario_id fraud_reference episodes da_wins da_win_rate',
  },
  {
    table: 'episodes',
    key: { kind: 'id', cols: ['id'] },
    refs: [{ col: 'match_id', to: ['matches'], mode: 'key' }],
    columns:
      'id match_id idx scenario_id fraud_reference seed intent expected_tool routed_tool winner end_reason r_da r_ca da_format da_tool da_env_lookup_first da_env_correct_tool da_env_speak da_env_milestone da_env_late da_env_judge da_env_missed_verification da_env_missing_tool da_end ca_format ca_realism ca_conceal ca_inv_da judge_score judge_resolved judge_tier judge_hallucination judge_rationale judge_hallucinations_json adversities_json da_env_fallback validator_failed customer',
    volatile: ['validator_failed'],
    derive: { col: 'match_id', to: 'matches' },
  },
  {
    table: 'turns',
    key: { kind: 'child', cols: ['episode_id', 'idx'] },
    refs: [{ col: 'episode_id', to: ['episodes'], mode: 'key' }],
    columns: 'episode_id idx role text action_type tool tool_args_json tool_result_json parse_error',
  },
  {
    table: 'turn_rewards',
    key: { kind: 'child', cols: ['episode_id', 'turn_idx', 'term'] },
    refs: [{ col: 'episode_id', to: ['episodes'], mode: 'key' }],
    columns: 'episode_id turn_idx term value',
  },
  {
    table: 'annotations',
    key: { kind: 'serial', cols: ['id'] },
    refs: [{ col: 'episode_id', to: ['episodes'], mode: 'key' }],
    columns: 'id episode_id turn_idx created_at author label note',
  },
  {
    table: 'knob_changes',
    key: { kind: 'serial', cols: ['id'] },
    refs: [{ col: 'run_id', to: ['runs'], mode: 'key' }],
    columns: 'id run_id created_at generation knob old_value_json new_value_json actor reason',
  },
  {
    table: 'experience_notes',
    key: { kind: 'serial', cols: ['id'] },
    refs: [{ col: 'run_id', to: ['runs'], mode: 'key' }],
    columns: 'id created_at run_id author topic text tags_json',
  },
  { table: 'corpus_imports', key: { kind: 'serial', cols: ['id'] }, refs: [], columns: 'id source file imported_at rows problems' },
  {
    table: 'corpus_utterances',
    key: { kind: 'child', cols: ['import_id', 'line'] },
    refs: [{ col: 'import_id', to: ['corpus_imports'], mode: 'key' }],
    columns: 'import_id line intent text',
  },
  {
    table: 'run_metrics',
    key: { kind: 'child', cols: ['run_id', 'phase', 'key', 'step'] },
    refs: [
      { col: 'run_id', to: ['runs'], mode: 'key' },
      { col: 'phase', to: CHECKPOINT_REFS, mode: 'words' },
    ],
    columns: 'run_id phase key step value',
  },
  { table: 'annotators', key: { kind: 'shared', cols: ['name'] }, refs: [], columns: 'name created_at', volatile: ['created_at'] },
  {
    table: 'label_queues',
    key: { kind: 'id', cols: ['id'] },
    refs: [{ col: 'match_ids_json', to: ['matches'], mode: 'json' }],
    columns: 'id kind created_at labels_json match_ids_json per_match seed',
  },
  {
    table: 'label_items',
    key: { kind: 'child', cols: ['queue_id', 'pos'] },
    refs: [
      { col: 'queue_id', to: ['label_queues'], mode: 'key' },
      { col: 'episode_id', to: ['episodes'], mode: 'key' },
    ],
    columns: 'queue_id pos episode_id turn_idx',
  },
  {
    table: 'labels',
    key: { kind: 'child', cols: ['queue_id', 'pos', 'annotator'] },
    refs: [
      { col: 'queue_id', to: ['label_queues'], mode: 'key' },
      { col: 'annotator', to: ['annotators'], mode: 'key' },
    ],
    columns: 'queue_id pos annotator value_json note ms_spent revision created_at updated_at write_seq',
    volatile: ['write_seq'],
    onConflict: 'alias-annotator',
  },
  {
    table: 'play_sessions',
    key: { kind: 'id', cols: ['id'] },
    refs: [
      { col: 'opponent', to: CHECKPOINT_REFS, mode: 'spec' },
      { col: 'forked_from_episode', to: ['episodes'], mode: 'key' },
      { col: 'opponent_checkpoint_id', to: CHECKPOINT_REFS, mode: 'key', loose: true },
      { col: 'opponent_checkpoint_name', to: CHECKPOINT_REFS, mode: 'spec' },
    ],
    columns:
      'id created_at updated_at player seat opponent scenario_id seed config_json forked_from_episode forked_from_turn turns_json opponent_checkpoint_id opponent_checkpoint_name',
  },
  {
    table: 'human_episodes',
    key: { kind: 'child', cols: ['episode_id'] },
    refs: [
      { col: 'episode_id', to: ['episodes'], mode: 'key' },
      { col: 'forked_from_episode', to: ['episodes'], mode: 'key' },
      { col: 'opponent', to: CHECKPOINT_REFS, mode: 'spec' },
    ],
    columns: 'episode_id player seat opponent played_at forked_from_episode forked_from_turn',
  },
  { table: 'custom_scenarios', key: { kind: 'shared', cols: ['id'] }, refs: [], columns: 'id scenario_json created_at updated_at', volatile: ['updated_at'] },
  {
    table: 'llm_endpoints',
    key: { kind: 'shared', cols: ['name'] },
    refs: [],
    columns: 'name base_url model api_key_env tool_calls max_concurrency created_at',
    volatile: ['created_at'],
  },
  {
    table: 'llm_cache',
    key: { kind: 'shared', cols: ['request_key'] },
    refs: [],
    columns: 'request_key endpoint result_json created_at',
    volatile: ['created_at'],
  },
  {
    table: 'llm_calls',
    key: { kind: 'serial', cols: ['id'] },
    refs: [{ col: 'episode_id', to: ['episodes'], mode: 'key', loose: true }],
    columns: 'id endpoint model episode_id turn role request_key params_json seed latency_ms tokens_in tokens_out cached finish_reason created_at',
  },
  {
    table: 'llm_gguf_models',
    key: { kind: 'shared', cols: ['name'] },
    refs: [],
    columns: 'name path sha256 gpu context_size threads created_at sequences',
    volatile: ['created_at'],
  },
  {
    table: 'studies',
    key: { kind: 'id', cols: ['id'] },
    refs: [],
    columns: 'id created_at updated_at preset base_config_json arms_json seeds_json status arena_only owner_host owner_pid heartbeat_at',
    // Who ran it and when it last said so: a copy of this lab's study is the same study.
    volatile: ['owner_host', 'owner_pid', 'heartbeat_at'],
  },
  {
    table: 'study_runs',
    key: { kind: 'child', cols: ['study_id', 'arm', 'seed'] },
    refs: [
      { col: 'study_id', to: ['studies'], mode: 'key' },
      { col: 'run_id', to: ['runs'], mode: 'key' },
    ],
    columns: 'study_id arm seed run_id status error seconds',
  },
  {
    table: 'study_evaluations',
    key: { kind: 'child', cols: ['study_id', 'arm', 'seed', 'kind'] },
    refs: [
      { col: 'study_id', to: ['studies'], mode: 'key' },
      { col: 'result_json', to: ['checkpoints', 'matches', 'runs'], mode: 'json' },
    ],
    columns: 'study_id arm seed kind result_json',
  },
  {
    table: 'eau_proposals',
    key: { kind: 'serial', cols: ['id'] },
    refs: [
      { col: 'run_id', to: ['runs'], mode: 'key' },
      { col: 'gym_id', to: CHECKPOINT_REFS, mode: 'words' },
      { col: 'proposal_json', to: ['checkpoints', 'matches', 'runs'], mode: 'json' },
    ],
    columns: 'id run_id created_at match_index gym_id diagnostic knob proposal_json',
  },
  {
    table: 'gym_jobs',
    key: { kind: 'id', cols: ['id'] },
    refs: [
      { col: 'run_id', to: ['runs'], mode: 'key' },
      { col: 'from_checkpoint', to: CHECKPOINT_REFS, mode: 'spec' },
      { col: 'opponent', to: CHECKPOINT_REFS, mode: 'spec' },
      { col: 'match_id', to: ['matches'], mode: 'spec' },
      { col: 'checkpoint', to: CHECKPOINT_REFS, mode: 'spec' },
    ],
    columns: 'id run_id gym_index role from_checkpoint opponent match_id export_path status created_at finished_at checkpoint note',
    derive: { col: 'run_id', to: 'runs' },
  },
  {
    table: 'panel_evaluations',
    key: { kind: 'child', cols: ['da', 'counterpart', 'protocol'] },
    refs: [
      { col: 'da', to: CHECKPOINT_REFS, mode: 'spec' },
      { col: 'counterpart', to: ['checkpoints', 'episodes'], mode: 'words' },
      { col: 'result_json', to: ['checkpoints', 'episodes'], mode: 'json' },
    ],
    columns: 'da counterpart protocol role kind label created_at seconds result_json',
  },
  {
    table: 'knob_writes',
    key: { kind: 'serial', cols: ['id'] },
    refs: [
      { col: 'run_id', to: ['runs'], mode: 'key' },
      { col: 'reverts', to: ['knob_writes'], mode: 'key' },
      { col: 'proposal_id', to: ['knob_proposals'], mode: 'key', loose: true },
      { col: 'by', to: ['runs'], mode: 'words' },
    ],
    columns:
      'id run_id knob value requested_from from_value reason by status created_at state_json applied_at applied_state_json applied_seq reverts proposal_id',
  },
  {
    table: 'knob_proposals',
    key: { kind: 'serial', cols: ['id'] },
    refs: [
      { col: 'run_id', to: ['runs'], mode: 'key' },
      { col: 'write_id', to: ['knob_writes'], mode: 'key' },
    ],
    columns: 'id run_id knob value_json reason source_json evidence_json at_json status created_at decided_at write_id',
  },
  {
    table: 'bootstraps',
    key: { kind: 'shared', cols: ['key'] },
    refs: [
      { col: 'run_id', to: ['runs'], mode: 'key', loose: true },
      { col: 'da', to: CHECKPOINT_REFS, mode: 'key' },
      { col: 'ca', to: CHECKPOINT_REFS, mode: 'key' },
    ],
    columns: 'key run_id da ca created_at',
  },
];

/** Tables of the schema that are not merged, and why. */
export const NOT_MERGED: Readonly<Record<string, string>> = {
  lab_meta: "this lab's own identity",
  lab_merges: 'the merges into this lab (its own history)',
  lab_merge_rows: 'where the rows merged into this lab came from (its own ledger)',
};

export type TableCounts = LabMergeCounts;
export type MergeReport = LabMergeReport;
export type { LabelDisagreement };

export interface MergeOptions {
  dryRun?: boolean;
  /**
   * Rows of the other lab that are this lab's rows by key (a study's shard: the run the study
   * handed out is the same run): the row here is updated from theirs instead of a new one added.
   */
  adopt?: Partial<Record<string, readonly string[]>>;
  /** Name used in aliased annotators (`alice@NAME`); default the other file's name without extension. */
  sourceName?: string;
}

type Row = Record<string, unknown>;

/** The lab's id (lab_meta), or null for a lab from before migration 29. */
export function labId(db: Db): string | null {
  const has = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'lab_meta'").get();
  if (!has) return null;
  return (db.prepare("SELECT value FROM lab_meta WHERE key = 'lab_id'").pluck().get() as string | undefined) ?? null;
}

/**
 * Open the other lab for reading at this code's schema: as it is when it is current; migrated in a
 * temporary copy when it is older (its id then derived from its path, so merging it again finds
 * the same rows); refused by name when newer.
 */
function openSource(file: string): { db: Db; version: number; close: () => void } {
  if (!existsSync(file)) throw new Error(`lab merge: no such lab file ${file}`);
  let db: Db;
  try {
    db = new Database(file, { readonly: true, fileMustExist: true });
  } catch (err) {
    throw new Error(`lab merge: cannot open ${file}: ${(err as Error).message}`, { cause: err });
  }
  let version: number;
  try {
    version = userVersion(db);
  } catch (err) {
    db.close();
    throw new Error(`lab merge: ${file} is not a SQLite lab (${(err as Error).message})`, { cause: err });
  }
  if (version > LATEST_VERSION) {
    db.close();
    throw newerSchemaError(file, version);
  }
  if (version === LATEST_VERSION) return { db, version, close: () => db.close() };
  const dir = mkdtempSync(path.join(os.tmpdir(), 'sparring-merge-'));
  const copy = path.join(dir, 'source.db');
  try {
    // VACUUM INTO writes a consistent copy (the WAL's pages included) without touching the file.
    db.prepare('VACUUM INTO ?').run(copy);
    db.close();
    const migrated = new Database(copy);
    migrated.pragma('foreign_keys = ON');
    applyMigrations(migrated);
    const id = `file-${createHash('sha256').update(realpathSync(file)).digest('hex').slice(0, 32)}`;
    if (version < 29) migrated.prepare("UPDATE lab_meta SET value = ? WHERE key = 'lab_id'").run(id);
    return {
      db: migrated,
      version,
      close: () => {
        migrated.close();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  } catch (err) {
    if (db.open) db.close();
    rmSync(dir, { recursive: true, force: true });
    throw new Error(`lab merge: ${file} (schema ${version}) could not be migrated in a temporary copy: ${(err as Error).message}`, { cause: err });
  }
}

class DryRun extends Error {}

const sameValue = (a: unknown, b: unknown): boolean => (Buffer.isBuffer(a) && Buffer.isBuffer(b) ? a.equals(b) : a === b);

/** Merge the lab `file` into `target` (an open, migrated lab). */
export function mergeLab(target: Db, file: string, opts: MergeOptions = {}): MergeReport {
  const started = performance.now();
  if (path.resolve(file) === path.resolve(target.name)) throw new Error(`lab merge: ${file} is this lab`);
  const source = openSource(file);
  try {
    const src = source.db;
    const sourceLab = labId(src)!;
    const here = labId(target)!;
    // A copy of this very lab carries this lab's id: its rows are recognised by content, not by the ledger.
    const useLedger = sourceLab !== here;
    const sourceName = opts.sourceName ?? path.basename(file).replace(/\.[^.]*$/, '');
    const report: MergeReport = {
      file,
      sourceLab,
      sourceVersion: source.version,
      dryRun: opts.dryRun === true,
      seconds: 0,
      tables: {},
      renamed: [],
      disagreements: [],
      conflicts: [],
    };
    const work = () => {
      target.pragma('defer_foreign_keys = ON');
      mergeRows(target, src, { sourceLab, useLedger, sourceName, adopt: opts.adopt ?? {} }, report);
      const broken = target.pragma('foreign_key_check') as { table: string; parent: string }[];
      if (broken.length)
        throw new Error(
          `lab merge: ${file}: ${broken.length} reference(s) would not resolve (first: ${broken[0]!.table} → ${broken[0]!.parent}); nothing was merged`,
        );
      if (opts.dryRun) throw new DryRun();
      target
        .prepare('INSERT INTO lab_merges (source_lab, file, merged_at, counts_json) VALUES (?, ?, ?, ?)')
        .run(sourceLab, path.resolve(file), new Date().toISOString(), JSON.stringify(report.tables));
    };
    try {
      target.transaction(work).immediate();
    } catch (err) {
      if (!(err instanceof DryRun)) throw err;
    }
    report.seconds = (performance.now() - started) / 1000;
    return report;
  } finally {
    source.close();
  }
}

interface Ctx {
  sourceLab: string;
  useLedger: boolean;
  sourceName: string;
  adopt: Partial<Record<string, readonly string[]>>;
}

function mergeRows(target: Db, src: Db, ctx: Ctx, report: MergeReport): void {
  /** Keys renamed in this merge, by table: the other lab's key → this lab's. */
  const renamed = new Map<string, Map<string, string>>(MERGE_PLAN.map((p) => [p.table, new Map()]));
  /** References to a table merged later (a knob write's proposal): set once that table's keys are known. */
  const late: { table: string; keyCol: string; key: unknown; ref: RefPlan; value: unknown }[] = [];
  const order = new Map(MERGE_PLAN.map((p, i) => [p.table, i]));
  const ledgerGet = target
    .prepare<[string, string, string], string>('SELECT local_key FROM lab_merge_rows WHERE source_lab = ? AND tbl = ? AND source_key = ?')
    .pluck();
  const ledgerPut = target.prepare('INSERT OR IGNORE INTO lab_merge_rows (source_lab, tbl, source_key, local_key) VALUES (?, ?, ?, ?)');
  const columnsOf = (t: string) => (target.prepare(`PRAGMA table_info(${t})`).all() as { name: string }[]).map((c) => c.name);

  const mapKey = (tables: readonly string[], v: string): string => {
    for (const t of tables) {
      const r = renamed.get(t)?.get(v);
      if (r !== undefined) return r;
    }
    return v;
  };
  const mapJson = (tables: readonly string[], text: string): string => {
    if (!tables.some((t) => renamed.get(t)!.size)) return text;
    let changed = false;
    const walk = (v: unknown): unknown => {
      if (typeof v === 'string') {
        const m = mapKey(tables, v);
        if (m !== v) changed = true;
        return m;
      }
      if (Array.isArray(v)) return v.map(walk);
      if (v && typeof v === 'object') {
        const out: Row = {};
        for (const [k, x] of Object.entries(v)) out[walk(k) as string] = walk(x);
        return out;
      }
      return v;
    };
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      return text;
    }
    const out = walk(parsed);
    return changed ? JSON.stringify(out) : text;
  };
  const mapValue = (ref: RefPlan, v: unknown): unknown => {
    if (typeof v === 'number' && ref.mode === 'key') return Number(mapKey(ref.to, String(v)));
    if (typeof v !== 'string') return v;
    if (ref.mode === 'key' || ref.mode === 'spec') return mapKey(ref.to, v);
    if (ref.mode === 'words') return v.replace(/[^:/,\s]+/g, (w) => mapKey(ref.to, w));
    return mapJson(ref.to, v);
  };
  const mapRow = (plan: TablePlan, row: Row): Row => {
    const out = { ...row };
    for (const ref of plan.refs) out[ref.col] = mapValue(ref, out[ref.col]);
    return out;
  };
  const sameRow = (plan: TablePlan, a: Row, b: Row, cols: string[]): boolean => cols.every((c) => plan.volatile?.includes(c) || sameValue(a[c], b[c]));

  /** A free key for a row whose key is taken here. */
  const taken = new Map<string, Set<string>>();
  const freshKey = (plan: TablePlan, old: string, row: Row): string => {
    const t = plan.table;
    const col = plan.key.cols[0]!;
    const set = taken.get(t) ?? new Set<string>();
    taken.set(t, set);
    const free = (k: string) => !set.has(k) && !target.prepare(`SELECT 1 FROM ${t} WHERE ${col} = ?`).get(k);
    const claim = (k: string) => (set.add(k), k);
    if (plan.key.kind === 'serial') {
      const max = Math.max((target.prepare(`SELECT MAX(${col}) FROM ${t}`).pluck().get() as number | null) ?? 0, ...[...set].map(Number));
      return claim(String(max + 1));
    }
    if (plan.derive) {
      const d = plan.derive;
      let parent: string | undefined;
      if (d.col) parent = typeof row[d.col] === 'string' ? (row[d.col] as string) : undefined;
      else parent = d.pattern?.exec(old)?.[1];
      const moved = parent !== undefined ? renamed.get(d.to)!.get(parent) : undefined;
      if (parent !== undefined && moved !== undefined && old.startsWith(parent)) {
        const k = moved + old.slice(parent.length);
        if (free(k)) return claim(k);
      }
    }
    // DA0 → DA<next>, R1 → R<next>, S2 → S<next>: the same prefix, one past the highest number here.
    const m = plan.table === 'checkpoints' ? [old, String(row.role), ''] : /^(.*?)(\d+)$/.exec(old);
    if (m) {
      const prefix = m[1]!;
      const nums = (target.prepare(`SELECT ${col} FROM ${t} WHERE substr(${col}, 1, ?) = ?`).pluck().all(prefix.length, prefix) as string[])
        .concat([...set])
        .map((k) => (k.startsWith(prefix) && /^\d+$/.test(k.slice(prefix.length)) ? Number(k.slice(prefix.length)) : -1));
      for (let n = Math.max(-1, ...nums) + 1; ; n++) if (free(prefix + n)) return claim(prefix + n);
    }
    for (let n = 2; ; n++) if (free(`${old}~${n}`)) return claim(`${old}~${n}`);
  };

  for (const plan of MERGE_PLAN) {
    const t = plan.table;
    const cols = columnsOf(t);
    const counts: TableCounts = { incoming: 0, added: 0, present: 0, renamed: 0, conflicts: 0 };
    report.tables[t] = counts;
    const keyCols = plan.key.cols;
    const insertCols = cols.filter((c) => !plan.omit?.includes(c));
    const insert = target.prepare(`INSERT INTO ${t} (${insertCols.map((c) => `"${c}"`).join(', ')}) VALUES (${insertCols.map(() => '?').join(', ')})`);
    const byKey = target.prepare(`SELECT * FROM ${t} WHERE ${keyCols.map((c) => `"${c}" = ?`).join(' AND ')}`);
    const adopted = new Set(ctx.adopt[t] ?? []);
    const identity = plan.key.kind === 'id' || plan.key.kind === 'serial';
    const rows = src.prepare(`SELECT * FROM ${t} ORDER BY ${identity ? 'rowid' : keyCols.map((c) => `"${c}"`).join(', ')}`).safeIntegers(false);
    let writeSeq = t === 'labels' ? ((target.prepare('SELECT MAX(write_seq) FROM labels').pluck().get() as number | null) ?? 0) : 0;

    if (identity) {
      // First every row's key here, so rows of the table that refer to one another (a checkpoint's
      // parent, a knob write that reverts another) map whatever their order.
      const decided: { row: Row; key: string; insert: boolean; adopt: boolean }[] = [];
      for (const row of rows.iterate() as Iterable<Row>) {
        counts.incoming++;
        const old = String(row[keyCols[0]!]);
        const ledger = ctx.useLedger ? ledgerGet.get(ctx.sourceLab, t, old) : undefined;
        let key = old;
        let ins = true;
        let adopt = false;
        if (adopted.has(old)) {
          adopt = true;
          ins = false;
        } else if (ledger !== undefined) {
          key = ledger;
          ins = false;
        } else {
          const existing = byKey.get(row[keyCols[0]!]) as Row | undefined;
          // The same row: the same content once its references follow the renames known so far (an
          // episode of a renamed match is not the same episode as the one here, however alike).
          if (existing && sameRow(plan, mapRow(plan, row), existing, cols)) ins = false;
          else if (existing) key = freshKey(plan, old, row);
        }
        if (key !== old) renamed.get(t)!.set(old, key);
        decided.push({ row, key, insert: ins, adopt });
      }
      const keyValue = (k: string) => (plan.key.kind === 'serial' ? Number(k) : k);
      for (const d of decided) {
        const old = String(d.row[keyCols[0]!]);
        if (!d.insert && !d.adopt) {
          counts.present++;
          continue;
        }
        const mapped = mapRow(plan, d.row);
        mapped[keyCols[0]!] = keyValue(d.key);
        if (t === 'checkpoints' && d.row.name === old) mapped.name = d.key;
        if (d.adopt) {
          const set = insertCols.filter((c) => !keyCols.includes(c));
          target
            .prepare(`UPDATE ${t} SET ${set.map((c) => `"${c}" = ?`).join(', ')} WHERE "${keyCols[0]}" = ?`)
            .run(...set.map((c) => mapped[c]), mapped[keyCols[0]!]);
          counts.added++;
        } else {
          insert.run(...insertCols.map((c) => mapped[c]));
          counts.added++;
          if (d.key !== old) {
            counts.renamed++;
            if (report.renamed.length < 200 && plan.key.kind === 'id') report.renamed.push({ table: t, from: old, to: d.key });
          }
        }
        for (const ref of plan.refs)
          if (d.row[ref.col] != null && ref.to.some((x) => order.get(x)! > order.get(t)!))
            late.push({ table: t, keyCol: keyCols[0]!, key: mapped[keyCols[0]!], ref, value: d.row[ref.col] });
        if (ctx.useLedger) ledgerPut.run(ctx.sourceLab, t, old, d.key);
      }
      continue;
    }

    for (const row of rows.iterate() as Iterable<Row>) {
      counts.incoming++;
      const mapped = mapRow(plan, row);
      const existing = byKey.get(...keyCols.map((c) => mapped[c])) as Row | undefined;
      if (existing && sameRow(plan, mapped, existing, cols)) {
        counts.present++;
        continue;
      }
      if (existing && plan.onConflict === 'alias-annotator') {
        // The same person's label of the same item, different in the two labs: both kept.
        const keptAs = `${String(mapped.annotator)}@${ctx.sourceName}`;
        const alias: Row = { ...mapped, annotator: keptAs };
        const prior = byKey.get(...keyCols.map((c) => alias[c])) as Row | undefined;
        if (prior && sameRow(plan, alias, prior, cols)) {
          counts.present++;
          continue;
        }
        if (target.prepare('INSERT OR IGNORE INTO annotators (name, created_at) VALUES (?, ?)').run(keptAs, new Date().toISOString()).changes)
          report.tables.annotators!.added++;
        alias.write_seq = ++writeSeq;
        if (prior) target.prepare('DELETE FROM labels WHERE queue_id = ? AND pos = ? AND annotator = ?').run(alias.queue_id, alias.pos, keptAs);
        insert.run(...insertCols.map((c) => alias[c]));
        counts.added++;
        counts.conflicts++;
        report.disagreements.push({
          queueId: String(mapped.queue_id),
          pos: Number(mapped.pos),
          annotator: String(mapped.annotator),
          keptAs,
          here: (existing.value_json as string | null) ?? null,
          theirs: (mapped.value_json as string | null) ?? null,
        });
        continue;
      }
      if (existing) {
        counts.conflicts++;
        report.conflicts.push({ table: t, key: keyCols.map((c) => String(mapped[c])).join('/') });
        continue;
      }
      if (t === 'labels') mapped.write_seq = ++writeSeq;
      insert.run(...insertCols.map((c) => mapped[c]));
      counts.added++;
    }
  }
  for (const l of late) {
    // Mapped from the other lab's value now that every table's renames are known.
    const m = mapValue(l.ref, l.value);
    if (m !== l.value) target.prepare(`UPDATE ${l.table} SET "${l.ref.col}" = ? WHERE "${l.keyCol}" = ?`).run(m, l.key);
  }
}

/** What came in, table by table, for people (the CLI's text output). */
export function mergeReportText(r: MergeReport): string {
  const lines = [
    `${r.dryRun ? 'dry run: would merge' : 'merged'} ${r.file} (lab ${r.sourceLab}, schema ${r.sourceVersion}${r.sourceVersion < LATEST_VERSION ? `, migrated to ${LATEST_VERSION} in a temporary copy` : ''}) in ${r.seconds.toFixed(2)} s`,
  ];
  for (const [t, c] of Object.entries(r.tables)) {
    if (!c.incoming) continue;
    lines.push(
      `  ${t}: ${c.incoming} in the other lab, ${c.added} ${r.dryRun ? 'would be ' : ''}added${c.renamed ? ` (${c.renamed} renamed)` : ''}, ${c.present} already here${c.conflicts ? `, ${c.conflicts} conflicting` : ''}`,
    );
  }
  if (r.renamed.length) lines.push(`  renamed: ${r.renamed.map((x) => `${x.table} ${x.from} → ${x.to}`).join(', ')}`);
  for (const d of r.disagreements)
    lines.push(`  label disagreement: ${d.annotator} on ${d.queueId}#${d.pos}: here ${d.here ?? 'skip'}, theirs ${d.theirs ?? 'skip'} (kept as ${d.keptAs})`);
  for (const c of r.conflicts) lines.push(`  conflict: ${c.table} ${c.key} differs; this lab's kept`);
  return lines.join('\n') + '\n';
}
