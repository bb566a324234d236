/**
 * The LLM migration and store: endpoints by name (never a key), call records linked to episode
 * and turn, the response cache, and totals per episode and per match.
 */
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { PendingLedger } from '../../models/llm/ledger';
import type { EndpointConfig } from '../../models/llm/openai-backend';
import { applyMigrations, MIGRATIONS, userVersion } from './migrations';
import { EndpointError, llmStore } from './llm-store';

const version = MIGRATIONS.findIndex((m) => m.name === 'LLM endpoints, call records and the response cache') + 1;
const cfg: EndpointConfig = { name: 'local', baseUrl: 'http://127.0.0.1:8000/v1', model: 'Qwen/Qwen2.5-7B-Instruct', apiKeyEnv: 'VLLM_KEY', toolCalls: 'native', maxConcurrency: 8 };

function migrated() {
  const db = new Database(':memory:');
  db.pragma('foreign_keys = ON');
  applyMigrations(db, version - 1);
  expect(applyMigrations(db, version)).toBe(version);
  return db;
}

describe('the LLM migration', () => {
  it('adds endpoints, call records and the cache, and checks their values', () => {
    const db = migrated();
    expect(userVersion(db)).toBe(version);
    const tables = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE 'llm_%' ORDER BY name").pluck().all();
    expect(tables).toEqual(['llm_cache', 'llm_calls', 'llm_endpoints']);
    expect(() => db.prepare("INSERT INTO llm_endpoints VALUES ('x', 'u', 'm', NULL, 'xml', 1, 't')").run()).toThrow(/CHECK/);
    expect(() => db.prepare("INSERT INTO llm_endpoints VALUES ('x', 'u', 'm', NULL, 'text', 0, 't')").run()).toThrow(/CHECK/);
    db.close();
  });
});

describe('llmStore', () => {
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
      endpoint: 'local', model: 'q', site: { episodeId, turn, role: 'DA' as const }, requestKey: key,
      params: { temperature: 0, max_tokens: 512, tools: 8, responseSchema: false }, seed: 42, latencyMs: cached ? 0 : 250,
      tokensIn: 100, tokensOut: 7, cached, finishReason: 'stop',
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
    expect(row).toEqual({ episode_id: 'M1:0', turn: 3, role: 'DA', seed: 42, params_json: '{"temperature":0,"max_tokens":512,"tools":8,"responseSchema":false}' });
  });
});
