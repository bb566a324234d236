import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import type { Database as Db } from 'better-sqlite3';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { CA_TERMS, DA_TERMS } from '../../core/rewards/terms';
import type { EpisodeRecord } from '../../core/store/port';
import { fakeMatch, runStoreContract } from '../../test/support/store-contract';
import { LATEST_VERSION, MIGRATIONS, applyMigrations, userVersion } from './migrations';
import { openSqliteStore } from './sqlite-store';

const root = mkdtempSync(join(tmpdir(), 'sparring-store-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
let files = 0;
const freshPath = () => join(root, `lab-${++files}`, 'lab.sqlite');

runStoreContract('sqlite', () => openSqliteStore(freshPath()));

function tables(db: Db): string[] {
  return db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").pluck().all() as string[];
}
function columns(db: Db, table: string): string[] {
  return db.prepare(`SELECT name FROM pragma_table_info('${table}')`).pluck().all() as string[];
}
function schema(db: Db): unknown[] {
  return db.prepare('SELECT type, name, sql FROM sqlite_master ORDER BY name').all();
}
function emptyDb(): Db {
  const db = new Database(':memory:');
  db.pragma('foreign_keys = ON');
  return db;
}

describe('openSqliteStore', () => {
  it('turns on WAL, foreign keys and a busy timeout, and creates parent folders', () => {
    const path = join(root, 'deep', 'er', 'lab.sqlite');
    const store = openSqliteStore(path);
    expect(existsSync(path)).toBe(true);
    expect(store.db.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(store.db.pragma('foreign_keys', { simple: true })).toBe(1);
    expect(store.db.pragma('busy_timeout', { simple: true })).toBeGreaterThan(0);
    expect(userVersion(store.db)).toBe(LATEST_VERSION);
    store.close();
  });

  it('keeps data across close and reopen', () => {
    const path = freshPath();
    const { match, episodes } = fakeMatch('m1', { episodes: 4 });
    const first = openSqliteStore(path);
    first.saveMatch(match, episodes);
    first.close();
    const second = openSqliteStore(path);
    expect(second.getMatch('m1')).toStrictEqual(match);
    expect(second.getEpisode('m1:3')).toStrictEqual(episodes[3]);
    expect(second.countEpisodes()).toBe(4);
    second.close();
  });

  it('lets two connections to one file write in turn and read each other', () => {
    const path = freshPath();
    const a = openSqliteStore(path);
    const b = openSqliteStore(path);
    const m1 = fakeMatch('m1', { createdAt: '2025-03-01T00:00:00.000Z' });
    const m2 = fakeMatch('m2', { createdAt: '2025-03-02T00:00:00.000Z' });
    a.saveMatch(m1.match, m1.episodes);
    b.saveMatch(m2.match, m2.episodes);
    expect(a.listMatches().map((m) => m.id)).toEqual(['m1', 'm2']);
    expect(b.getEpisode('m1:0')).toStrictEqual(m1.episodes[0]);
    a.close();
    b.close();
  });

  it('refuses a database from a newer Sparring and leaves the file untouched', () => {
    const path = freshPath();
    const store = openSqliteStore(path);
    store.saveMatch(fakeMatch('m1').match, fakeMatch('m1').episodes);
    store.db.pragma(`user_version = ${LATEST_VERSION + 1}`);
    store.db.pragma('journal_mode = DELETE'); // a file as a rollback-journal Sparring would leave it
    store.close();
    const bytes = readFileSync(path);

    expect(() => openSqliteStore(path)).toThrow(new RegExp(`schema version ${LATEST_VERSION + 1}.*only knows up to ${LATEST_VERSION}`));
    expect(readFileSync(path).equals(bytes)).toBe(true);
    expect(existsSync(`${path}-wal`)).toBe(false);
  });

  it('names the path of a file that is not a SQLite database, and leaves it alone', () => {
    const path = join(root, 'notes.sqlite');
    const text = 'these are my notes, not a database\n'.repeat(40);
    writeFileSync(path, text);
    expect(() => openSqliteStore(path)).toThrow(`${path} is not a SQLite database`);
    expect(readFileSync(path, 'utf8')).toBe(text);
  });
});

describe('saveMatch on SQLite', () => {
  let path: string;
  beforeEach(() => {
    path = freshPath();
  });

  function rowCounts(db: Db): Record<string, number> {
    const out: Record<string, number> = {};
    for (const t of tables(db)) out[t] = db.prepare(`SELECT count(*) FROM ${t}`).pluck().get() as number;
    return out;
  }

  it('rolls back a match that violates a constraint halfway through, keeping earlier matches', () => {
    const store = openSqliteStore(path);
    const m1 = fakeMatch('m1', { episodes: 3, createdAt: '2025-03-01T00:00:00.000Z' });
    const m2 = fakeMatch('m2', { episodes: 3, createdAt: '2025-03-02T00:00:00.000Z' });
    store.saveMatch(m1.match, m1.episodes);
    store.saveMatch(m2.match, m2.episodes);
    const counts = rowCounts(store.db);

    // The checks before writing cannot see this; the turns table's CHECK constraint fails after
    // the match, five episodes and most turns of the sixth have been inserted.
    const m3 = fakeMatch('m3', { episodes: 6, createdAt: '2025-03-03T00:00:00.000Z' });
    const last = m3.episodes[5]!;
    (last.turns[4] as { role: string }).role = 'narrator';
    expect(() => store.saveMatch(m3.match, m3.episodes)).toThrow(
      /saveMatch\("m3"\): CHECK constraint failed.*writing episode "m3:5" turn 4.*nothing was written/,
    );

    expect(rowCounts(store.db)).toStrictEqual(counts);
    expect(store.listMatches()).toStrictEqual([m1.match, m2.match]);
    expect(store.getEpisode('m2:2')).toStrictEqual(m2.episodes[2]);
    expect(store.getMatch('m3')).toBeUndefined();
    expect(store.countEpisodes()).toBe(6);

    // A judge tier out of range fails the episodes table's CHECK the same way.
    (m3.episodes[5] as EpisodeRecord).turns[4]!.role = 'customer';
    (m3.episodes[2]!.judge as { tier: number }).tier = 7;
    expect(() => store.saveMatch(m3.match, m3.episodes)).toThrow(/judge_tier/);
    expect(rowCounts(store.db)).toStrictEqual(counts);
    store.close();
  });

  it('stores every reward term where SQL can reach it', () => {
    const store = openSqliteStore(path);
    const { match, episodes } = fakeMatch('m1', { episodes: 5 });
    store.saveMatch(match, episodes);
    const sum = (f: (e: EpisodeRecord) => number) => episodes.reduce((a, e) => a + f(e), 0);
    const got = store.db.prepare('SELECT sum(da_tool) AS tool, sum(ca_inv_da) AS invDa FROM episodes WHERE match_id = ?').get('m1');
    expect(got).toEqual({ tool: sum((e) => e.daTerms.tool), invDa: sum((e) => e.caTerms.inv_da) });
    const formatRewards = store.db
      .prepare(
        `SELECT count(*) FROM turn_rewards r JOIN turns t ON t.episode_id = r.episode_id AND t.idx = r.turn_idx
         WHERE r.term = 'format' AND t.role = 'agent'`,
      )
      .pluck()
      .get();
    const expected = episodes.flatMap((e) => e.turns).filter((t) => t.role === 'agent' && 'format' in t.rewards);
    expect(formatRewards).toBe(expected.length);
    store.close();
  });
});

describe('migrations', () => {
  it('are numbered 1, 2, 3, … in rising order, the latest last', () => {
    const versions = MIGRATIONS.map((m) => m.version);
    expect(versions).toEqual(versions.map((_, i) => i + 1));
    expect(LATEST_VERSION).toBe(versions.at(-1));
  });

  it('1 creates matches, episodes with a column per reward term, turns and turn rewards', () => {
    const db = emptyDb();
    expect(applyMigrations(db, 1)).toBe(1);
    expect(userVersion(db)).toBe(1);
    expect(tables(db)).toEqual(['episodes', 'match_scenarios', 'matches', 'turn_rewards', 'turns']);
    expect(columns(db, 'matches')).toEqual(
      expect.arrayContaining(['id', 'created_at', 'seed', 'da_spec', 'ca_spec', 'scenario_set', 'episodes_per_scenario', 'w_da', 'fraud_rate', 'config_json']),
    );
    expect(columns(db, 'match_scenarios')).toEqual(
      expect.arrayContaining(['match_id', 'pos', 'scenario_id', 'fraud_reference', 'episodes', 'da_wins', 'da_win_rate']),
    );
    expect(columns(db, 'episodes')).toEqual(
      expect.arrayContaining([
        ...DA_TERMS.filter((t) => t !== 'env_fallback').map((t) => `da_${t}`),
        ...CA_TERMS.map((t) => `ca_${t}`),
        'judge_score',
        'judge_resolved',
        'judge_tier',
        'judge_hallucination',
        'judge_rationale',
        'judge_hallucinations_json',
        'winner',
        'routed_tool',
      ]),
    );
    expect(columns(db, 'turns')).toEqual(['episode_id', 'idx', 'role', 'text', 'action_type', 'tool', 'tool_args_json', 'tool_result_json', 'parse_error']);
    expect(columns(db, 'turn_rewards')).toEqual(['episode_id', 'turn_idx', 'term', 'value']);
    const indexes = db.prepare("SELECT name FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL").pluck().all();
    expect(indexes).toEqual(expect.arrayContaining(['matches_by_created', 'episodes_by_scenario', 'episodes_by_winner']));

    const before = schema(db);
    expect(applyMigrations(db, 1)).toBe(1);
    expect(schema(db)).toStrictEqual(before);
    db.close();
  });

  it('2 adds experiments, runs, checkpoints, annotations, knob changes and experience notes', () => {
    const db = emptyDb();
    applyMigrations(db, 1);
    const v1 = tables(db);
    expect(applyMigrations(db, 2)).toBe(2);
    expect(userVersion(db)).toBe(2);
    expect(tables(db).filter((t) => !v1.includes(t))).toEqual(['annotations', 'checkpoints', 'experience_notes', 'experiments', 'knob_changes', 'runs']);
    expect(columns(db, 'checkpoints')).toEqual(expect.arrayContaining(['name', 'role', 'run_id', 'parent_id', 'generation', 'weights', 'optimiser']));
    expect(columns(db, 'runs')).toEqual(expect.arrayContaining(['experiment_id', 'status', 'snapshot_json']));

    // Weights and optimiser state round-trip as bytes, and lineage links must point somewhere.
    const weights = Buffer.from(new Float32Array([0.5, -1.25, 3]).buffer);
    const insert = db.prepare(
      `INSERT INTO checkpoints (id, name, role, created_at, parent_id, generation, source, model_json, weights, optimiser)
       VALUES (?, ?, 'DA', '2025-03-01T00:00:00.000Z', ?, ?, 'gym', '{}', ?, ?)`,
    );
    insert.run('c1', 'DA1', null, 1, weights, Buffer.alloc(8, 7));
    const row = db.prepare('SELECT weights, optimiser FROM checkpoints WHERE id = ?').get('c1') as Record<string, Buffer>;
    expect(row.weights!.equals(weights)).toBe(true);
    expect(row.optimiser!.equals(Buffer.alloc(8, 7))).toBe(true);
    expect(() => insert.run('c2', 'DA2', 'missing', 2, weights, null)).toThrow(/FOREIGN KEY/);

    const before = schema(db);
    expect(applyMigrations(db, 2)).toBe(2);
    expect(schema(db)).toStrictEqual(before);
    db.close();
  });

  it('3 adds imported corpora with line numbers, deleted with their import', () => {
    const db = emptyDb();
    applyMigrations(db, 2);
    const v2 = tables(db);
    expect(applyMigrations(db, 3)).toBe(3);
    expect(userVersion(db)).toBe(3);
    expect(tables(db).filter((t) => !v2.includes(t))).toEqual(['corpus_imports', 'corpus_utterances']);
    expect(columns(db, 'corpus_utterances')).toEqual(['import_id', 'line', 'intent', 'text']);
    db.pragma('foreign_keys = ON');
    db.prepare("INSERT INTO corpus_imports (id, source, file, imported_at, rows, problems) VALUES (1, 'banking77', 'a.csv', 'now', 1, 0)").run();
    db.prepare("INSERT INTO corpus_utterances VALUES (1, 2, 'card_arrival', 'where is my card')").run();
    expect(() => db.prepare("INSERT INTO corpus_utterances VALUES (1, 2, 'card_arrival', 'dup line')").run()).toThrow(/UNIQUE|PRIMARY/);
    expect(() => db.prepare("INSERT INTO corpus_utterances VALUES (9, 3, 'x', 'y')").run()).toThrow(/FOREIGN KEY/);
    db.prepare('DELETE FROM corpus_imports WHERE id = 1').run();
    expect(db.prepare('SELECT COUNT(*) FROM corpus_utterances').pluck().get()).toBe(0);
    const before = schema(db);
    expect(applyMigrations(db, 3)).toBe(3);
    expect(schema(db)).toStrictEqual(before);
    db.close();
  });

  it('4 records what each checkpoint was trained on, defaulting to nothing for older ones', () => {
    const db = emptyDb();
    applyMigrations(db, 3);
    const weights = Buffer.from(new Float32Array([1]).buffer);
    db.prepare(
      `INSERT INTO checkpoints (id, name, role, created_at, generation, source, model_json, weights)
       VALUES ('DA0', 'DA0', 'DA', '2025-03-01T00:00:00.000Z', 0, 'sft', '{}', ?)`,
    ).run(weights);
    expect(applyMigrations(db, 4)).toBe(4);
    expect(userVersion(db)).toBe(4);
    expect(columns(db, 'checkpoints')).toContain('training_data_json');
    expect(db.prepare("SELECT training_data_json FROM checkpoints WHERE name = 'DA0'").pluck().get()).toBe('[]');
    db.prepare(
      `INSERT INTO checkpoints (id, name, role, created_at, parent_id, generation, source, model_json, weights, training_data_json)
       VALUES ('DA1', 'DA1', 'DA', '2025-03-02T00:00:00.000Z', 'DA0', 1, 'gym', '{}', ?, '[{"kind":"match","id":"M1"}]')`,
    ).run(weights);
    // Lineage of data is queryable with SQLite's JSON functions.
    const trainedOnM1 = db.prepare("SELECT c.name FROM checkpoints c, json_each(c.training_data_json) d WHERE d.value ->> 'id' = 'M1'").pluck().all();
    expect(trainedOnM1).toEqual(['DA1']);
    const before = schema(db);
    expect(applyMigrations(db, 4)).toBe(4);
    expect(schema(db)).toStrictEqual(before);
    db.close();
  });

  it('5 adds run metric series, deleted with their run, and the preset of a run', () => {
    const db = emptyDb();
    applyMigrations(db, 4);
    const v4 = tables(db);
    expect(applyMigrations(db, 5)).toBe(5);
    expect(tables(db).filter((t) => !v4.includes(t))).toEqual(['run_metrics']);
    expect(columns(db, 'run_metrics')).toEqual(['run_id', 'phase', 'key', 'step', 'value']);
    expect(columns(db, 'runs')).toContain('preset');
    db.pragma('foreign_keys = ON');
    db.prepare("INSERT INTO runs (id, created_at, updated_at, status, seed, config_json) VALUES ('R1', 'now', 'now', 'running', 1, '{}')").run();
    db.prepare("INSERT INTO run_metrics VALUES ('R1', 'gym:DA1', 'gym/kl', 3, 0.01)").run();
    expect(db.prepare("SELECT preset FROM runs WHERE id = 'R1'").pluck().get()).toBe('');
    expect(() => db.prepare("INSERT INTO run_metrics VALUES ('R9', 'x', 'gym/kl', 1, 0)").run()).toThrow(/FOREIGN KEY/);
    db.prepare("DELETE FROM runs WHERE id = 'R1'").run();
    expect(db.prepare('SELECT COUNT(*) FROM run_metrics').pluck().get()).toBe(0);
    db.close();
  });

  it('8 adds the adversities that fired and the fallback term, empty and zero for older episodes', () => {
    const db = emptyDb();
    applyMigrations(db, 7);
    expect(columns(db, 'episodes')).not.toContain('adversities_json');
    expect(applyMigrations(db, 8)).toBe(8);
    expect(columns(db, 'episodes')).toEqual(expect.arrayContaining(['adversities_json', 'da_env_fallback']));
    const info = db
      .prepare("SELECT name, dflt_value, \"notnull\" FROM pragma_table_info('episodes') WHERE name IN ('adversities_json', 'da_env_fallback') ORDER BY name")
      .all();
    expect(info).toEqual([
      { name: 'adversities_json', dflt_value: "'[]'", notnull: 1 },
      { name: 'da_env_fallback', dflt_value: '0', notnull: 1 },
    ]);
    const before = schema(db);
    expect(applyMigrations(db, 8)).toBe(8);
    expect(schema(db)).toStrictEqual(before);
    db.close();
  });

  it('9 adds custom scenarios and a validator-failure column, NULL (to compute) for older episodes', () => {
    const db = emptyDb();
    applyMigrations(db, 8);
    db.prepare(
      "INSERT INTO matches (id, created_at, seed, da_spec, ca_spec, scenario_set, episodes_per_scenario, config_json) VALUES ('m', 't', 1, 'a', 'b', 'arena', 1, '{}')",
    ).run();
    const cols = db.prepare('SELECT name FROM pragma_table_info(\'episodes\') WHERE "notnull" = 1 AND dflt_value IS NULL AND pk = 0').pluck().all() as string[];
    db.prepare(
      `INSERT INTO episodes (${cols.join(', ')}) VALUES (${cols.map((c) => (({ match_id: "'m'", id: "'m:0'", winner: "'DA'", end_reason: "'end_call'", judge_tier: '1' }) as Record<string, string>)[c] ?? '0').join(', ')})`,
    ).run();
    expect(tables(db)).not.toContain('custom_scenarios');
    expect(applyMigrations(db, 9)).toBe(9);
    expect(columns(db, 'custom_scenarios')).toEqual(['id', 'scenario_json', 'created_at', 'updated_at']);
    expect(db.prepare('SELECT validator_failed FROM episodes').pluck().all()).toEqual([null]);
    expect(db.prepare("SELECT name FROM sqlite_master WHERE type = 'index' AND name = 'episodes_unvalidated'").pluck().get()).toBe('episodes_unvalidated');
    const before = schema(db);
    expect(applyMigrations(db, 9)).toBe(9);
    expect(schema(db)).toStrictEqual(before);
    db.close();
  });

  it('11 records the checkpoint a SPEC resolved to; older matches that named a checkpoint get it, latest and scripted stay NULL', () => {
    const db = emptyDb();
    applyMigrations(db, 10);
    const weights = Buffer.from([1, 2, 3]);
    const checkpoint = db.prepare(
      `INSERT INTO checkpoints (id, name, role, created_at, generation, source, model_json, weights) VALUES (?, ?, ?, 't', 0, 'sft', '{}', ?)`,
    );
    checkpoint.run('DA0', 'DA0', 'DA', weights);
    checkpoint.run('CA0', 'CA0', 'CA', weights);
    const match = db.prepare(
      `INSERT INTO matches (id, created_at, seed, da_spec, ca_spec, scenario_set, episodes_per_scenario, config_json) VALUES (?, 't', 1, ?, ?, 'arena', 1, '{}')`,
    );
    match.run('R1-M1', 'DA0', 'CA0');
    match.run('M1', 'latest', 'scripted');
    // A spec that names a checkpoint of the other role is not that checkpoint.
    match.run('M2', 'CA0', 'DA0');
    db.prepare(
      `INSERT INTO play_sessions (id, created_at, updated_at, player, seat, opponent, scenario_id, seed, config_json) VALUES ('P-1', 't', 't', 'ana', 'customer', 'latest', 's', 1, '{}')`,
    ).run();
    expect(applyMigrations(db, 11)).toBe(11);
    expect(db.prepare('SELECT id, da_checkpoint_id, da_checkpoint_name, ca_checkpoint_id, ca_checkpoint_name FROM matches ORDER BY id').all()).toEqual([
      { id: 'M1', da_checkpoint_id: null, da_checkpoint_name: null, ca_checkpoint_id: null, ca_checkpoint_name: null },
      { id: 'M2', da_checkpoint_id: null, da_checkpoint_name: null, ca_checkpoint_id: null, ca_checkpoint_name: null },
      { id: 'R1-M1', da_checkpoint_id: 'DA0', da_checkpoint_name: 'DA0', ca_checkpoint_id: 'CA0', ca_checkpoint_name: 'CA0' },
    ]);
    expect(db.prepare("SELECT opponent_checkpoint_id, opponent_checkpoint_name FROM play_sessions WHERE id = 'P-1'").get()).toEqual({
      opponent_checkpoint_id: null,
      opponent_checkpoint_name: null,
    });
    const before = schema(db);
    expect(applyMigrations(db, 11)).toBe(11);
    expect(schema(db)).toStrictEqual(before);
    db.close();
  });

  it('14 records the device of runs and the provider of checkpoints, NULL for older ones', () => {
    const db = emptyDb();
    applyMigrations(db, 13);
    db.prepare("INSERT INTO runs (id, created_at, updated_at, status, seed, config_json) VALUES ('R1', 'now', 'now', 'finished', 1, '{}')").run();
    expect(columns(db, 'runs')).not.toContain('device_json');
    expect(applyMigrations(db, 14)).toBe(14);
    expect(columns(db, 'runs')).toContain('device_json');
    expect(columns(db, 'checkpoints')).toContain('provider');
    expect(db.prepare("SELECT device_json FROM runs WHERE id = 'R1'").pluck().get()).toBeNull();
    const before = schema(db);
    expect(applyMigrations(db, 14)).toBe(14);
    expect(schema(db)).toStrictEqual(before);
    db.close();
  });

  it('15 records the customer arm of episodes (NULL for older ones) and adds the EAU proposals table', () => {
    const path = freshPath();
    const store = openSqliteStore(path);
    const { match, episodes } = fakeMatch('m1');
    store.saveMatch(match, [{ ...episodes[0]!, customer: 'symbolic' }, ...episodes.slice(1)]);
    expect(store.getEpisode('m1:0')?.customer).toBe('symbolic');
    expect(store.getEpisode('m1:1')).not.toHaveProperty('customer');
    store.close();
    const db = emptyDb();
    applyMigrations(db, 14);
    expect(columns(db, 'episodes')).not.toContain('customer');
    expect(applyMigrations(db, 15)).toBe(15);
    expect(columns(db, 'episodes')).toContain('customer');
    expect(tables(db)).toContain('eau_proposals');
    const before = schema(db);
    expect(applyMigrations(db, 15)).toBe(15);
    expect(schema(db)).toStrictEqual(before);
  });

  it('17 adds gym jobs: one per gym of a run, a known status, gone with their run', () => {
    const db = emptyDb();
    applyMigrations(db, 16);
    expect(tables(db)).not.toContain('gym_jobs');
    expect(applyMigrations(db, 17)).toBe(17);
    db.prepare("INSERT INTO runs (id, created_at, updated_at, status, seed, config_json) VALUES ('R1', 'now', 'now', 'running', 1, '{}')").run();
    const job = db.prepare(`INSERT INTO gym_jobs (id, run_id, gym_index, role, from_checkpoint, opponent, match_id, export_path, status, created_at)
      VALUES (?, 'R1', ?, 'DA', 'DA0', 'CA0', 'R1-M1', '/x', ?, 'now')`);
    job.run('J1', 1, 'waiting');
    expect(() => job.run('J2', 1, 'waiting')).toThrow(/UNIQUE/);
    expect(() => job.run('J3', 2, 'lost')).toThrow(/CHECK/);
    const before = schema(db);
    expect(applyMigrations(db, 17)).toBe(17);
    expect(schema(db)).toStrictEqual(before);
    db.prepare("DELETE FROM runs WHERE id = 'R1'").run();
    expect(db.prepare('SELECT COUNT(*) FROM gym_jobs').pluck().get()).toBe(0);
  });

  it('18 adds panel_evaluations, one result per (DA, counterpart, protocol)', () => {
    const db = emptyDb();
    applyMigrations(db, 17);
    expect(tables(db)).not.toContain('panel_evaluations');
    expect(applyMigrations(db, 18)).toBe(18);
    expect(columns(db, 'panel_evaluations')).toEqual(['da', 'counterpart', 'protocol', 'role', 'kind', 'label', 'created_at', 'seconds', 'result_json']);
    const put = db.prepare(
      "INSERT INTO panel_evaluations (da, counterpart, protocol, role, kind, label, created_at, result_json) VALUES ('DA2', 'scripted', 'p', ?, 'scripted', 'scripted', 't', '{}')",
    );
    put.run('panel');
    expect(() => put.run('panel')).toThrow(/UNIQUE|PRIMARY KEY/);
    expect(() =>
      db
        .prepare(
          "INSERT INTO panel_evaluations (da, counterpart, protocol, role, kind, label, created_at, result_json) VALUES ('DA2', 'x', 'p', 'other', 'k', 'l', 't', '{}')",
        )
        .run(),
    ).toThrow(/CHECK/);
    const before = schema(db);
    expect(applyMigrations(db, 18)).toBe(18);
    expect(schema(db)).toStrictEqual(before);
    db.close();
  });

  it('a failing migration leaves the database at the previous version', () => {
    const db = emptyDb();
    applyMigrations(db, 1);
    db.exec('CREATE TABLE runs (x)'); // migration 2 will collide with it
    expect(() => applyMigrations(db)).toThrow(/migration 2 .*failed/);
    expect(userVersion(db)).toBe(1);
    expect(tables(db)).not.toContain('experiments');
    db.close();
  });

  it('refuses to migrate a database newer than the code', () => {
    const db = emptyDb();
    db.pragma(`user_version = ${LATEST_VERSION + 3}`);
    expect(() => applyMigrations(db)).toThrow(/newer Sparring/);
    expect(tables(db)).toEqual([]);
    db.close();
  });

  it('upgrades a version-1 lab file in place, keeping its data', () => {
    const path = freshPath();
    const store = openSqliteStore(path);
    const { match, episodes } = fakeMatch('m1');
    store.saveMatch(match, episodes);
    // Take the file back to version 1 by dropping what later migrations added.
    store.db.exec('DROP TABLE bootstraps; DROP TABLE knob_proposals; DROP TABLE knob_writes;');
    store.db.exec('DROP TABLE eau_proposals; ALTER TABLE episodes DROP COLUMN customer; DROP TABLE gym_jobs;');
    store.db.exec('DROP TABLE panel_evaluations; DROP TABLE study_evaluations; DROP TABLE study_runs; DROP TABLE studies;');
    for (const side of ['da', 'ca'])
      store.db.exec(`ALTER TABLE matches DROP COLUMN ${side}_checkpoint_id; ALTER TABLE matches DROP COLUMN ${side}_checkpoint_name;`);
    store.db.exec('DROP TABLE custom_scenarios; DROP INDEX episodes_unvalidated; ALTER TABLE episodes DROP COLUMN validator_failed;');
    store.db.exec('DROP TABLE llm_gguf_models; DROP TABLE llm_cache; DROP TABLE llm_calls; DROP TABLE llm_endpoints;');
    store.db.exec('DROP TABLE human_episodes; DROP TABLE play_sessions; DROP TABLE lab_merge_rows; DROP TABLE lab_merges; DROP TABLE lab_meta;');
    store.db.exec('DROP TABLE labels; DROP TABLE label_items; DROP TABLE label_queues; DROP TABLE annotators;');
    store.db.exec(`ALTER TABLE episodes DROP COLUMN adversities_json; ALTER TABLE episodes DROP COLUMN da_env_fallback;
                   DROP TABLE run_metrics; ALTER TABLE runs DROP COLUMN preset;
                   DROP TABLE corpus_utterances; DROP TABLE corpus_imports;
                   DROP TABLE experience_notes; DROP TABLE knob_changes; DROP TABLE annotations;
                   DROP TABLE checkpoints; DROP TABLE checkpoint_blobs; DROP TABLE runs; DROP TABLE experiments;`);
    store.db.pragma('user_version = 1');
    store.close();

    const reopened = openSqliteStore(path);
    expect(userVersion(reopened.db)).toBe(LATEST_VERSION);
    expect(tables(reopened.db)).toEqual(expect.arrayContaining(['checkpoints', 'corpus_utterances']));
    expect(reopened.getEpisode('m1:1')).toStrictEqual(episodes[1]);
    reopened.close();
  });
});
