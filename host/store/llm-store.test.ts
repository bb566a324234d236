/**
 * The LLM migration and store: endpoints by name (never a key), call records linked to episode
 * and turn, the response cache, and totals per episode and per match.
 */
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { PendingLedger } from '../../models/llm/ledger';
import type { EndpointConfig } from '../../models/llm/openai-backend';
import { fileSha256 } from '../../models/llm/gguf-backend';
import type { GgufConfig } from '../../models/llm/gguf-backend';
import { applyMigrations, LATEST_VERSION, MIGRATIONS, userVersion } from './migrations';
import { EndpointError, llmStore } from './llm-store';

const version = MIGRATIONS.findIndex((m) => m.name === 'LLM endpoints, call records and the response cache') + 1;
const cfg: EndpointConfig = {
  name: 'local',
  baseUrl: 'http://127.0.0.1:8000/v1',
  model: 'Qwen/Qwen2.5-7B-Instruct',
  apiKeyEnv: 'VLLM_KEY',
  toolCalls: 'native',
  maxConcurrency: 8,
};

/** A lab at `target` (default: the latest), having passed through the LLM migration. */
function migrated(target = LATEST_VERSION) {
  const db = new Database(':memory:');
  db.pragma('foreign_keys = ON');
  applyMigrations(db, version - 1);
  expect(applyMigrations(db, version)).toBe(version);
  applyMigrations(db, target);
  return db;
}

const ggufVersion = MIGRATIONS.findIndex((m) => m.name === 'local GGUF models saved by name') + 1;
const gguf: GgufConfig = {
  name: 'qwen3b-local',
  path: '/models/qwen2.5-3b-instruct-q4_k_m.gguf',
  sha256: 'a'.repeat(64),
  gpu: 'auto',
  contextSize: 8192,
  threads: 0,
};

describe('the LLM migration', () => {
  it('adds endpoints, call records and the cache, and checks their values', () => {
    const db = migrated(version);
    expect(userVersion(db)).toBe(version);
    const tables = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE 'llm_%' ORDER BY name").pluck().all();
    expect(tables).toEqual(['llm_cache', 'llm_calls', 'llm_endpoints']);
    expect(() => db.prepare("INSERT INTO llm_endpoints VALUES ('x', 'u', 'm', NULL, 'xml', 1, 't')").run()).toThrow(/CHECK/);
    expect(() => db.prepare("INSERT INTO llm_endpoints VALUES ('x', 'u', 'm', NULL, 'text', 0, 't')").run()).toThrow(/CHECK/);
    db.close();
  });
});

describe('the GGUF migration', () => {
  it('adds local GGUF models by name and checks their values', () => {
    const db = new Database(':memory:');
    applyMigrations(db, ggufVersion - 1);
    expect(applyMigrations(db, ggufVersion)).toBe(ggufVersion);
    const row = (over: string) => `INSERT INTO llm_gguf_models VALUES (${over})`;
    db.prepare(row(`'a', '/m.gguf', '${'f'.repeat(64)}', 'cpu', 4096, 1, 't'`)).run();
    expect(() => db.prepare(row(`'b', '/m.gguf', 'short', 'cpu', 4096, 1, 't'`)).run()).toThrow(/CHECK/);
    expect(() => db.prepare(row(`'b', '/m.gguf', '${'f'.repeat(64)}', 'rocm', 4096, 1, 't'`)).run()).toThrow(/CHECK/);
    expect(() => db.prepare(row(`'b', '/m.gguf', '${'f'.repeat(64)}', 'cpu', 16, 1, 't'`)).run()).toThrow(/CHECK/);
    db.close();
  });
});

describe('llmStore', () => {
  it('saves GGUF models beside endpoints, in one namespace; removing one removes its cached answers', async () => {
    const llm = llmStore(migrated());
    llm.addGguf(gguf, '2026-01-01');
    expect(llm.getGguf('qwen3b-local')).toEqual(gguf);
    expect(llm.listGguf()).toEqual([gguf]);
    expect(llm.getEndpoint('qwen3b-local')).toBeUndefined();
    expect(() => llm.addEndpoint({ ...cfg, name: 'qwen3b-local' })).toThrow(/exists already/);
    llm.addEndpoint(cfg);
    expect(() => llm.addGguf({ ...gguf, name: 'local' })).toThrow(/exists already/);
    expect(() => llm.addGguf({ ...gguf, name: 'DA3' })).toThrow(/looks like a checkpoint/);
    expect(llm.removeEndpoint('qwen3b-local')).toBe(true);
    expect(llm.getGguf('qwen3b-local')).toBeUndefined();
    expect(llm.getEndpoint('local')).toEqual(cfg);
    // The hash the lab keeps is the file's.
    expect(await fileSha256(new URL(import.meta.url).pathname)).toMatch(/^[0-9a-f]{64}$/);
  });

  it('saves, lists and removes endpoints; refuses names that shadow a SPEC or a checkpoint', () => {
    const llm = llmStore(migrated());
    llm.addEndpoint(cfg, '2026-01-01');
    expect(llm.getEndpoint('local')).toEqual(cfg);
    expect(() => llm.addEndpoint(cfg)).toThrow(/exists already/);
    for (const name of ['latest', 'scripted', 'DA2', 'CA-sft-1', '9x', 'a b']) expect(() => llm.addEndpoint({ ...cfg, name })).toThrow(EndpointError);
    llm.addEndpoint({ ...cfg, name: 'ollama', apiKeyEnv: null, toolCalls: 'text' });
    expect(llm.listEndpoints().map((e) => e.name)).toEqual(['local', 'ollama']);
    expect(llm.removeEndpoint('local')).toBe(true);
    expect(llm.removeEndpoint('local')).toBe(false);
  });

  it('writes a ledger: one row per call with its episode and turn, answers in the cache, totals by episode and match', () => {
    const db = migrated();
    const llm = llmStore(db);
    const ledger = new PendingLedger((k) => llm.cachedAnswer(k));
    const answer = { text: 'hi', toolCalls: [], tokensIn: 100, tokensOut: 7, latencyMs: 250, model: 'q', finishReason: 'stop' };
    const rec = (episodeId: string, turn: number, key: string, cached = false) => ({
      endpoint: 'local',
      model: 'q',
      site: { episodeId, turn, role: 'DA' as const },
      requestKey: key,
      params: { temperature: 0, max_tokens: 512, tools: 8, responseSchema: false },
      seed: 42,
      latencyMs: cached ? 0 : 250,
      tokensIn: 100,
      tokensOut: 7,
      cached,
      finishReason: 'stop',
    });
    ledger.record(rec('M1:0', 1, 'k1'), answer);
    ledger.record(rec('M1:0', 3, 'k2'), answer);
    ledger.record(rec('M1:1', 1, 'k1', true), { ...answer, cached: true });
    ledger.record(rec('M10:0', 1, 'k3'), answer);
    llm.writeLedger(ledger, 't');
    expect(llm.cachedAnswer('k1')).toEqual(answer);
    expect(llm.callTotals('M1:0')).toEqual({ calls: 2, cached: 0, tokensIn: 200, tokensOut: 14, latencyMs: 500 });
    // M1's episodes, not M10's.
    expect(llm.callTotals('M1', true)).toEqual({ calls: 3, cached: 1, tokensIn: 300, tokensOut: 21, latencyMs: 500 });
    const row = db.prepare("SELECT episode_id, turn, role, seed, params_json FROM llm_calls WHERE request_key = 'k2'").get();
    expect(row).toEqual({
      episode_id: 'M1:0',
      turn: 3,
      role: 'DA',
      seed: 42,
      params_json: '{"temperature":0,"max_tokens":512,"tools":8,"responseSchema":false}',
    });
  });
});
