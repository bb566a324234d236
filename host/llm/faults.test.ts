/**
 * Faults of an LLM endpoint, each against a real HTTP server scripted to misbehave: a timeout, 429
 * then success, 500, connection refused, malformed tool arguments, an answer with no choices. An
 * infrastructure fault that outlasts the retries fails the match as one transaction: the lab is
 * unchanged (no match, no call record, no cached answer). A malformed answer is the model's: the
 * turn is unparseable, earns the format penalty and the match is stored.
 */
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ScriptedCa } from '../../core/agents/scripted-ca';
import { selectScenarios } from '../../core/arena/scenarios';
import { DEFAULT_CONFIG, withEpisodes } from '../../core/config';
import { judgeEpisode } from '../../core/judge/judge';
import { ChatBackendError } from '../../models/llm/chat-backend';
import { PendingLedger } from '../../models/llm/ledger';
import { LlmDa } from '../../models/llm/llm-da';
import { OpenAiBackend } from '../../models/llm/openai-backend';
import { bankingDomain } from '../domain-files';
import { openSqliteStore } from '../store/sqlite-store';
import { runAndStoreMatch } from './store-match';

const domain = bankingDomain();
const tmp = mkdtempSync(path.join(os.tmpdir(), 'sparring-llm-faults-'));
let server: Server | null = null;
afterEach(async () => {
  server?.closeAllConnections();
  await new Promise((r) => (server ? server.close(r) : r(undefined)));
  server = null;
});

type Reply = { status: number; body?: unknown; headers?: Record<string, string> } | 'hang';

const completion = (message: Record<string, unknown>, finish = 'tool_calls') => ({
  id: 'chatcmpl-1',
  object: 'chat.completion',
  created: 1,
  model: 'm',
  choices: [{ index: 0, message: { role: 'assistant', ...message }, finish_reason: finish }],
  usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 },
});
const endCall = completion({
  content: 'done',
  tool_calls: [{ id: 'c1', type: 'function', function: { name: 'end_call', arguments: '{"message":"Goodbye."}' } }],
});

/** A server answering the n-th request with script[n] (the last entry repeats). */
async function scripted(script: Reply[]): Promise<{ url: string; requests: () => number }> {
  let n = 0;
  server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const r = script[Math.min(n++, script.length - 1)]!;
      if (r === 'hang') return; // never answers: the client's timeout fires
      res.writeHead(r.status, { 'content-type': 'application/json', ...r.headers });
      res.end(JSON.stringify(r.body ?? {}));
    });
  });
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`, requests: () => n };
}

async function play(url: string, opts: { timeoutMs?: number; maxRetries?: number } = {}) {
  const store = openSqliteStore(path.join(tmp, `lab-${Math.random().toString(36).slice(2)}.db`));
  const ledger = new PendingLedger(() => undefined);
  const backend = new OpenAiBackend(
    { name: 'flaky', baseUrl: url, model: 'm', apiKeyEnv: null, toolCalls: 'native', maxConcurrency: 2 },
    { timeoutMs: opts.timeoutMs ?? 2000, maxRetries: opts.maxRetries ?? 2 },
  );
  const counts = () =>
    ['matches', 'episodes', 'llm_calls', 'llm_cache'].map((t) => (store.db.prepare(`SELECT COUNT(*) AS n FROM ${t}`).get() as { n: number }).n);
  const run = () =>
    runAndStoreMatch(
      store,
      {
        matchId: 'M1',
        createdAt: '2026-01-01T00:00:00.000Z',
        domain,
        scenarios: selectScenarios(domain, 'arena').slice(0, 1),
        scenarioSet: 'arena',
        da: new LlmDa(backend, 'native', { ledger }),
        ca: new ScriptedCa(domain),
        judge: judgeEpisode,
        config: withEpisodes(DEFAULT_CONFIG, 2),
        seed: 1,
        concurrency: 2,
      },
      ledger,
    );
  return { store, run, counts };
}

async function expectFailure(p: Promise<unknown>, kind: string) {
  const err = await p.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ChatBackendError);
  expect((err as ChatBackendError).kind).toBe(kind);
  expect((err as Error).message).toMatch(/^endpoint "flaky": /);
  return err as ChatBackendError;
}

describe('LLM endpoint faults', () => {
  it('a timeout, retried, then fails the match: the lab is unchanged', async () => {
    const s = await scripted(['hang']);
    const lab = await play(s.url, { timeoutMs: 150, maxRetries: 1 });
    const err = await expectFailure(lab.run(), 'timeout');
    expect(err.attempts).toBe(2);
    expect(s.requests()).toBeGreaterThanOrEqual(2); // both episodes' first call, each tried twice (some still in flight)
    expect(lab.counts()).toEqual([0, 0, 0, 0]);
    lab.store.close();
  });

  it('429 then success: retried with backoff, the match is stored with one record per call', async () => {
    const s = await scripted([
      { status: 429, body: { error: { message: 'slow down' } }, headers: { 'retry-after-ms': '20' } },
      { status: 200, body: endCall },
    ]);
    const lab = await play(s.url);
    const { episodes } = await lab.run();
    expect(s.requests()).toBe(3); // one 429, then both episodes' end_call
    expect(episodes.map((e) => e.endReason)).toEqual(['end_call', 'end_call']);
    expect(lab.counts()).toEqual([1, 2, 2, 2]); // the match, its episodes, one record per call, each answer cached
    lab.store.close();
  });

  it('500 on every try: fails after the retries, the lab is unchanged', async () => {
    const s = await scripted([{ status: 500, body: { error: { message: 'boom' } }, headers: { 'retry-after-ms': '5' } }]);
    const lab = await play(s.url);
    const err = await expectFailure(lab.run(), 'server_error');
    expect(err.attempts).toBe(3);
    expect(lab.counts()).toEqual([0, 0, 0, 0]);
    lab.store.close();
  });

  it('connection refused: fails after the retries, the lab is unchanged', async () => {
    const s = await scripted([{ status: 200, body: endCall }]);
    server!.closeAllConnections();
    await new Promise((r) => server!.close(r));
    server = null;
    const lab = await play(s.url, { maxRetries: 1 });
    await expectFailure(lab.run(), 'connection');
    expect(lab.counts()).toEqual([0, 0, 0, 0]);
    lab.store.close();
  });

  it('an answer with no choices is a bad response: the match fails, the lab is unchanged', async () => {
    const s = await scripted([{ status: 200, body: { ...endCall, choices: [] } }]);
    const lab = await play(s.url);
    await expectFailure(lab.run(), 'bad_response');
    expect(lab.counts()).toEqual([0, 0, 0, 0]);
    lab.store.close();
  });

  it("malformed tool arguments are the model's fault: an unparseable turn with the format penalty, stored", async () => {
    const bad = completion({
      content: 'verify',
      tool_calls: [{ id: 'c1', type: 'function', function: { name: 'lookup_account', arguments: '{"phone": +1-555' } }],
    });
    const s = await scripted([
      { status: 200, body: bad },
      { status: 200, body: bad },
      { status: 200, body: endCall },
    ]);
    const lab = await play(s.url);
    const { episodes } = await lab.run();
    const firstAgent = episodes.map((e) => e.turns.find((t) => t.role === 'agent')!);
    for (const t of firstAgent) {
      expect(t.parseError).toMatch(/^not valid JSON/);
      expect(t.text).toBe('{"thinking":"verify","action_type":"tool_call","content":"lookup_account","tool_args":{"phone": +1-555}');
      expect(t.rewards.format).toBe(DEFAULT_CONFIG.daReward.formatUnparseable);
    }
    expect(lab.counts()[0]).toBe(1);
    lab.store.close();
  });
});
