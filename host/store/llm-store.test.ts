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
  sequences: 1,
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

  it('gives models saved before context sequences one sequence, and checks the count', () => {
    const db = new Database(':memory:');
    const seqVersion = MIGRATIONS.findIndex((m) => m.name === 'GGUF models: context sequences') + 1;
    applyMigrations(db, seqVersion - 1);
    db.prepare(`INSERT INTO llm_gguf_models VALUES ('a', '/m.gguf', '${'f'.repeat(64)}', 'cpu', 4096, 1, 't')`).run();
    expect(applyMigrations(db, seqVersion)).toBe(seqVersion);
    expect(llmStore(db).getGguf('a')?.sequences).toBe(1);
    expect(() => db.prepare("UPDATE llm_gguf_models SET sequences = 0 WHERE name = 'a'").run()).toThrow(/CHECK/);
    expect(() => db.prepare("UPDATE llm_gguf_models SET sequences = 65 WHERE name = 'a'").run()).toThrow(/CHECK/);
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
    expect(() => llm.addGguf({ ...gguf, name: 'many', sequences: 65 })).toThrow(/sequences must be a whole number from 1 to 64, got 65/);
    expect(() => llm.addGguf({ ...gguf, name: 'small', contextSize: 100 })).toThrow(/context size/);
    llm.addGguf({ ...gguf, name: 'four', sequences: 4 });
    expect(llm.getGguf('four')?.sequences).toBe(4);
    expect(llm.removeEndpoint('qwen3b-local')).toBe(true);
    expect(llm.removeEndpoint('four')).toBe(true);
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

  it("a session's own ledger hands the answers it wrote on, once, and then answers them itself", () => {
    const db = migrated();
    const llm = llmStore(db);
    const shared = new Map<string, unknown>();
    const ledger = new PendingLedger(
      (k) => llm.cachedAnswer(k),
      true,
      (k, a) => shared.set(k, a),
    );
    const answer = { text: 'hi', toolCalls: [], tokensIn: 1, tokensOut: 1, latencyMs: 5, model: 'q', finishReason: 'stop' };
    const site = { episodeId: 'H1:0', turn: 1, role: 'DA' as const };
    const params = { temperature: 0, max_tokens: 8, tools: 0, responseSchema: false };
    ledger.record(
      { endpoint: 'local', model: 'q', site, requestKey: 'k9', params, seed: 1, latencyMs: 5, tokensIn: 1, tokensOut: 1, cached: false, finishReason: 'stop' },
      answer,
    );
    expect(shared.size).toBe(0); // nothing handed on before it is written
    llm.writeLedger(ledger, 't');
    ledger.written();
    expect(shared.get('k9')).toEqual(answer);
    expect(ledger.records).toEqual([]);
    expect(ledger.cached('k9')).toEqual(answer);
  });

  it("records the judge's calls (role judge) on the episode judged, or on none, and gives the judge's share of the totals", () => {
    const db = migrated();
    const llm = llmStore(db);
    const ledger = new PendingLedger((k) => llm.cachedAnswer(k));
    const answer = { text: '{}', toolCalls: [], tokensIn: 900, tokensOut: 40, latencyMs: 300, model: 'q', finishReason: 'stop' };
    const rec = (site: { episodeId: string | null; turn: number | null; role: 'DA' | 'judge' }, key: string, cached = false) => ({
      endpoint: 'local',
      model: 'q',
      site,
      requestKey: key,
      params: { temperature: 0, max_tokens: 512, tools: 0, responseSchema: true },
      seed: 0,
      latencyMs: cached ? 0 : 300,
      tokensIn: 900,
      tokensOut: 40,
      cached,
      finishReason: 'stop',
    });
    ledger.record(rec({ episodeId: 'M1:0', turn: 1, role: 'DA' }, 'd1'), answer);
    ledger.record(rec({ episodeId: 'M1:0', turn: 6, role: 'judge' }, 'j1'), answer);
    ledger.record(rec({ episodeId: 'M1:1', turn: 4, role: 'judge' }, 'j1', true), { ...answer, cached: true });
    ledger.record(rec({ episodeId: null, turn: null, role: 'judge' }, 'j2'), answer); // a gym rollout's
    llm.writeLedger(ledger, 't');
    const judge = { calls: 1, cached: 0, tokensIn: 900, tokensOut: 40, latencyMs: 300 };
    expect(llm.callTotals('M1:0')).toEqual({ calls: 2, cached: 0, tokensIn: 1800, tokensOut: 80, latencyMs: 600, judge });
    expect(llm.callTotals('M1', true)).toEqual({
      calls: 3,
      cached: 1,
      tokensIn: 2700,
      tokensOut: 120,
      latencyMs: 600,
      judge: { calls: 2, cached: 1, tokensIn: 1800, tokensOut: 80, latencyMs: 300 },
    });
    expect(llm.matchCallTotals().get('M1')?.judge?.calls).toBe(2);
    expect(db.prepare("SELECT episode_id, turn FROM llm_calls WHERE role = 'judge' ORDER BY id").all()).toEqual([
      { episode_id: 'M1:0', turn: 6 },
      { episode_id: 'M1:1', turn: 4 },
      { episode_id: null, turn: null },
    ]);
    expect(() =>
      db
        .prepare(
          "INSERT INTO llm_calls (endpoint, model, role, request_key, params_json, latency_ms, tokens_in, tokens_out, cached, finish_reason, created_at) VALUES ('e', 'm', 'critic', 'k', '{}', 0, 0, 0, 0, 's', 't')",
        )
        .run(),
    ).toThrow(/CHECK/);
  });
});

describe('PendingLedger', () => {
  it('answers what it wrote to the lab from memory after written(); what a failed command asked (clear()) is forgotten', () => {
    const ledger = new PendingLedger(() => undefined); // a lab whose cache this process never reads again
    const answer = { text: '{}', toolCalls: [], tokensIn: 1, tokensOut: 1, latencyMs: 1, model: 'q', finishReason: 'stop' };
    const rec = (key: string) => ({
      endpoint: 'e',
      model: 'q',
      site: null,
      requestKey: key,
      params: { temperature: 0, max_tokens: 1, tools: 0, responseSchema: false },
      seed: 0,
      latencyMs: 1,
      tokensIn: 1,
      tokensOut: 1,
      cached: false,
      finishReason: 'stop',
    });
    ledger.record(rec('kept'), answer);
    ledger.written();
    expect(ledger.records).toEqual([]);
    expect(ledger.cached('kept')).toEqual(answer);
    ledger.record(rec('failed'), answer);
    ledger.clear();
    expect(ledger.cached('failed')).toBeUndefined();
    expect(ledger.cached('kept')).toEqual(answer);
    expect(new PendingLedger(() => undefined, false).cached('kept')).toBeUndefined();
  });
});

describe('migration 20', () => {
  it("widens llm_calls' role to the judge, keeping every row and id of a lab written before", () => {
    const v20 = MIGRATIONS.findIndex((m) => m.name === "LLM call records: the judge's calls") + 1;
    const db = migrated(v20 - 1);
    const insert = (role: string) =>
      db
        .prepare(
          "INSERT INTO llm_calls (endpoint, model, episode_id, turn, role, request_key, params_json, seed, latency_ms, tokens_in, tokens_out, cached, finish_reason, created_at) VALUES ('e', 'm', 'M1:0', 1, ?, 'k', '{}', 3, 12.5, 10, 2, 0, 'stop', 't')",
        )
        .run(role);
    insert('DA');
    insert('CA');
    expect(() => insert('judge')).toThrow(/CHECK/);
    const before = db.prepare('SELECT * FROM llm_calls ORDER BY id').all();
    expect(applyMigrations(db, v20)).toBe(v20);
    expect(db.prepare('SELECT * FROM llm_calls ORDER BY id').all()).toEqual(before);
    insert('judge');
    expect(db.prepare("SELECT COUNT(*) FROM llm_calls WHERE role = 'judge'").pluck().get()).toBe(1);
    expect(db.prepare("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'llm_calls'").pluck().all()).toEqual(['llm_calls_episode']);
    db.close();
  });
});
