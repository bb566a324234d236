import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { PRESETS } from '../../core/presets';
import { MIGRATIONS, applyMigrations, userVersion } from '../store/migrations';
import { openSqliteStore } from '../store/sqlite-store';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { ownerAlive, STUDY_STALE_MS, StudyBusyError, studyStore } from './study-store';

const tmp = mkdtempSync(path.join(os.tmpdir(), 'sparring-study-store-'));

/** An in-memory lab migrated up to just before the migration named `name`, and that migration's version. */
function justBefore(name: string): { db: Database.Database; version: number } {
  const version = MIGRATIONS.findIndex((m) => m.name === name) + 1;
  expect(version, `a migration named "${name}"`).toBeGreaterThan(0);
  const db = new Database(':memory:');
  db.pragma('foreign_keys = ON');
  applyMigrations(db, version - 1);
  return { db, version };
}

describe('the studies migration', () => {
  it('adds studies, their (arm, seed) runs and their extra evaluations', () => {
    const { db, version } = justBefore('studies: seeds × arms of runs');
    expect(applyMigrations(db, version)).toBe(version);
    expect(userVersion(db)).toBe(version);
    const tables = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE 'stud%' ORDER BY name").pluck().all();
    expect(tables).toEqual(['studies', 'study_evaluations', 'study_runs']);
    const pk = db.prepare("SELECT name FROM pragma_table_info('study_runs') WHERE pk > 0 ORDER BY pk").pluck().all();
    expect(pk).toEqual(['study_id', 'arm', 'seed']);
    // An entry belongs to a study and names a run of the lab; a status outside the four is refused.
    expect(() => db.prepare("INSERT INTO study_runs (study_id, arm, seed, run_id, status) VALUES ('S9', 'full', 1, NULL, 'pending')").run()).toThrow(
      /FOREIGN KEY/,
    );
    db.prepare("INSERT INTO studies VALUES ('S1', 't', 't', 'quick', '{}', '[]', '[]', 'running')").run();
    expect(() => db.prepare("INSERT INTO study_runs (study_id, arm, seed, run_id, status) VALUES ('S1', 'full', 1, 'R404', 'pending')").run()).toThrow(
      /FOREIGN KEY/,
    );
    expect(() => db.prepare("INSERT INTO study_runs (study_id, arm, seed, run_id, status) VALUES ('S1', 'full', 1, NULL, 'done')").run()).toThrow(/CHECK/);
    db.close();
  });
});

describe('the arena-only migration', () => {
  it('gives the studies made before it arena_only 0 and refuses anything but 0 or 1', () => {
    const { db, version } = justBefore('studies: arena only');
    db.prepare("INSERT INTO studies VALUES ('S1', 't', 't', 'quick', '{}', '[]', '[]', 'running')").run();
    applyMigrations(db, version);
    expect(db.prepare("SELECT arena_only FROM studies WHERE id = 'S1'").pluck().get()).toBe(0);
    applyMigrations(db);
    expect(studyStore(db).get('S1').arenaOnly).toBe(false);
    expect(() => db.prepare("UPDATE studies SET arena_only = 2 WHERE id = 'S1'").run()).toThrow(/CHECK/);
    db.close();
  });
});

describe('the study owner migration', () => {
  it('leaves the studies made before it unowned: a running one of them reads as interrupted, with its running entries', () => {
    const { db, version } = justBefore('studies: owner');
    db.prepare(
      "INSERT INTO studies (id, created_at, updated_at, preset, base_config_json, arms_json, seeds_json, status) VALUES (?, 't', 't', 'quick', '{}', ?, ?, ?)",
    ).run('S1', '["full"]', '[1,2]', 'running');
    db.prepare(
      "INSERT INTO study_runs (study_id, arm, seed, run_id, status) VALUES ('S1', 'full', 1, NULL, 'running'), ('S1', 'full', 2, NULL, 'pending')",
    ).run();
    applyMigrations(db, version);
    const studies = studyStore(db);
    expect(studies.get('S1')).toMatchObject({ status: 'interrupted', owner: null });
    expect(studies.entries('S1').map((e) => e.status)).toEqual(['interrupted', 'pending']);
    expect(studies.busy('S1')).toBeNull();
    db.close();
  });
});

describe('the arena-only runs migration', () => {
  it('marks the runs of the arena-only studies made before it, and only those', () => {
    const { db, version } = justBefore('runs: arena only');
    const run = db.prepare(
      "INSERT INTO runs (id, created_at, updated_at, status, seed, config_json, preset) VALUES (?, 't', 't', 'finished', 1, '{}', 'quick')",
    );
    for (const id of ['R1', 'R2', 'R3']) run.run(id);
    const study = db.prepare(
      "INSERT INTO studies (id, created_at, updated_at, preset, base_config_json, arms_json, seeds_json, status, arena_only) VALUES (?, 't', 't', 'quick', '{}', '[\"full\"]', '[1]', 'finished', ?)",
    );
    study.run('S1', 1);
    study.run('S2', 0);
    db.prepare(
      "INSERT INTO study_runs (study_id, arm, seed, run_id, status) VALUES ('S1', 'full', 1, 'R1', 'finished'), ('S2', 'full', 1, 'R2', 'finished')",
    ).run();
    applyMigrations(db, version);
    expect(db.prepare('SELECT id, arena_only FROM runs ORDER BY id').all()).toEqual([
      { id: 'R1', arena_only: 1 },
      { id: 'R2', arena_only: 0 },
      { id: 'R3', arena_only: 0 },
    ]);
    expect(() => db.prepare("UPDATE runs SET arena_only = 2 WHERE id = 'R1'").run()).toThrow(/CHECK/);
    db.close();
  });
});

describe('a study owner', () => {
  const now = Date.parse('2026-12-07T04:00:00Z');
  const at = (msAgo: number) => new Date(now - msAgo).toISOString();

  it('is alive while heard from lately and, on this host, while its process lives', () => {
    expect(ownerAlive({ host: 'elsewhere', pid: 1, heartbeatAt: at(5_000) }, now, 'here')).toBe(true);
    expect(ownerAlive({ host: 'elsewhere', pid: 1, heartbeatAt: at(STUDY_STALE_MS + 1) }, now, 'here')).toBe(false);
    expect(ownerAlive({ host: 'here', pid: process.pid, heartbeatAt: at(5_000) }, now, 'here')).toBe(true);
    // A live pid whose heartbeat went stale (a pid reused after a crash) is not the owner any more.
    expect(ownerAlive({ host: 'here', pid: process.pid, heartbeatAt: at(STUDY_STALE_MS + 1) }, now, 'here')).toBe(false);
    expect(ownerAlive({ host: 'here', pid: 2 ** 22 + 7, heartbeatAt: at(0) }, now, 'here')).toBe(false);
    expect(ownerAlive({ host: 'here', pid: 1, heartbeatAt: 'not a date' }, now, 'here')).toBe(false);
  });

  it('keeps a second process from running a study a live one runs; once that one dies the study is interrupted and can be claimed', async () => {
    const store = openSqliteStore(path.join(tmp, 'owner.db'));
    const studies = studyStore(store.db);
    const base = PRESETS.quick.config;
    const id = studies.create({ preset: 'quick', base, arms: ['full'], seeds: [1], configOf: () => base }).id;
    // Made by this process: running, and this process may run it.
    expect(studies.get(id)).toMatchObject({ status: 'running', owner: { host: os.hostname(), pid: process.pid } });
    expect(studies.busy(id)).toBeNull();
    studies.setEntry(id, 'full', 1, 'running', null, null);
    // Another process takes it over (as a `sparring study` elsewhere would).
    const other = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)'], { stdio: 'ignore' });
    store.db.prepare('UPDATE studies SET owner_pid = ?, heartbeat_at = ? WHERE id = ?').run(other.pid, new Date().toISOString(), id);
    expect(studies.get(id).status).toBe('running');
    expect(studies.busy(id)).toMatch(new RegExp(`^study ${id} is being run by process ${other.pid} on ${os.hostname()} \\(heard from \\d+ s ago\\)`));
    expect(() => studies.claim(id)).toThrow(StudyBusyError);
    expect(studies.get(id).owner!.pid).toBe(other.pid);
    other.kill('SIGKILL');
    await once(other, 'exit');
    expect(studies.get(id).status).toBe('interrupted');
    expect(studies.entries(id)[0]!.status).toBe('interrupted');
    const owned = studies.claim(id);
    expect(studies.get(id)).toMatchObject({ status: 'running', owner: { pid: process.pid } });
    expect(studies.entries(id)[0]!.status).toBe('running');
    owned.release();
    expect(studies.get(id)).toMatchObject({ status: 'interrupted', owner: null });
    store.close();
  });
});

describe('studyStore', () => {
  it('keeps whether a study was made arena-only', () => {
    const store = openSqliteStore(path.join(tmp, 'arena-only.db'));
    const studies = studyStore(store.db);
    const base = PRESETS.quick.config;
    const made = (arenaOnly?: boolean) =>
      studies.create({ preset: 'quick', base, arms: ['full'], seeds: [1], configOf: () => base, ...(arenaOnly === undefined ? {} : { arenaOnly }) }).id;
    const [a, b, c] = [made(true), made(false), made()];
    expect([a, b, c].map((id) => studies.get(id).arenaOnly)).toEqual([true, false, false]);
    // Its runs are marked too, so their own views (report R, the Evaluation screen) leave held-out figures out.
    const runArenaOnly = store.db.prepare('SELECT arena_only FROM runs WHERE id = ?').pluck();
    expect([a, b, c].map((id) => runArenaOnly.get(studies.entries(id)[0]!.runId))).toEqual([1, 0, 0]);
    expect(studies.list().map((s) => s.arenaOnly)).toEqual([true, false, false]);
    store.close();
  });

  it('creates a study with its runs in arm × seed order (status created) and numbers studies S1, S2', () => {
    const store = openSqliteStore(path.join(tmp, 'lab.db'));
    const studies = studyStore(store.db);
    const base = PRESETS.quick.config;
    const s = studies.create({
      preset: 'quick',
      base,
      arms: ['full', 'mix-50-50'],
      seeds: [1, 2],
      configOf: (arm) => ({ ...base, gym: { ...base.gym, failureShare: arm === 'full' ? 0.7 : 0.5 } }),
    });
    expect(s).toMatchObject({ id: 'S1', preset: 'quick', arms: ['full', 'mix-50-50'], seeds: [1, 2], status: 'running' });
    const entries = studies.entries('S1');
    expect(entries.map((e) => [e.arm, e.seed, e.runId, e.status])).toEqual([
      ['full', 1, 'R1', 'pending'],
      ['full', 2, 'R2', 'pending'],
      ['mix-50-50', 1, 'R3', 'pending'],
      ['mix-50-50', 2, 'R4', 'pending'],
    ]);
    const runs = store.db.prepare('SELECT id, status, seed, config_json FROM runs ORDER BY id').all() as {
      id: string;
      status: string;
      seed: number;
      config_json: string;
    }[];
    expect(runs.map((r) => [r.id, r.status, r.seed, (JSON.parse(r.config_json) as typeof base).gym.failureShare])).toEqual([
      ['R1', 'created', 1, 0.7],
      ['R2', 'created', 2, 0.7],
      ['R3', 'created', 1, 0.5],
      ['R4', 'created', 2, 0.5],
    ]);
    expect(studies.create({ preset: 'quick', base, arms: ['full'], seeds: [3], configOf: () => base }).id).toBe('S2');
    expect(studies.entries('S2')[0]!.runId).toBe('R5');
    studies.saveEvaluation('S1', 'mix-50-50', 1, 'vs-full-ca', {
      episodes: 24,
      routingAccuracy: 0.9,
      strictPass: 0.5,
      fail: 0.1,
      meanReward: 1,
      lookupFirst: 0.4,
    });
    expect(studies.evaluation('S1', 'mix-50-50', 1, 'vs-full-ca')?.routingAccuracy).toBe(0.9);
    expect(studies.evaluation('S1', 'full', 1, 'vs-full-ca')).toBeNull();
    expect(() => studies.get('S9')).toThrow(/no study "S9"/);
    store.close();
  });
});
