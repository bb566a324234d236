/**
 * The RunStore on SQLite (better-sqlite3): one file per lab, WAL, foreign keys on, schema from
 * `migrations.ts`. Reward terms are stored one column (episodes) or one row (turns) per term so
 * that an analyst can query them with plain SQL.
 */
import { faultPoint } from './fault-injection';
import { accessSync, constants as fsConstants, mkdirSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import type { Database as Db, Statement } from 'better-sqlite3';
import type { DomainTool } from '../../core/domain/types';
import type { JudgeVerdict } from '../../core/judge/types';
import type { EpisodeQuery, EpisodeRecord, EpisodeSummary, MatchRecord, RunStore, ScenarioResult, TurnRecord } from '../../core/store/port';
import { checkMatchBatch, checkPage } from '../../core/store/validate';
import { CA_TERMS, DA_TERMS } from '../../core/rewards/terms';
import type { CaTerms, DaTerms } from '../../core/rewards/terms';
import type { AdversityFiring, ToolResult } from '../../core/world/transcript';
import type { EpisodeRow, MatchRow, MatchScenarioRow, TurnRewardRow, TurnRow } from './rows';
import { LATEST_VERSION, applyMigrations, newerSchemaError, userVersion } from './migrations';
import { labScenarios, validatorFailureBits } from './episode-validation';

/** How long a write waits for another connection's lock before failing with SQLITE_BUSY: a study's workers share one lab, and on a loaded machine a writer can hold it for seconds. */
const BUSY_TIMEOUT_MS = 30_000;

export interface SqliteRunStore extends RunStore {
  /** The open connection, for the other stores of the lab (runs, checkpoints, …) to share. */
  readonly db: Db;
  readonly path: string;
}

/** A write to a lab file opened read-only (its message names the file). */
export class ReadOnlyLabError extends Error {
  override name = 'ReadOnlyLabError';
}

/**
 * Is the lab file read-only: no write permission bit at all (so even root, who may write anyway,
 * treats it as read-only), or not writable by this process?
 */
function readOnlyFile(path: string): boolean {
  const st = statSync(path, { throwIfNoEntry: false });
  if (!st) return false;
  if ((st.mode & 0o222) === 0) return true;
  try {
    accessSync(path, fsConstants.W_OK);
    return false;
  } catch {
    return true;
  }
}

/** What SQLite says when a read-only connection is asked to write, anywhere in an error's causes. */
export function isReadOnlyWrite(err: unknown): boolean {
  for (let e = err; e instanceof Error; e = e.cause) {
    if (e instanceof ReadOnlyLabError || (e as { code?: unknown }).code === 'SQLITE_READONLY' || /readonly database/.test(e.message)) return true;
  }
  return false;
}

/**
 * Open (or create, with its parent folders) the lab database at `path` and migrate it to the
 * latest schema. `:memory:` gives a private in-memory database. A lab file that is read-only is
 * opened read-only (better-sqlite3 `readonly`): reads work, and a write fails with a message that
 * names the file (isReadOnlyWrite; the CLI says so in one line). An empty file is refused: it is
 * not a lab, and taking it for a new one would hide a wrong path or a truncated file.
 */
export function openSqliteStore(path: string): SqliteRunStore {
  const inMemory = path === ':memory:' || path === '';
  const st = inMemory ? undefined : statSync(path, { throwIfNoEntry: false });
  if (st?.isFile() && st.size === 0)
    throw new Error(`${path} is an empty file, not a lab; give the path of a lab, or a path where none exists yet for a new one (the file was left untouched)`);
  const readonly = !inMemory && readOnlyFile(path);
  if (!inMemory && !readonly) mkdirSync(dirname(path), { recursive: true });
  let db: Db;
  try {
    db = new Database(path, { timeout: BUSY_TIMEOUT_MS, readonly, fileMustExist: readonly });
  } catch (err) {
    throw new Error(`cannot open lab database ${path}: ${messageOf(err)}`, { cause: err });
  }
  try {
    // Read the version before anything writes: a newer file must be left exactly as it is
    // (switching to WAL alone would rewrite its header).
    let version: number;
    try {
      version = userVersion(db);
    } catch (err) {
      if (codeOf(err) === 'SQLITE_NOTADB') {
        throw new Error(`${path} is not a SQLite database (${messageOf(err)}); is --db pointing at the right file?`, {
          cause: err,
        });
      }
      throw new Error(`cannot read lab database ${path}: ${messageOf(err)}`, { cause: err });
    }
    if (version > LATEST_VERSION) throw newerSchemaError(path, version);
    if (readonly) {
      if (version < LATEST_VERSION)
        throw new ReadOnlyLabError(
          `${path} is read-only, and its schema (version ${version}) needs upgrading to ${LATEST_VERSION} before this Sparring can read it; make the file writable once (the file was left untouched)`,
        );
      db.pragma('foreign_keys = ON');
      return createSqliteStore(db, path);
    }
    db.pragma('journal_mode = WAL');
    db.pragma('foreign_keys = ON');
    applyMigrations(db);
  } catch (err) {
    db.close();
    throw err;
  }
  return createSqliteStore(db, path);
}

const DA_COLS = DA_TERMS.map((t) => `da_${t}`);
const CA_COLS = CA_TERMS.map((t) => `ca_${t}`);

const EPISODE_COLS = [
  'id',
  'match_id',
  'idx',
  'scenario_id',
  'fraud_reference',
  'seed',
  'intent',
  'expected_tool',
  'routed_tool',
  'winner',
  'end_reason',
  'r_da',
  'r_ca',
  ...DA_COLS,
  ...CA_COLS,
  'judge_score',
  'judge_resolved',
  'judge_tier',
  'judge_hallucination',
  'judge_rationale',
  'judge_hallucinations_json',
  'adversities_json',
  'validator_failed',
  'customer',
];

/** The query behind listEpisodes / countEpisodes, in match order (as listMatches) then index. */
function episodeSql(q: Omit<EpisodeQuery, 'offset' | 'limit'>, what: 'rows' | 'count'): string {
  const where: string[] = [];
  if (q.matchId !== undefined) where.push('e.match_id = @matchId');
  if (q.scenarioId !== undefined) where.push('e.scenario_id = @scenarioId');
  if (q.winner !== undefined) where.push('e.winner = @winner');
  const filter = where.length ? `WHERE ${where.join(' AND ')}` : '';
  if (what === 'count') return `SELECT count(*) FROM episodes e ${filter}`;
  // CROSS JOIN fixes the loop order: walk matches by the (created_at, seq) index, then each
  // match's episodes by an (…, match_id, idx) index, so a page never sorts the whole table.
  return `SELECT e.* FROM matches m CROSS JOIN episodes e ON e.match_id = m.id ${filter}
          ORDER BY m.created_at, m.seq, e.idx LIMIT @limit OFFSET @offset`;
}

function createSqliteStore(db: Db, path: string): SqliteRunStore {
  const insertMatch = db.prepare(`
    INSERT INTO matches (id, created_at, seed, da_spec, ca_spec, da_checkpoint_id, da_checkpoint_name,
                         ca_checkpoint_id, ca_checkpoint_name, scenario_set, episodes_per_scenario, w_da, fraud_rate, config_json)
    VALUES (@id, @createdAt, @seed, @daSpec, @caSpec, @daCheckpointId, @daCheckpointName,
            @caCheckpointId, @caCheckpointName, @scenarioSet, @episodesPerScenario, @wDa, @fraudRate, @configJson)`);
  const insertScenario = db.prepare(`
    INSERT INTO match_scenarios (match_id, pos, scenario_id, fraud_reference, episodes, da_wins, da_win_rate)
    VALUES (?, ?, ?, ?, ?, ?, ?)`);
  const insertEpisode = db.prepare(`INSERT INTO episodes (${EPISODE_COLS.join(', ')}) VALUES (${EPISODE_COLS.map(() => '?').join(', ')})`);
  const insertTurn = db.prepare(`
    INSERT INTO turns (episode_id, idx, role, text, action_type, tool, tool_args_json, tool_result_json, parse_error)
    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`);
  const insertReward = db.prepare('INSERT INTO turn_rewards (episode_id, turn_idx, term, value) VALUES (?, ?, ?, ?)');

  const selectMatch = db.prepare<[string], MatchRow>('SELECT * FROM matches WHERE id = ?');
  const selectMatches = db.prepare<[], MatchRow>('SELECT * FROM matches ORDER BY created_at, seq');
  const selectScenarios = db.prepare<[string], MatchScenarioRow>('SELECT * FROM match_scenarios WHERE match_id = ? ORDER BY pos');
  const selectAllScenarios = db.prepare<[], MatchScenarioRow>('SELECT * FROM match_scenarios ORDER BY match_id, pos');
  const selectEpisode = db.prepare<[string], EpisodeRow>('SELECT * FROM episodes WHERE id = ?');
  const selectTurns = db.prepare<[string], TurnRow>('SELECT * FROM turns WHERE episode_id = ? ORDER BY idx');
  const selectRewards = db.prepare<[string], Pick<TurnRewardRow, 'turn_idx' | 'term' | 'value'>>(
    'SELECT turn_idx, term, value FROM turn_rewards WHERE episode_id = ?',
  );

  /** listEpisodes / countEpisodes statements, one per combination of filters. */
  const queries = new Map<string, Statement>();
  function episodeQuery(q: Omit<EpisodeQuery, 'offset' | 'limit'>, what: 'rows' | 'count'): Statement {
    const key = `${what}:${q.matchId !== undefined}:${q.scenarioId !== undefined}:${q.winner !== undefined}`;
    let stmt = queries.get(key);
    if (!stmt) queries.set(key, (stmt = db.prepare(episodeSql(q, what))));
    return stmt;
  }
  function filterParams(q: EpisodeQuery): Record<string, string> {
    const p: Record<string, string> = {};
    if (q.matchId !== undefined) p.matchId = q.matchId;
    if (q.scenarioId !== undefined) p.scenarioId = q.scenarioId;
    if (q.winner !== undefined) p.winner = q.winner;
    return p;
  }

  /** What was being written when a statement failed, for the error message. */
  let writing = '';
  const writeMatch = db.transaction((match: MatchRecord, episodes: readonly EpisodeRecord[], validatorFailed: readonly number[]) => {
    writing = '';
    if (selectMatch.get(match.id)) throw new Error(`match "${match.id}" already exists`);
    writing = 'the match';
    insertMatch.run(matchRow(match));
    writeScenarios(match);
    for (const [i, e] of episodes.entries()) writeEpisode(e, validatorFailed[i]!);
    faultPoint('episode');
  });

  /** A match's row of `matches`, as insertMatch binds it. */
  function matchRow(match: MatchRecord) {
    return {
      id: match.id,
      createdAt: match.createdAt,
      seed: match.seed,
      daSpec: match.daSpec,
      caSpec: match.caSpec,
      daCheckpointId: match.daCheckpoint?.id ?? null,
      daCheckpointName: match.daCheckpoint?.name ?? null,
      caCheckpointId: match.caCheckpoint?.id ?? null,
      caCheckpointName: match.caCheckpoint?.name ?? null,
      scenarioSet: match.scenarioSet,
      episodesPerScenario: match.episodesPerScenario,
      wDa: match.wDa ?? null,
      fraudRate: match.fraudRate ?? null,
      configJson: match.configJson,
    };
  }

  /** A match's per-scenario rows (inside the caller's transaction). */
  function writeScenarios(match: MatchRecord): void {
    match.perScenario.forEach((s, pos) => {
      writing = `perScenario "${s.scenarioId}"`;
      insertScenario.run(match.id, pos, s.scenarioId, bit(s.fraudReference), s.episodes, s.daWins, s.daWinRate);
    });
  }

  /** One episode's row, turns and turn rewards (inside the caller's transaction). */
  function writeEpisode(e: EpisodeRecord, validatorFailed: number): void {
    writing = `episode "${e.id}"`;
    insertEpisode.run(episodeRow(e, validatorFailed));
    for (const t of e.turns) {
      writing = `episode "${e.id}" turn ${t.index}`;
      insertTurn.run(e.id, t.index, t.role, t.text, t.actionType ?? null, t.tool ?? null, json(t.toolArgs), json(t.toolResult), t.parseError ?? null);
      for (const [term, value] of Object.entries(t.rewards)) {
        if (value !== undefined) insertReward.run(e.id, t.index, term, value);
      }
    }
  }

  const updateMatchSummary = db.prepare('UPDATE matches SET episodes_per_scenario = @episodesPerScenario, w_da = @wDa, fraud_rate = @fraudRate WHERE id = @id');
  const deleteScenarios = db.prepare('DELETE FROM match_scenarios WHERE match_id = ?');
  const selectEpisodeId = db.prepare('SELECT 1 FROM episodes WHERE id = ?');
  const appendOne = db.transaction((match: MatchRecord, e: EpisodeRecord, validatorFailed: number) => {
    writing = '';
    if (selectEpisodeId.get(e.id)) throw new Error(`episode "${e.id}" already exists`);
    if (selectMatch.get(match.id)) {
      writing = 'the match summary';
      updateMatchSummary.run({ id: match.id, episodesPerScenario: match.episodesPerScenario, wDa: match.wDa ?? null, fraudRate: match.fraudRate ?? null });
      deleteScenarios.run(match.id);
    } else {
      writing = 'the match';
      insertMatch.run(matchRow(match));
    }
    writeScenarios(match);
    writeEpisode(e, validatorFailed);
    faultPoint('episode');
  });

  function scenarioResult(r: MatchScenarioRow): ScenarioResult {
    return { scenarioId: r.scenario_id, fraudReference: r.fraud_reference === 1, episodes: r.episodes, daWins: r.da_wins, daWinRate: r.da_win_rate };
  }

  return {
    db,
    path,

    saveMatch(match, episodes) {
      checkMatchBatch(match, episodes);
      // The MADS validators' failures go in with each episode (the transcript list filters by
      // them); computed before the write lock is taken.
      const scenarios = labScenarios(db);
      const validatorFailed = episodes.map((e) => validatorFailureBits(e, scenarios.get(e.scenarioId)));
      try {
        // IMMEDIATE: take the write lock up front, so another connection's write makes this one
        // wait (busy_timeout) instead of failing after it has read.
        writeMatch.immediate(match, episodes, validatorFailed);
      } catch (err) {
        const at = writing ? ` (writing ${writing})` : '';
        throw new Error(`saveMatch("${match.id}"): ${messageOf(err)}${at}; nothing was written`, { cause: err });
      }
    },

    appendEpisode(match, episode) {
      checkMatchBatch(match, [episode]);
      const validatorFailed = validatorFailureBits(episode, labScenarios(db).get(episode.scenarioId));
      try {
        appendOne.immediate(match, episode, validatorFailed);
      } catch (err) {
        const at = writing ? ` (writing ${writing})` : '';
        throw new Error(`appendEpisode("${match.id}", "${episode.id}"): ${messageOf(err)}${at}; nothing was written`, { cause: err });
      }
    },

    getMatch(id) {
      const row = selectMatch.get(id);
      return row && matchRecord(row, selectScenarios.all(id).map(scenarioResult));
    },

    listMatches() {
      const byMatch = new Map<string, ScenarioResult[]>();
      for (const r of selectAllScenarios.all()) {
        const list = byMatch.get(r.match_id) ?? [];
        list.push(scenarioResult(r));
        byMatch.set(r.match_id, list);
      }
      return selectMatches.all().map((r) => matchRecord(r, byMatch.get(r.id) ?? []));
    },

    listEpisodes(q = {}) {
      const { offset, limit } = checkPage(q);
      const rows = episodeQuery(q, 'rows').all({ ...filterParams(q), offset, limit }) as EpisodeRow[];
      return rows.map(episodeSummary);
    },

    countEpisodes(q = {}) {
      return episodeQuery(q, 'count').pluck().get(filterParams(q)) as number;
    },

    getEpisode(id) {
      const row = selectEpisode.get(id);
      if (!row) return undefined;
      const rewards = new Map<number, Record<string, number>>();
      for (const r of selectRewards.all(id)) {
        const terms = rewards.get(r.turn_idx) ?? {};
        terms[r.term] = r.value;
        rewards.set(r.turn_idx, terms);
      }
      const turns = selectTurns.all(id).map((t): TurnRecord => ({
        index: t.idx,
        role: t.role,
        text: t.text,
        actionType: t.action_type,
        tool: t.tool,
        toolArgs: parseJson(t.tool_args_json) as Record<string, unknown> | null,
        toolResult: parseJson(t.tool_result_json) as ToolResult | null,
        parseError: t.parse_error,
        rewards: rewards.get(t.idx) ?? {},
      }));
      return { ...episodeSummary(row), turns };
    },

    close() {
      if (db.open) db.close();
    },
  };
}

function episodeRow(e: EpisodeRecord, validatorFailed: number): unknown[] {
  return [
    e.id,
    e.matchId,
    e.index,
    e.scenarioId,
    bit(e.fraudReference),
    e.seed,
    e.intent,
    e.expectedTool,
    e.routedTool ?? null,
    e.winner,
    e.endReason,
    e.rDa,
    e.rCa,
    ...DA_TERMS.map((t) => e.daTerms[t]),
    ...CA_TERMS.map((t) => e.caTerms[t]),
    e.judge.score,
    bit(e.judge.resolved),
    e.judge.tier,
    bit(e.judge.hallucination),
    e.judge.rationale,
    JSON.stringify(e.judge.hallucinations),
    JSON.stringify(e.adversities ?? []),
    validatorFailed,
    e.customer ?? null,
  ];
}

/** One episodes-table row as the summary the store port returns (also used by the engine's paged query). */
export function episodeSummary(r: EpisodeRow): EpisodeSummary {
  const daTerms = Object.fromEntries(DA_TERMS.map((t) => [t, r[`da_${t}`]])) as DaTerms;
  const caTerms = Object.fromEntries(CA_TERMS.map((t) => [t, r[`ca_${t}`]])) as CaTerms;
  const judge: JudgeVerdict = {
    score: r.judge_score,
    resolved: r.judge_resolved === 1,
    tier: r.judge_tier,
    hallucination: r.judge_hallucination === 1,
    hallucinations: JSON.parse(r.judge_hallucinations_json) as JudgeVerdict['hallucinations'],
    rationale: r.judge_rationale,
  };
  const adversities = JSON.parse(r.adversities_json) as AdversityFiring[];
  return {
    ...(adversities.length ? { adversities } : {}),
    ...(r.customer ? { customer: r.customer } : {}),
    id: r.id,
    matchId: r.match_id,
    index: r.idx,
    scenarioId: r.scenario_id,
    fraudReference: r.fraud_reference === 1,
    seed: r.seed,
    intent: r.intent,
    expectedTool: r.expected_tool as DomainTool,
    routedTool: r.routed_tool,
    winner: r.winner,
    endReason: r.end_reason,
    rDa: r.r_da,
    rCa: r.r_ca,
    daTerms,
    caTerms,
    judge,
  };
}

function matchRecord(r: MatchRow, perScenario: ScenarioResult[]): MatchRecord {
  return {
    id: r.id,
    createdAt: r.created_at,
    seed: r.seed,
    daSpec: r.da_spec,
    caSpec: r.ca_spec,
    daCheckpoint: r.da_checkpoint_id === null ? null : { id: r.da_checkpoint_id, name: r.da_checkpoint_name ?? r.da_checkpoint_id },
    caCheckpoint: r.ca_checkpoint_id === null ? null : { id: r.ca_checkpoint_id, name: r.ca_checkpoint_name ?? r.ca_checkpoint_id },
    scenarioSet: r.scenario_set,
    episodesPerScenario: r.episodes_per_scenario,
    wDa: r.w_da,
    fraudRate: r.fraud_rate,
    perScenario,
    configJson: r.config_json,
  };
}

function bit(b: boolean): 0 | 1 {
  return b ? 1 : 0;
}

function json(v: unknown): string | null {
  return v === null || v === undefined ? null : JSON.stringify(v);
}

function parseJson(s: unknown): unknown {
  return s === null ? null : JSON.parse(s as string);
}

function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

function codeOf(err: unknown): unknown {
  return err instanceof Error && 'code' in err ? err.code : undefined;
}
