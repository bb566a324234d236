/**
 * Which run is this? On a lab with hand-made run rows (no run is played: seconds, not minutes):
 * every summary carries its study and arm, what its config changes from its preset and its note;
 * the note is written from the engine (announced as `run/note`) and from `sparring runs note`, and
 * `sparring runs list` prints them; the Experiments screen's preset times come from the lab's
 * finished runs of each preset.
 */
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { armConfig } from '../../core/coevolution/arms';
import { PRESETS } from '../../core/presets';
import type { EngineEvent } from '../../core/contract/run-service';
import { createEngine } from '../engine/engine';
import { unavailableRunService } from '../engine/runs-unavailable';
import { openSqliteStore } from '../store/sqlite-store';
import type { SqliteRunStore } from '../store/sqlite-store';
import { sparringInProcess } from '../../test/support/cli-in-process';
import { createRunReader } from './run-reader';
import { presetInfos } from './service';
import { measuredPresetTimes, presetsWithTimes, setRunNote } from './run-identity';

const tmp = mkdtempSync(path.join(os.tmpdir(), 'sparring-run-identity-'));
const dbPath = path.join(tmp, 'lab.db');
const quick = PRESETS.quick.config;

function addRun(db: SqliteRunStore['db'], id: string, o: { preset: string; config: unknown; status?: string; seconds?: number; seed?: number }): void {
  const created = new Date(Date.UTC(2026, 11, 7, 12, 0, 0));
  const updated = new Date(created.getTime() + (o.seconds ?? 60) * 1000);
  db.prepare('INSERT INTO runs (id, created_at, updated_at, status, seed, config_json, preset) VALUES (?, ?, ?, ?, ?, ?, ?)').run(
    id,
    created.toISOString(),
    updated.toISOString(),
    o.status ?? 'finished',
    o.seed ?? 1,
    JSON.stringify(o.config),
    o.preset,
  );
}

beforeAll(() => {
  const store = openSqliteStore(dbPath);
  const db = store.db;
  addRun(db, 'R1', { preset: 'quick', config: quick, seconds: 30 });
  addRun(db, 'R2', { preset: 'quick', config: quick, seconds: 50 });
  addRun(db, 'R3', { preset: 'quick', config: armConfig(quick, 'no-ca-training'), seconds: 5, seed: 2 });
  addRun(db, 'R4', { preset: '', config: quick, seconds: 5 });
  addRun(db, 'R5', { preset: 'quick', config: quick, seconds: 1, status: 'running' });
  db.prepare(
    "INSERT INTO studies (id, created_at, updated_at, preset, base_config_json, arms_json, seeds_json, status) VALUES ('S1', 'x', 'x', 'quick', ?, ?, ?, 'finished')",
  ).run(JSON.stringify(quick), JSON.stringify(['full', 'no-ca-training']), JSON.stringify([2]));
  db.prepare("INSERT INTO study_runs (study_id, arm, seed, run_id, status) VALUES ('S1', 'no-ca-training', 2, 'R3', 'finished')").run();
  store.close();
});

describe('run identity', () => {
  it("each summary names its study and arm, its config's change from the preset, and its note", () => {
    const store = openSqliteStore(dbPath);
    try {
      setRunNote(store.db, 'R3', '  the ablation I showed on Monday  ');
      const runs = createRunReader(store.db, dbPath, () => undefined).list();
      const byId = Object.fromEntries(runs.map((r) => [r.id, r]));
      expect(byId.R1).toMatchObject({ study: null, configChange: [], note: null });
      expect(byId.R3).toMatchObject({
        study: { id: 'S1', arm: 'no-ca-training' },
        configChange: ['schedule.caGyms unset → false'],
        note: 'the ablation I showed on Monday',
      });
      // A run started from a whole config of its own has no preset to differ from.
      expect(byId.R4!.configChange).toBeNull();
      expect(() => setRunNote(store.db, 'R9', 'x')).toThrow(/no run "R9"/);
      expect(() => setRunNote(store.db, 'R1', 'x'.repeat(2001))).toThrow(/note: at most 2000 characters, got 2001/);
      setRunNote(store.db, 'R3', '');
      expect(createRunReader(store.db, dbPath, () => undefined).list()[2]!.note).toBeNull();
    } finally {
      store.close();
    }
  });

  it("a preset's time is the median of its finished runs that kept it as it is and ran on their own", () => {
    const store = openSqliteStore(dbPath);
    try {
      // R1 (30 s) and R2 (50 s); not R3 (an arm of a study, and changed), R4 (no preset) nor R5 (running).
      expect(measuredPresetTimes(store.db)).toEqual(new Map([['quick', { seconds: 40, runs: 2 }]]));
      const presets = presetsWithTimes(store.db, presetInfos());
      expect(presets.find((p) => p.name === 'quick')).toMatchObject({
        measured: { seconds: 40, runs: 2 },
        budget: `at most ${quick.stopping.nMax} matches of ${quick.arena.episodesPerScenario} episodes per scenario`,
      });
      expect(presets.find((p) => p.name === 'paper')!.measured).toBeNull();
    } finally {
      store.close();
    }
  });
});

describe('runs/note in the engine', () => {
  it('writes the note, announces it as run/note, and refuses an unknown run or a long note by name', async () => {
    const store = openSqliteStore(dbPath);
    const reader = createRunReader(store.db, dbPath, () => undefined);
    const engine = createEngine({ dbPath, runService: { ...unavailableRunService(), list: reader.list }, batchIntervalMs: 10 });
    const events: EngineEvent[] = [];
    engine.subscribe((e) => events.push(e));
    try {
      const r = await engine.handlers['runs/note']({ runId: 'R2', note: 'slow disk that day' });
      expect(r).toMatchObject({ id: 'R2', note: 'slow disk that day', preset: 'quick', seed: 1 });
      expect(events).toContainEqual({ name: 'run/note', payload: { runId: 'R2', note: 'slow disk that day' } });
      await expect(engine.handlers['runs/note']({ runId: 'R9', note: 'x' })).rejects.toThrow(/no run "R9"/);
      await expect(engine.handlers['runs/note']({ runId: 'R2', note: 'x'.repeat(2001) })).rejects.toThrow(/note.*at most 2000 characters/);
    } finally {
      engine.close();
      store.close();
    }
  });
});

describe('sparring runs', () => {
  it('note writes and clears a note; list prints study/arm, seed, preset, change and note', async () => {
    const note = await sparringInProcess(['runs', 'note', 'R1', 'baseline for the talk', '--db', dbPath]);
    expect(note).toMatchObject({ code: 0, stdout: 'R1: baseline for the talk\n' });
    const list = await sparringInProcess(['runs', 'list', '--db', dbPath]);
    expect(list.code).toBe(0);
    const lines = list.stdout.split('\n');
    expect(lines[0]).toMatch(/^run\s+status\s+study\/arm\s+seed\s+preset\s+changed from preset\s+note$/);
    expect(lines.find((l) => l.startsWith('R1 '))).toMatch(/R1\s+finished\s+—\s+1\s+quick\s+—\s+baseline for the talk$/);
    expect(lines.find((l) => l.startsWith('R3 '))).toMatch(/R3\s+finished\s+S1\/no-ca-training\s+2\s+quick\s+schedule\.caGyms unset → false/);
    expect(lines.find((l) => l.startsWith('R4 '))).toMatch(/R4\s+finished\s+—\s+1\s+custom\s+own config/);
    const json = JSON.parse((await sparringInProcess(['runs', 'list', '--json', '--db', dbPath])).stdout) as { id: string; note: string | null }[];
    expect(json.find((r) => r.id === 'R1')!.note).toBe('baseline for the talk');
    expect((await sparringInProcess(['runs', 'note', 'R1', '', '--db', dbPath])).stdout).toBe('R1: note cleared\n');
    const bad = await sparringInProcess(['runs', 'note', 'R9', 'x', '--db', dbPath]);
    expect(bad).toMatchObject({ code: 2, stderr: 'sparring: runs note R9: no run "R9" in this lab\n' });
  });
});
