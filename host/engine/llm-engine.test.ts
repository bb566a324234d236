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
import { DaModel } from '../../models/da-model';
import { bankingDomain } from '../domain-files';
import { serveModel } from '../llm/serve-model';
import type { ServedModel } from '../llm/serve-model';
import { llmStore } from '../store/llm-store';
import { openSqliteStore } from '../store/sqlite-store';
import { createEngine } from './engine';
import type { Engine } from './engine';
import { unavailableRunService } from './runs-unavailable';

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
  it('offers the endpoint for both roles, plays a match through it and shows each episode\'s LLM cost', async () => {
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
  }, 120_000);
});
