/**
 * The engine's handlers on a temporary lab: queries page the store, matches/play stores a match
 * and streams batched progress, exports parse back, runs delegate to the RunService, and bad
 * arguments are refused with the field named. No browser, no server.
 */
import { DEFAULT_CONFIG } from '../../core/config';
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parse as parseCsv } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ServerMessage, StudyDetail } from '../../core/contract/contract';
import { PRESETS } from '../../core/presets';
import { studyStore } from '../study/study-store';
import type { EngineEvent, RunService } from '../../core/contract/run-service';
import { CA_TERMS, DA_TERMS } from '../../core/rewards/terms';
import { corpusHash, saveCorpusImport } from '../store/corpus-store';
import { openSqliteStore } from '../store/sqlite-store';
import { createEngine } from './engine';
import type { Engine } from './engine';
import type { ChatExample } from './export';
import { RUNS_UNAVAILABLE, unavailableRunService } from './runs-unavailable';
import { createSession } from './session';

const tmp = mkdtempSync(path.join(os.tmpdir(), 'sparring-engine-'));

describe('engine on a temporary lab', () => {
  let engine: Engine;
  const events: EngineEvent[] = [];
  let matchId = '';

  beforeAll(async () => {
    engine = createEngine({ dbPath: path.join(tmp, 'lab.db'), runService: unavailableRunService(), batchIntervalMs: 100 });
    engine.subscribe((e) => events.push(e));
    ({ matchId } = await engine.handlers['matches/play']({ da: 'scripted', ca: 'scripted', episodesPerScenario: 3, scenarios: 'arena', seed: 5 }));
  });
  afterAll(() => engine.close());

  it('plays a match, stores it and lists it', async () => {
    expect(matchId).toBe('M1');
    const matches = await engine.handlers['matches/list']({});
    expect(matches.map((m) => m.id)).toEqual(['M1']);
    expect(matches[0]!.perScenario).toHaveLength(10);
    expect(matches[0]!.episodesPerScenario).toBe(3);
  });

  it('streams episodes/completed in batches that add up to the match', () => {
    const done = events.filter((e): e is Extract<EngineEvent, { name: 'episodes/completed' }> => e.name === 'episodes/completed');
    expect(done.length).toBeGreaterThan(0);
    expect(done.length).toBeLessThan(30); // 30 episodes, batched
    expect(done.reduce((s, e) => s + e.payload.count, 0)).toBe(30);
    expect(done.at(-1)!.payload).toMatchObject({ matchId: 'M1', done: 30, total: 30 });
    const dones = done.map((e) => e.payload.done);
    expect([...dones].sort((a, b) => a - b)).toEqual(dones);
  });

  it('pages episodes with filters, never more than asked', async () => {
    const all = await engine.handlers['episodes/list']({ matchId });
    expect(all.total).toBe(30);
    expect(all.items).toHaveLength(30);
    const page = await engine.handlers['episodes/list']({ matchId, offset: 10, limit: 7 });
    expect(page.total).toBe(30);
    expect(page.items.map((e) => e.index)).toEqual([10, 11, 12, 13, 14, 15, 16]);

    const ca = await engine.handlers['episodes/list']({ winner: 'CA', limit: 500 });
    expect(ca.items.every((e) => e.winner === 'CA')).toBe(true);
    expect(ca.total).toBe(all.items.filter((e) => e.winner === 'CA').length);

    for (const resolved of [true, false]) {
      const r = await engine.handlers['episodes/list']({ resolved, limit: 3 });
      expect(r.total).toBe(all.items.filter((e) => e.judge.resolved === resolved).length);
      expect(r.items.length).toBe(Math.min(3, r.total));
      expect(r.items.every((e) => e.judge.resolved === resolved)).toBe(true);
      expect(r.items.every((e) => !('turns' in e))).toBe(true);
    }
    const h = await engine.handlers['episodes/list']({ hallucination: false, winner: 'DA', offset: 1, limit: 2 });
    const expected = all.items.filter((e) => !e.judge.hallucination && e.winner === 'DA');
    expect(h.total).toBe(expected.length);
    expect(h.items.map((e) => e.id)).toEqual(expected.slice(1, 3).map((e) => e.id));

    const scenario = all.items[4]!.scenarioId;
    const s = await engine.handlers['episodes/list']({ scenarioId: scenario });
    expect(s.total).toBe(3);
  });

  it('returns one episode with its turns and per-turn reward terms', async () => {
    const e = await engine.handlers['episodes/get']({ id: `${matchId}:0` });
    expect(e.turns.length).toBeGreaterThan(2);
    expect(e.turns.some((t) => Object.keys(t.rewards).length > 0)).toBe(true);
    await expect(engine.handlers['episodes/get']({ id: 'nope:1' })).rejects.toThrow(/no episode "nope:1"/);
  });

  it('replays a stored episode with two policies and reproduces it for the same one', async () => {
    const stored = await engine.handlers['episodes/get']({ id: `${matchId}:0` });
    const args = { role: 'DA' as const, a: 'scripted', b: 'scripted', opponent: 'scripted', scenarioId: stored.scenarioId, seed: stored.seed };
    const d = await engine.handlers['episodes/diff'](args);
    expect(d.divergence).toBeNull();
    // The replay is the stored episode (same world, same opponent), only filed under another id.
    expect(d.a.episode.turns).toEqual(stored.turns);
    expect(d.b.episode.judge).toEqual(stored.judge);
    await expect(engine.handlers['episodes/diff']({ ...args, scenarioId: 'nope' })).rejects.toThrow(/no scenario "nope"/);
    await expect(engine.handlers['episodes/diff']({ ...args, b: 'DA9' })).rejects.toThrow(/DA9/);
  });

  it('cross-plays DA × CA on the arena scenarios with progress, and caches the answer', async () => {
    events.length = 0;
    const args = { das: ['scripted'], cas: ['scripted'], episodesPerScenario: 2, seed: 5 };
    const x = await engine.handlers['evaluation/crossplay'](args);
    expect(x.cached).toBe(false);
    expect(x.scenarios).toHaveLength(10);
    expect(x.cells).toHaveLength(10);
    // The same worlds as the stored match of seed 5 (its first two episodes of each scenario).
    const stored = (await engine.handlers['episodes/list']({ matchId, limit: 500 })).items;
    for (const c of x.cells) {
      const eps = stored.filter((e) => e.scenarioId === c.scenarioId && e.index % 3 < 2);
      expect(c.daWins).toBe(eps.filter((e) => e.winner === 'DA').length);
      expect(c.daWinRate).toBeCloseTo(c.daWins / 2);
    }
    const progress = events.filter((e) => e.name === 'crossplay/progress');
    expect(progress.at(-1)?.payload).toMatchObject({ done: 20, total: 20 });
    const again = await engine.handlers['evaluation/crossplay'](args);
    expect(again.cached).toBe(true);
    expect(again.cells).toEqual(x.cells);
    await expect(engine.handlers['evaluation/crossplay']({ ...args, das: [] })).rejects.toThrow(/name at least one DA.*\(field "das"\)/);
  });

  it('refuses bad arguments, naming the field', async () => {
    const call = async (name: string, args: unknown) => (engine.handlers as unknown as Record<string, (a: unknown) => unknown>)[name]!(args);
    await expect(call('episodes/list', { limit: 0 })).rejects.toThrow(/episodes\/list: .*\(field "limit"\)/);
    await expect(call('episodes/list', { limit: 10_000 })).rejects.toThrow(/\(field "limit"\)/);
    await expect(call('episodes/list', { winner: 'nobody' })).rejects.toThrow(/\(field "winner"\)/);
    await expect(call('episodes/list', { colour: 'red' })).rejects.toThrow(/unknown field "colour"/);
    await expect(call('matches/play', { da: 'scripted', ca: 'scripted', episodesPerScenario: 1.5, scenarios: 'arena', seed: 1 })).rejects.toThrow(
      /matches\/play: .*must be an integer.*\(field "episodesPerScenario"\)/,
    );
    await expect(call('matches/play', { da: '', ca: 'scripted', episodesPerScenario: 1, scenarios: 'arena', seed: 1 })).rejects.toThrow(/\(field "da"\)/);
    await expect(call('matches/play', { da: 'scripted', ca: 'scripted', episodesPerScenario: 1, scenarios: 'arena', seed: 1, run: '' })).rejects.toThrow(
      /\(field "run"\)/,
    );
    await expect(call('matches/play', { da: 'scripted', ca: 'scripted', episodesPerScenario: 1, scenarios: 'arena', seed: 1, run: 'R9' })).rejects.toThrow(
      /matches\/play: no run "R9" in this lab/,
    );
    await expect(
      call('matches/play', { da: 'scripted', ca: 'scripted', episodesPerScenario: 1, scenarios: 'arena', seed: 1, speak: 'validation' }),
    ).rejects.toThrow(/needs run.*\(field "speak"\)/);
    await expect(
      call('matches/play', { da: 'scripted', ca: 'scripted', episodesPerScenario: 1, scenarios: 'arena', seed: 1, run: 'R1', speak: 'held' }),
    ).rejects.toThrow(/\(field "speak"\)/);
    await expect(call('studies/estimate', { studyId: 'S1', speak: 'held' })).rejects.toThrow(/studies\/estimate: .*\(field "speak"\)/);
    await expect(call('studies/estimate', { studyId: 'S1', speak: 'train', scenarios: 'heldout' })).rejects.toThrow(
      /studies\/estimate: .*\(field "scenarios"\)/,
    );
    await expect(call('studies/estimate', { studyId: 'S1', speak: 'train' })).rejects.toThrow(/S1/);
    await expect(call('studies/caPolicy', { studyId: 'S1', arm: '' })).rejects.toThrow(/studies\/caPolicy: .*\(field "arm"\)/);
    await expect(call('studies/caPolicy', { studyId: 'S1' })).rejects.toThrow(/S1/);
    // A study started with an estimate its runs cannot give (the quick preset keeps no validation slice) is not created.
    await expect(call('studies/start', { preset: 'quick', seeds: 1, arms: ['full'], estimate: 'held' })).rejects.toThrow(
      /studies\/start: .*\(field "estimate"\)/,
    );
    await expect(call('studies/start', { preset: 'quick', seeds: 1, arms: ['full'], estimate: 'validation' })).rejects.toThrow(
      /estimate validation: arm full keeps no validation slice/,
    );
    await expect(call('studies/start', { preset: 'quick', seeds: 1, arms: [] })).rejects.toThrow(/no arm given/);
    // Seeds as text are read as `sparring study --seeds` reads them, refusals in plain words.
    expect(await call('studies/seeds', { text: '11-13' })).toMatchObject({ ok: true, seeds: [11, 12, 13] });
    expect(await call('studies/seeds', { text: '2.5' })).toEqual({ ok: false, problem: expect.stringMatching(/^Seeds must be a count/) as string });
    await expect(call('studies/start', { preset: 'quick', seeds: '0', arms: ['full'] })).rejects.toThrow(/Seeds must be 1\.\.1000/);
    await expect(call('studies/start', { preset: 'quick', seeds: 2, arms: ['full'], customArms: [{ name: '', overlay: '{}' }] })).rejects.toThrow(
      'studies/start: Custom arm 1 › name must not be empty (field "customArms.0.name")',
    );
    // A custom arm whose DA0 would learn a corpus this lab lacks: refused by arm and field, no study made.
    const corpus = `sha256:${'2'.repeat(64)}`;
    await expect(
      call('studies/start', {
        preset: 'quick',
        seeds: 1,
        arms: ['full'],
        customArms: [{ name: 'b77', overlay: JSON.stringify({ bootstrap: { sft: { corpus } } }) }],
      }),
    ).rejects.toThrow(`arm b77: field bootstrap.sft.corpus: this lab holds no imported corpus whose rows hash to ${corpus}`);
    expect(await call('studies/list', undefined)).toEqual([]);
    await expect(call('episodes/get', undefined)).rejects.toThrow(/episodes\/get/);
    await expect(call('metrics/series', { runId: 'R1', keys: 'gym/kl' })).rejects.toThrow(/\(field "keys"\)/);
    expect(await call('runs/list', undefined)).toEqual([]);
    expect(await call('runs/list', {})).toEqual([]);
  });

  it('reports an unknown policy spec clearly and stores nothing', async () => {
    const play = engine.handlers['matches/play']({ da: 'DA9', ca: 'scripted', episodesPerScenario: 1, scenarios: 'arena', seed: 1 });
    await expect(play).rejects.toThrow(/^DA policy "DA9": no DA checkpoint/);
    // The app asked, not a command line: no CLI option in the message.
    await expect(play).rejects.not.toThrow(/--da/);
    expect((await engine.handlers['matches/list']({})).length).toBe(1);
  });

  it('exports JSONL in the OpenAI chat format with tool calls', async () => {
    const { filename, content } = await engine.handlers['export/episodes']({ matchId, format: 'jsonl' });
    expect(filename).toBe('sparring-M1-episodes.jsonl');
    const lines = content.trimEnd().split('\n');
    expect(lines).toHaveLength(30);
    for (const line of lines) {
      const ex = JSON.parse(line) as ChatExample;
      expect(ex.messages[0]!.role).toBe('system');
      expect(ex.messages[1]!.role).toBe('user');
      expect(ex.tools.map((t) => t.function.name)).toContain('lookup_account');
      const calls = ex.messages.flatMap((m) => (m.role === 'assistant' && m.tool_calls ? m.tool_calls : []));
      const results = ex.messages.filter((m) => m.role === 'tool');
      expect(results.map((m) => (m as { tool_call_id: string }).tool_call_id)).toEqual(calls.map((c) => c.id));
      // The trained form: arguments are objects (a chat template encodes them once).
      for (const c of calls) expect(typeof c.function.arguments).toBe('object');
      expect(ex.metadata.matchId).toBe(matchId);
    }
    const first = JSON.parse(lines[0]!) as ChatExample;
    const stored = await engine.handlers['episodes/get']({ id: first.metadata.episodeId });
    expect(first.metadata.rDa).toBe(stored.rDa);
    const firstCall = first.messages.find((m) => m.role === 'assistant' && m.tool_calls);
    expect(firstCall && 'tool_calls' in firstCall && firstCall.tool_calls?.[0]?.function.name).toBe('lookup_account');
    // Every agent turn became exactly one assistant message.
    expect(first.messages.filter((m) => m.role === 'assistant')).toHaveLength(stored.turns.filter((t) => t.role === 'agent').length);
  });

  it('exports CSV with one row per episode and every reward term', async () => {
    const { filename, content } = await engine.handlers['export/episodes']({ format: 'csv' });
    expect(filename).toBe('sparring-all-episodes.csv');
    const rows = parseCsv<Record<string, string>>(content, { columns: true });
    expect(rows).toHaveLength(30);
    for (const t of DA_TERMS) expect(rows[0]).toHaveProperty(`da_${t}`);
    for (const t of CA_TERMS) expect(rows[0]).toHaveProperty(`ca_${t}`);
    const e = await engine.handlers['episodes/get']({ id: rows[3]!.episode_id! });
    expect(Number(rows[3]!.r_da)).toBeCloseTo(e.rDa, 10);
    expect(Number(rows[3]!.da_tool)).toBeCloseTo(e.daTerms.tool, 10);
    expect(rows[3]!.judge_rationale).toBe(e.judge.rationale);
    await expect(engine.handlers['export/episodes']({ matchId: 'M404', format: 'csv' })).rejects.toThrow(/no match, run or study "M404"/);
  });

  it('lists the imported corpora with the hash a run config names them by', async () => {
    expect(await engine.handlers['corpora/list'](undefined)).toEqual([]);
    const lab = openSqliteStore(path.join(tmp, 'lab.db'));
    const rows = [{ line: 2, intent: 'card_arrival', text: 'Where is my card?' }];
    try {
      saveCorpusImport(lab.db, 'banking77', '/data/train.csv', rows, 1);
    } finally {
      lab.close();
    }
    expect(await engine.handlers['corpora/list'](undefined)).toEqual([
      { id: 1, source: 'banking77', file: '/data/train.csv', importedAt: expect.any(String), rows: 1, hash: corpusHash(rows) },
    ]);
  });

  it('says when runs are unavailable, and refuses to start one', async () => {
    const info = await engine.handlers['engine/info'](undefined);
    expect(info.runsUnavailable).toBe(RUNS_UNAVAILABLE);
    expect(info.policies.da).toContain('scripted');
    expect(info.dbPath).toBe(path.join(tmp, 'lab.db'));
    await expect(engine.handlers['runs/start']({ preset: 'quick' })).rejects.toThrow(/runs are not available in this build/);
    expect(await engine.handlers['presets/list'](undefined)).toEqual([]);
    expect(await engine.handlers['checkpoints/list'](undefined)).toEqual([]);
  });
});

describe('runs through the RunService', () => {
  function fakeRunService() {
    const listeners = new Set<(e: EngineEvent) => void>();
    const calls: string[] = [];
    const svc: RunService = {
      presets: () => [{ name: 'quick', description: 'small', configJson: '{}' }],
      start: async (a) => (calls.push(`start ${a.preset} ${a.seed}`), { runId: 'R1' }),
      pause: (id) => void calls.push(`pause ${id}`),
      resume: async (id) => void calls.push(`resume ${id}`),
      stop: (id) => void calls.push(`stop ${id}`),
      list: () => [],
      get: (runId) => {
        if (runId !== 'R1') throw new Error(`no run "${runId}"`);
        return {
          id: 'R1',
          createdAt: '2026-01-01T00:00:00Z',
          status: 'running',
          phase: 'match',
          preset: 'quick',
          seed: 1,
          matches: 0,
          lastWDa: null,
          error: null,
          live: true,
          pauseRequested: false,
          configJson: '{}',
          stopping: DEFAULT_CONFIG.stopping,
          matchSummaries: [],
          gyms: [],
          progress: null,
          evaluation: null,
          heldout: null,
        };
      },
      metrics: (_id, keys) => Object.fromEntries(keys.map((k) => [k, [{ step: 1, value: 0.5 }]])),
      subscribe: (l) => (listeners.add(l), () => listeners.delete(l)),
    };
    return { svc, calls, emit: (e: EngineEvent) => listeners.forEach((l) => l(e)) };
  }

  it('delegates commands and queries, and forwards events with metrics batched', async () => {
    const fake = fakeRunService();
    const engine = createEngine({ dbPath: path.join(tmp, 'runs.db'), runService: fake.svc, batchIntervalMs: 50 });
    const got: EngineEvent[] = [];
    engine.subscribe((e) => got.push(e));
    try {
      expect(await engine.handlers['runs/start']({ preset: 'quick', seed: 3 })).toEqual({ runId: 'R1' });
      await engine.handlers['runs/pause']({ runId: 'R1' });
      await engine.handlers['runs/resume']({ runId: 'R1' });
      await engine.handlers['runs/stop']({ runId: 'R1' });
      expect(fake.calls).toEqual(['start quick 3', 'pause R1', 'resume R1', 'stop R1']);
      expect((await engine.handlers['presets/list'](undefined))[0]!.name).toBe('quick');
      expect((await engine.handlers['engine/info'](undefined)).runsUnavailable).toBeNull();
      expect(await engine.handlers['metrics/series']({ runId: 'R1', keys: ['gym/kl'] })).toEqual({ 'gym/kl': [{ step: 1, value: 0.5 }] });
      expect(await engine.handlers['matches/list']({ runId: 'R1' })).toEqual([]);
      await expect(engine.handlers['runs/get']({ runId: 'R2' })).rejects.toThrow(/no run "R2"/);

      for (let step = 0; step < 200; step++) fake.emit({ name: 'run/metrics', payload: { runId: 'R1', points: [{ key: 'gym/kl', step, value: step / 200 }] } });
      fake.emit({ name: 'run/status', payload: { runId: 'R1', status: 'paused', phase: 'paused', pauseRequested: false } });
      const metrics = got.filter((e) => e.name === 'run/metrics');
      expect(metrics.length).toBeLessThanOrEqual(2);
      expect(metrics.flatMap((e) => (e.name === 'run/metrics' ? e.payload.points : [])).map((p) => p.step)).toEqual([...Array(200).keys()]);
      // A status event goes out after the metrics that came before it.
      expect(got.at(-1)!.name).toBe('run/status');
    } finally {
      engine.close();
    }
  });
});

describe('session (wire messages)', () => {
  it('answers requests, reports bad envelopes and forwards events', async () => {
    const engine = createEngine({ dbPath: path.join(tmp, 'session.db'), runService: unavailableRunService(), batchIntervalMs: 10 });
    const sent: ServerMessage[] = [];
    const session = createSession(engine, (m) => sent.push(m));
    try {
      await session.receive({ kind: 'request', id: 1, name: 'episodes/list', args: { limit: 5 } });
      expect(sent.at(-1)).toEqual({ kind: 'response', id: 1, ok: true, result: { total: 0, items: [] } });
      await session.receive({ kind: 'request', id: 2, name: 'rm -rf', args: {} });
      expect(sent.at(-1)).toMatchObject({ id: 2, ok: false, error: expect.stringMatching(/unknown request/) });
      await session.receive({ kind: 'request', id: 3, name: 'toString', args: {} });
      expect(sent.at(-1)).toMatchObject({ id: 3, ok: false, error: expect.stringMatching(/unknown request/) });
      await session.receive('hello');
      expect(sent.at(-1)).toMatchObject({ id: -1, ok: false });
      await session.receive({ kind: 'request', id: 4, name: 'episodes/list', args: { limit: -1 } });
      expect(sent.at(-1)).toMatchObject({ id: 4, ok: false, error: expect.stringMatching(/\(field "limit"\)/) });
      await session.receive({
        kind: 'request',
        id: 5,
        name: 'matches/play',
        args: { da: 'scripted', ca: 'scripted', episodesPerScenario: 1, scenarios: 'fraud', seed: 2 },
      });
      expect(sent.at(-1)).toEqual({ kind: 'response', id: 5, ok: true, result: { matchId: 'M1' } });
      expect(sent.some((m) => m.kind === 'event' && m.name === 'episodes/completed')).toBe(true);
      session.close();
      const n = sent.length;
      await engine.handlers['matches/play']({ da: 'scripted', ca: 'scripted', episodesPerScenario: 1, scenarios: 'fraud', seed: 3 });
      expect(sent.length).toBe(n);
    } finally {
      engine.close();
    }
  });
});

describe('episodes/list paging over several matches', () => {
  it('pages in the store order at any offset, with every filter, totals included', async () => {
    const db = path.join(tmp, 'paging.db');
    const engine = createEngine({ dbPath: db, runService: unavailableRunService() });
    try {
      for (const seed of [3, 4, 5]) await engine.handlers['matches/play']({ da: 'scripted', ca: 'scripted', episodesPerScenario: 2, scenarios: 'arena', seed });
      const store = openSqliteStore(db);
      const all = store.listEpisodes({ limit: 500 });
      store.close();
      expect(all).toHaveLength(60);
      const filters = [{}, { winner: 'CA' as const }, { resolved: false }, { hallucination: false, winner: 'DA' as const }, { scenarioId: all[0]!.scenarioId }];
      for (const f of filters) {
        const expected = all.filter(
          (e) =>
            (f.winner === undefined || e.winner === f.winner) &&
            (!('resolved' in f) || e.judge.resolved === f.resolved) &&
            (!('hallucination' in f) || e.judge.hallucination === f.hallucination) &&
            (!('scenarioId' in f) || e.scenarioId === f.scenarioId),
        );
        const ids: string[] = [];
        for (let offset = 0; offset < 70; offset += 7) {
          const page = await engine.handlers['episodes/list']({ ...f, offset, limit: 7 });
          expect(page.total).toBe(expected.length);
          ids.push(...page.items.map((e) => e.id));
        }
        expect(ids).toEqual(expected.map((e) => e.id));
      }
      // A new match is seen at once (the cached directories are per lab version).
      await engine.handlers['matches/play']({ da: 'scripted', ca: 'scripted', episodesPerScenario: 1, scenarios: 'arena', seed: 6 });
      expect((await engine.handlers['episodes/list']({ offset: 60, limit: 100 })).items.map((e) => e.matchId)).toEqual(Array(10).fill('M4'));
    } finally {
      engine.close();
    }
  });
});

describe('an arena-only study through the engine', () => {
  it('comes without held-out or panel figures unless studies/get asks for them', async () => {
    const dbPath = path.join(tmp, 'arena-only.db');
    const engine = createEngine({ dbPath, runService: unavailableRunService() });
    try {
      // Made as `sparring study --arena-only` makes it (no run needs to play for the tables' shape).
      const lab = openSqliteStore(dbPath);
      const base = PRESETS.quick.config;
      for (const arenaOnly of [true, false]) studyStore(lab.db).create({ preset: 'quick', base, arms: ['full'], seeds: [1], configOf: () => base, arenaOnly });
      lab.close();
      const keys = (d: StudyDetail) => Object.keys(d.summary.arms[0]!.measures);
      const heldoutKeys = (d: StudyDetail) => keys(d).filter((k) => /^(final|da0|gain|panel)\./.test(k));
      const hidden = await engine.handlers['studies/get']({ studyId: 'S1' });
      expect(hidden).toMatchObject({ arenaOnly: true, heldoutHidden: true });
      expect(heldoutKeys(hidden)).toEqual([]);
      expect(keys(hidden)).toContain('daGyms');
      const asked = await engine.handlers['studies/get']({ studyId: 'S1', heldout: true });
      expect(asked).toMatchObject({ arenaOnly: true, heldoutHidden: false });
      expect(heldoutKeys(asked)).toContain('final.routing');
      // Any other study carries them whatever is asked.
      const other = await engine.handlers['studies/get']({ studyId: 'S2' });
      expect(other).toMatchObject({ arenaOnly: false, heldoutHidden: false });
      expect(heldoutKeys(other)).toContain('gain.strictPass');
      const list = await engine.handlers['studies/list'](undefined);
      expect(list.map((s) => [s.id, s.arenaOnly])).toEqual([
        ['S1', true],
        ['S2', false],
      ]);
      expect(list[0]).not.toHaveProperty('heldoutHidden');
      const get = engine.handlers['studies/get'] as (a: unknown) => unknown;
      await expect(Promise.resolve().then(() => get({ studyId: 'S1', heldout: 'yes' }))).rejects.toThrow(/studies\/get: .*\(field "heldout"\)/);
    } finally {
      engine.close();
    }
  });
});
