/**
 * The app's side of LLM endpoints: an endpoint saved in the lab is offered as a DA and CA policy,
 * an Arena match played with it stores its calls in the match's transaction, and the transcript
 * view's episode carries what its calls cost (calls, tokens, latency).
 */
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BuiltinDa } from '../../models/builtin-da';
import { ggufUnavailable } from '../../models/llm/gguf-backend';
import { writeTinyGguf } from '../../models/llm/tiny-gguf';
import { DaModel } from '../../models/da-model';
import { bankingDomain } from '../domain-files';
import { serveModel } from '../llm/serve-model';
import type { ServedModel } from '../llm/serve-model';
import { llmStore } from '../store/llm-store';
import { openSqliteStore } from '../store/sqlite-store';
import { createEngine } from './engine';
import type { Engine } from './engine';
import { unavailableRunService } from './runs-unavailable';

// Skipped only where node-llama-cpp's prebuilt binary cannot load on this platform.
const ggufUnavailableReason = await ggufUnavailable('cpu');

const tmp = mkdtempSync(path.join(os.tmpdir(), 'sparring-llm-engine-'));
const db = path.join(tmp, 'lab.db');
let model: DaModel;
let served: ServedModel;
let engine: Engine;

beforeAll(async () => {
  const domain = bankingDomain();
  model = await DaModel.create({ intents: domain.taxonomy.map((e) => ({ intent: e.intent, tool: e.tool })), seed: 3 });
  served = await serveModel({ da: new BuiltinDa(model), modelId: 'DA0', token: null });
  const store = openSqliteStore(db);
  llmStore(store.db).addEndpoint({ name: 'local', baseUrl: served.baseUrl, model: 'DA0', apiKeyEnv: null, toolCalls: 'native', maxConcurrency: 3 });
  store.close();
  engine = createEngine({ dbPath: db, runService: unavailableRunService(), batchIntervalMs: 100 });
}, 120_000);
afterAll(async () => {
  engine.close();
  await served.close();
  await model.dispose();
});

describe('engine with an LLM endpoint', () => {
  it("offers the endpoint for both roles, plays a match through it and shows each episode's LLM cost", async () => {
    const info = await engine.handlers['engine/info'](undefined);
    expect(info.policies.da).toContain('local');
    expect(info.policies.ca).toContain('local');
    const { matchId } = await engine.handlers['matches/play']({ da: 'local', ca: 'scripted', episodesPerScenario: 1, scenarios: 'arena', seed: 2 });
    expect(served.stats.peakInFlight).toBeLessThanOrEqual(3);
    const e = await engine.handlers['episodes/get']({ id: `${matchId}:0` });
    const agentTurns = e.turns.filter((t) => t.role === 'agent').length;
    expect(e.llm).toMatchObject({ calls: agentTurns, cached: 0 });
    expect(e.llm!.tokensIn).toBeGreaterThan(0);
    expect(e.llm!.latencyMs).toBeGreaterThan(0);
    // The match row carries the sum over its episodes.
    const row = (await engine.handlers['matches/list']({})).find((m) => m.id === matchId)!;
    const episodes = await engine.handlers['episodes/list']({ matchId, limit: 500 });
    let calls = 0;
    for (const s of episodes.items) calls += (await engine.handlers['episodes/get']({ id: s.id })).llm?.calls ?? 0;
    expect(row.llm).toMatchObject({ calls, cached: 0 });
    expect(row.llm!.tokensOut).toBeGreaterThan(e.llm!.tokensOut);
  }, 120_000);

  it('a person playing the customer against the LLM DA: its calls are stored with the human episode, one per agent turn', async () => {
    const h = engine.handlers;
    let v = await h['play/start']({ seat: 'customer', player: 'Ada', opponent: 'local', scenarioId: 'dispute-unrecognized', seed: 5 });
    const lines = [`Hi, there is a charge from ${v.customer!.facts.merchant} I do not recognise`, 'Yes, please go ahead', 'Thanks'];
    for (let i = 0; v.status === 'playing' && i < 12; i++) {
      v = await h['play/act']({ sessionId: v.sessionId, action: { kind: 'say', text: lines[Math.min(i, lines.length - 1)]! } });
    }
    expect(v.status).toBe('finished');
    const e = await h['episodes/get']({ id: v.episode!.id });
    const agentTurns = e.turns.filter((t) => t.role === 'agent').length;
    expect(agentTurns).toBeGreaterThan(0);
    expect(e.llm).toMatchObject({ calls: agentTurns });
    // Each call names its turn in the stored episode, and none is left unlinked.
    const store = openSqliteStore(db);
    try {
      const rows = store.db.prepare('SELECT episode_id AS episodeId, turn, role FROM llm_calls WHERE episode_id = ? ORDER BY turn').all(e.id) as {
        episodeId: string;
        turn: number;
        role: string;
      }[];
      expect(rows.map((r) => r.turn)).toEqual(e.turns.flatMap((t, i) => (t.role === 'agent' ? [i] : [])));
      expect(new Set(rows.map((r) => r.role))).toEqual(new Set(['DA']));
      expect(store.db.prepare('SELECT count(*) FROM llm_calls WHERE episode_id IS NULL OR episode_id = ?').pluck().get(v.sessionId)).toBe(0);
    } finally {
      store.close();
    }
  }, 120_000);

  it("Models: adds an endpoint (checked field by field), tests it, lists its server's models and removes it", async () => {
    const h = engine.handlers;
    await expect(h['models/add']({ name: 'DA7', baseUrl: served.baseUrl, model: 'DA0', toolCalls: 'text', maxConcurrency: 2 })).rejects.toThrow(
      /looks like a checkpoint name/,
    );
    await expect(h['models/add']({ name: 'second', baseUrl: 'ftp://x', model: 'DA0', toolCalls: 'text', maxConcurrency: 2 })).rejects.toThrow(
      /base URL must be http\(s\)/,
    );
    await expect(
      h['models/add']({ name: 'second', baseUrl: served.baseUrl, model: 'DA0', apiKeyEnv: 'not a var', toolCalls: 'text', maxConcurrency: 2 }),
    ).rejects.toThrow(/API key variable/);
    const added = await h['models/add']({
      name: 'second',
      baseUrl: `${served.baseUrl}/`,
      model: 'DA0',
      apiKeyEnv: 'SPARRING_TEST_MODELS_KEY',
      toolCalls: 'text',
      maxConcurrency: 2,
    });
    expect(added).toEqual({
      name: 'second',
      kind: 'endpoint',
      model: 'DA0',
      baseUrl: served.baseUrl,
      apiKeyEnv: 'SPARRING_TEST_MODELS_KEY',
      apiKeySet: false,
      toolCalls: 'text',
      maxConcurrency: 2,
    });
    expect((await h['models/list'](undefined)).map((m) => m.name)).toEqual(['local', 'second']);
    await expect(h['models/test']({ name: 'second' })).rejects.toThrow(/SPARRING_TEST_MODELS_KEY \(--api-key-env\) is not set/);
    process.env.SPARRING_TEST_MODELS_KEY = 'any';
    expect((await h['models/list'](undefined)).find((m) => m.name === 'second')!.apiKeySet).toBe(true);
    expect((await h['engine/info'](undefined)).policies.ca).toContain('second');

    const t = await h['models/test']({ name: 'second' });
    expect(t).toMatchObject({ endpoint: 'second', model: 'DA0', parseError: null, serverModels: ['DA0'] });
    expect(t.parsed!.action_type).toMatch(/^(speak|tool_call|end_call)$/);
    expect(t.tokensIn).toBeGreaterThan(0);
    expect(t.latencyMs).toBeGreaterThan(0);
    expect(t.tokensPerS).toBeGreaterThan(0);
    expect(await h['models/server-models']({ name: 'local' })).toEqual({ models: ['DA0'] });

    await h['models/remove']({ name: 'second' });
    await expect(h['models/remove']({ name: 'second' })).rejects.toThrow(/no model "second"/);
    expect((await h['engine/info'](undefined)).policies.da).not.toContain('second');
  }, 60_000);

  it('Models: a server that is down is a failed test naming the endpoint, its URL and the cause, and nothing changes', async () => {
    const h = engine.handlers;
    await h['models/add']({ name: 'gone', baseUrl: 'http://127.0.0.1:9/v1', model: 'x', toolCalls: 'native', maxConcurrency: 1 });
    await expect(h['models/test']({ name: 'gone' })).rejects.toThrow(
      /^models\/test: endpoint "gone" at http:\/\/127\.0\.0\.1:9\/v1: connection .*\(bad port\)$/,
    );
    expect((await h['models/list'](undefined)).map((m) => m.name)).toContain('gone');
    await h['models/remove']({ name: 'gone' });
  }, 60_000);

  it.skipIf(ggufUnavailableReason !== null)(
    'Models: saves a local GGUF file (hashed, its settings checked), lists it, tests a DA turn through it, removes it',
    async () => {
      const h = engine.handlers;
      const file = path.join(tmp, 'tiny.gguf');
      writeTinyGguf(file, { contextLength: 8192 });
      await expect(h['models/add-gguf']({ name: 'tiny', file: path.join(tmp, 'missing.gguf') })).rejects.toThrow(
        /^models\/add-gguf: no such file .*missing\.gguf/,
      );
      await expect(h['models/add-gguf']({ name: 'tiny', file, sequences: 65 })).rejects.toThrow(
        /^models\/add-gguf: sequences must be a whole number from 1 to 64, got 65/,
      );
      await expect(h['models/add-gguf']({ name: 'tiny', file, contextSize: 10 })).rejects.toThrow(/context size/);
      await expect(h['models/add-gguf']({ name: 'tiny', file, gpu: 'rocm' as never })).rejects.toThrow(/\(field "gpu"\)/);
      await expect(h['models/add-gguf']({ name: 'local', file })).rejects.toThrow(/exists already/);
      const added = await h['models/add-gguf']({ name: 'tiny', file, gpu: 'cpu', contextSize: 4096, threads: 1, sequences: 2 });
      expect(added).toMatchObject({
        name: 'tiny',
        kind: 'gguf',
        file,
        toolCalls: 'text',
        maxConcurrency: 2,
        gguf: { gpu: 'cpu', contextSize: 4096, threads: 1 },
      });
      expect(added.model).toMatch(/^tiny\.gguf@sha256:[0-9a-f]{16}$/);
      expect(added.gguf!.sha256).toMatch(/^[0-9a-f]{64}$/);
      expect((await h['models/list'](undefined)).find((m) => m.name === 'tiny')).toEqual(added);
      // Saved by name, it is a policy for either seat at once.
      const { policies } = await h['engine/info'](undefined);
      expect(policies.da).toContain('tiny');
      expect(policies.ca).toContain('tiny');
      const t = await h['models/test']({ name: 'tiny' });
      expect(t.model).toBe(added.model);
      expect(t.parsed).not.toBeNull();
      expect(t.serverModels).toMatch(/no server/);
      await expect(h['models/server-models']({ name: 'tiny' })).rejects.toThrow(/local GGUF file/);
      await h['models/remove']({ name: 'tiny' });
      expect((await h['models/list'](undefined)).map((m) => m.name)).not.toContain('tiny');
    },
    120_000,
  );
});
