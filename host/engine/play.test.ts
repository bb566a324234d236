/**
 * Human play through the engine's handlers on a temporary lab: both seats to the end, bad moves
 * refused with nothing stored, drafts surviving an engine restart, take-over of a stored episode;
 * and the migration behind it.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import type { PlayTurn, PlayView } from '../../core/contract/contract';
import { MAX_MESSAGE_CHARS } from '../../core/play/human-episode';
import { MIGRATIONS, applyMigrations } from '../store/migrations';
import { playStore } from '../store/play-store';
import { openSqliteStore } from '../store/sqlite-store';
import { checkpointStore } from '../store/checkpoint-store';
import { bankingDomain } from '../domain-files';
import { CaModel } from '../../models/ca-model';
import { createEngine } from './engine';
import type { Engine } from './engine';
import { unavailableRunService } from './runs-unavailable';

const tmp = mkdtempSync(path.join(os.tmpdir(), 'sparring-play-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));
let labs = 0;
const newEngine = (db = path.join(tmp, `lab-${++labs}.db`)) => createEngine({ dbPath: db, runService: unavailableRunService() });

/** The customer seat: keep answering until the DA ends the call. */
async function playCustomer(engine: Engine, v: PlayView): Promise<PlayView> {
  const lines = [`Hi, there is a charge from ${v.customer!.facts.merchant} I do not recognise`, 'Yes, please go ahead', 'Thanks'];
  for (let i = 0; v.status === 'playing'; i++) {
    v = await engine.handlers['play/act']({ sessionId: v.sessionId, action: { kind: 'say', text: lines[Math.min(i, lines.length - 1)]! } });
  }
  return v;
}

describe('play on the engine', () => {
  it('says a DA is being trained, with its steps, when a session starts against sft in a lab without one', { timeout: 300_000 }, async () => {
    const engine = newEngine();
    const progress: { label: string; done: number; total: number }[] = [];
    engine.subscribe((e) => e.name === 'play/progress' && progress.push(e.payload));
    try {
      const v = await engine.handlers['play/start']({ seat: 'customer', player: 'Ada', opponent: 'sft', scenarioId: 'dispute-unrecognized', seed: 3 });
      expect(v.opponent).toBe('sft');
      expect(progress.length).toBeGreaterThan(0);
      expect(progress[0]!.label).toMatch(/^training DA-sft-1: supervised fine-tuning/);
      const last = progress.at(-1)!;
      expect(last.done).toBe(last.total);
      // Stored once: the next session against sft trains nothing.
      progress.length = 0;
      const again = await engine.handlers['play/start']({ seat: 'customer', player: 'Ada', opponent: 'sft', scenarioId: 'dispute-unrecognized', seed: 4 });
      expect(progress).toEqual([]);
      await engine.handlers['play/discard']({ sessionId: v.sessionId });
      await engine.handlers['play/discard']({ sessionId: again.sessionId });
    } finally {
      engine.close();
    }
  });

  it('plays the customer seat to the end: judged, rewarded, stored as a human-played match', async () => {
    const engine = newEngine();
    const streamed: PlayTurn[] = [];
    engine.subscribe((e) => e.name === 'play/turn' && streamed.push(e.payload.turn));
    try {
      let v = await engine.handlers['play/start']({ seat: 'customer', player: 'Ada', opponent: 'scripted', scenarioId: 'dispute-unrecognized', seed: 3 });
      expect(v).toMatchObject({ seat: 'customer', status: 'playing', yourTurn: true, turns: [] });
      expect(v.customer!.scenarioId).toBe('dispute-unrecognized');
      v = await playCustomer(engine, v);
      expect(v.status).toBe('finished');
      expect(streamed).toEqual(v.turns); // every turn went out as an event as it was taken, in order
      const e = v.episode!;
      expect(e.id).toBe('H1:0');
      expect(e.turns.length).toBe(v.turns.length);
      expect(e.rDa).toBeCloseTo(Object.values(e.daTerms).reduce((s, x) => s + x, 0));
      expect(await engine.handlers['episodes/get']({ id: 'H1:0' })).toEqual(e);
      const [match] = await engine.handlers['matches/list']({});
      expect(match).toMatchObject({ id: 'H1', daSpec: 'scripted', caSpec: 'human:Ada', scenarioSet: 'human' });
      expect(await engine.handlers['play/episodes'](undefined)).toEqual([
        expect.objectContaining({ episodeId: 'H1:0', player: 'Ada', seat: 'customer', opponent: 'scripted', forkedFrom: null, winner: e.winner }),
      ]);
      expect(await engine.handlers['play/sessions'](undefined)).toEqual([]);
      await expect(engine.handlers['play/act']({ sessionId: v.sessionId, action: { kind: 'say', text: 'hello?' } })).rejects.toThrow(
        /is over; its episode is H1:0/,
      );
    } finally {
      engine.close();
    }
  });

  it('records the checkpoint `latest` resolved to: a session resumed after a newer one exists plays the same one, and its match says so', async () => {
    const db = path.join(tmp, `lab-${++labs}.db`);
    const saveCa = async (seed: number) => {
      const store = openSqliteStore(db);
      const model = await CaModel.create(bankingDomain().taxonomy, { seed });
      try {
        return checkpointStore(store.db).save({ role: 'CA', source: 'test', snapshot: await model.snapshot() }).name;
      } finally {
        await model.dispose();
        store.close();
      }
    };
    expect(await saveCa(1)).toBe('CA0');
    let engine = newEngine(db);
    const v = await engine.handlers['play/start']({ seat: 'agent', player: 'Bo', opponent: 'latest', seed: 4 });
    expect(v).toMatchObject({ opponent: 'latest', opponentCheckpoint: { name: 'CA0', id: 'CA0' } });
    engine.close();
    expect(await saveCa(2)).toBe('CA1');

    engine = newEngine(db);
    try {
      expect(await engine.handlers['play/sessions'](undefined)).toEqual([
        expect.objectContaining({ opponent: 'latest', opponentCheckpoint: { name: 'CA0', id: 'CA0' } }),
      ]);
      const resumed = await engine.handlers['play/resume']({ sessionId: v.sessionId });
      expect(resumed.opponentCheckpoint).toEqual({ name: 'CA0', id: 'CA0' });
      const done = await engine.handlers['play/act']({ sessionId: v.sessionId, action: { kind: 'end_call', text: 'Goodbye' } });
      expect(done.status).toBe('finished');
      const [human] = await engine.handlers['matches/list']({});
      expect(human).toMatchObject({ daSpec: 'human:Bo', caSpec: 'latest', daCheckpoint: null, caCheckpoint: { name: 'CA0', id: 'CA0' } });
      expect(await engine.handlers['play/episodes'](undefined)).toEqual([
        expect.objectContaining({ opponent: 'latest', opponentCheckpoint: { name: 'CA0', id: 'CA0' } }),
      ]);

      // A match against `latest` now records CA1; the scripted DA is no checkpoint.
      const { matchId } = await engine.handlers['matches/play']({ da: 'scripted', ca: 'latest', episodesPerScenario: 1, scenarios: 'fraud', seed: 1 });
      const match = (await engine.handlers['matches/list']({})).find((m) => m.id === matchId);
      expect(match).toMatchObject({ daSpec: 'scripted', caSpec: 'latest', daCheckpoint: null, caCheckpoint: { name: 'CA1', id: 'CA1' } });
    } finally {
      engine.close();
    }
  });

  it('refuses empty and over-long messages and invalid tool arguments, storing nothing of them', async () => {
    const engine = newEngine();
    try {
      const v = await engine.handlers['play/start']({ seat: 'agent', player: 'Bo', opponent: 'scripted', seed: 4 });
      expect(v.customer).toBeNull(); // the agent seat does not see the hidden intent
      expect(v.turns.map((t) => t.role)).toEqual(['customer']);
      const act = (action: Parameters<Engine['handlers']['play/act']>[0]['action']) => engine.handlers['play/act']({ sessionId: v.sessionId, action });
      await expect(act({ kind: 'speak', text: '' })).rejects.toThrow('text: the message is empty');
      await expect(act({ kind: 'speak', text: 'a'.repeat(MAX_MESSAGE_CHARS + 1) })).rejects.toThrow(`at most ${MAX_MESSAGE_CHARS}`);
      await expect(act({ kind: 'tool_call', tool: 'transfer_funds', args: { from_account_id: 'a', to_account_id: 'b', amount: -5 } })).rejects.toThrow(
        /transfer_funds: Amount must be more than 0/,
      );
      await expect(act({ kind: 'dance' } as never)).rejects.toThrow(/play\/act: Action › kind .*\(field "action\.kind"\)/);
      await expect(engine.handlers['play/start']({ seat: 'agent', player: ' ', opponent: 'scripted' })).rejects.toThrow(
        /must not be empty.*\(field "player"\)/,
      );
      const [draft] = await engine.handlers['play/sessions'](undefined);
      expect(draft).toMatchObject({ sessionId: v.sessionId, turns: 1 });
      expect((await engine.handlers['play/resume']({ sessionId: v.sessionId })).turns).toHaveLength(1);
      expect((await engine.handlers['matches/list']({})).length).toBe(0);
    } finally {
      engine.close();
    }
  });

  it('keeps an unfinished session across an engine restart, to resume or discard', async () => {
    const db = path.join(tmp, 'restart.db');
    let engine = newEngine(db);
    const a = await engine.handlers['play/start']({ seat: 'agent', player: 'Cy', opponent: 'scripted', scenarioId: 'dispute-unrecognized', seed: 9 });
    const b = await engine.handlers['play/start']({ seat: 'customer', player: 'Cy', opponent: 'scripted', seed: 10 });
    const afterLookup = await engine.handlers['play/act']({
      sessionId: a.sessionId,
      action: { kind: 'tool_call', tool: 'lookup_account', args: { phone: a.callerPhone } },
    });
    engine.close(); // the window closes mid-episode

    engine = newEngine(db);
    try {
      const drafts = await engine.handlers['play/sessions'](undefined);
      expect(drafts.map((d) => d.sessionId).sort()).toEqual([a.sessionId, b.sessionId].sort());
      const resumed = await engine.handlers['play/resume']({ sessionId: a.sessionId });
      expect(resumed.turns).toEqual(afterLookup.turns);
      expect(resumed.turns[1]!.toolResult!.ok).toBe(true);
      await engine.handlers['play/discard']({ sessionId: b.sessionId });
      await expect(engine.handlers['play/resume']({ sessionId: b.sessionId })).rejects.toThrow(/no unfinished play session/);
      const ended = await engine.handlers['play/act']({ sessionId: a.sessionId, action: { kind: 'end_call', text: 'Bye' } });
      expect(ended.status).toBe('finished');
      expect(ended.customer!.scenarioId).toBe('dispute-unrecognized'); // revealed after the call
      expect(await engine.handlers['play/sessions'](undefined)).toEqual([]);
    } finally {
      engine.close();
    }
  });

  it('takes over a stored arena episode at turn t: the head replayed, the fork recorded', async () => {
    const engine = newEngine();
    try {
      await engine.handlers['matches/play']({ da: 'scripted', ca: 'scripted', episodesPerScenario: 1, scenarios: 'arena', seed: 2 });
      const source = await engine.handlers['episodes/get']({ id: 'M1:0' });
      const t = source.turns.findIndex((x) => x.role === 'agent' && x.actionType === 'speak');
      const v = await engine.handlers['play/fork']({ episodeId: 'M1:0', turn: t, seat: 'agent', player: 'Di' });
      expect(v.forkedFrom).toEqual({ episodeId: 'M1:0', turn: t });
      expect(v.opponent).toBe('scripted'); // the stored match's CA
      expect(v.turns.slice(0, t).map((x) => x.toolResult)).toEqual(source.turns.slice(0, t).map((x) => x.toolResult));
      expect(v.yourTurn).toBe(true);
      const done = await engine.handlers['play/act']({ sessionId: v.sessionId, action: { kind: 'end_call', text: 'Goodbye' } });
      expect(done.episode!.seed).toBe(source.seed);
      expect(done.episode!.intent).toBe(source.intent);
      const [mark] = await engine.handlers['play/episodes'](undefined);
      expect(mark).toMatchObject({ player: 'Di', seat: 'agent', forkedFrom: { episodeId: 'M1:0', turn: t } });
      await expect(engine.handlers['play/fork']({ episodeId: 'M1:0', turn: 99, seat: 'agent', player: 'Di' })).rejects.toThrow(
        /turn 99: episode M1:0 has turns 0–/,
      );
      await expect(engine.handlers['play/fork']({ episodeId: done.episode!.id, turn: 0, seat: 'customer', player: 'Di' })).rejects.toThrow(/choose a policy/);
      // Arena ids count arena matches only: H1 does not make the next one M3.
      expect((await engine.handlers['matches/play']({ da: 'scripted', ca: 'scripted', episodesPerScenario: 1, scenarios: 'arena', seed: 3 })).matchId).toBe(
        'M2',
      );
    } finally {
      engine.close();
    }
  });

  it('serves tool forms read off the tools backend schemas', async () => {
    const engine = newEngine();
    try {
      const { tools } = await engine.handlers['play/setup'](undefined);
      expect(tools.map((t) => t.name)).toHaveLength(6);
      expect(tools.find((t) => t.name === 'dispute_charge')!.fields).toContainEqual({
        name: 'reason',
        type: 'enum',
        required: true,
        options: ['unrecognized', 'duplicate', 'refund_missing', 'not_received', 'other'],
      });
      expect(tools.find((t) => t.name === 'get_transactions')!.fields).toContainEqual({ name: 'limit', type: 'integer', required: false });
    } finally {
      engine.close();
    }
  });
});

describe('human play migration', () => {
  const m = MIGRATIONS.find((x) => x.name === 'human-played episodes and unfinished play sessions')!;

  it('adds play sessions and human episode marks; a mark goes with its episode, a draft with nothing half-written', () => {
    const db = new Database(':memory:');
    db.pragma('foreign_keys = ON');
    applyMigrations(db, m.version - 1);
    const before = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").pluck().all() as string[];
    expect(applyMigrations(db, m.version)).toBe(m.version);
    const added = (db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").pluck().all() as string[]).filter((t) => !before.includes(t));
    expect(added.sort()).toEqual(['human_episodes', 'play_sessions']);
    expect(() => db.prepare("INSERT INTO human_episodes VALUES ('M9:0', 'x', 'customer', 'scripted', 'now', NULL, NULL)").run()).toThrow(/FOREIGN KEY/);
    expect(() =>
      db
        .prepare(
          "INSERT INTO play_sessions (id, created_at, updated_at, player, seat, opponent, scenario_id, seed, config_json) VALUES ('P', 'n', 'n', 'x', 'judge', 's', 'dispute-unrecognized', 1, '{}')",
        )
        .run(),
    ).toThrow(/CHECK/);
    db.close();
  });

  it('numbers human matches H1, H2, … apart from arena matches', () => {
    const store = openSqliteStore(':memory:');
    try {
      expect(playStore(store).nextMatchId()).toBe('H1');
    } finally {
      store.close();
    }
  });
});
