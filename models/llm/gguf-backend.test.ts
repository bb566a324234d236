import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ScriptedCa } from '../../core/agents/scripted-ca';
import { runEpisode } from '../../core/arena/match';
import { DEFAULT_CONFIG } from '../../core/config';
import { judgeEpisode } from '../../core/judge/judge';
import { parseDaOutput } from '../../core/wire';
import { bankingDomain } from '../../test/support/banking-domain';
import { DA_GRAMMAR_MAX_TOKENS, DA_WIRE_SCHEMA, daMessages } from './da-messages';
import { GgufBackend, ggufConfigOf, ggufUnavailable, historyOf } from './gguf-backend';
import { PendingLedger, requestKey } from './ledger';
import { LlmCa } from './llm-ca';
import { LlmDa } from './llm-da';
import { writeTinyGguf } from './tiny-gguf';

// Skipped only where node-llama-cpp's prebuilt binary cannot load on this platform; the reason is printed.
const unavailable = await ggufUnavailable('cpu');
if (unavailable) console.warn(`gguf-backend.test.ts skipped: ${unavailable}`);

const domain = bankingDomain();
let dir: string;
let file: string;
let backend: GgufBackend;

beforeAll(async () => {
  if (unavailable) return;
  dir = mkdtempSync(path.join(os.tmpdir(), 'sparring-gguf-'));
  file = path.join(dir, 'tiny.gguf');
  writeTinyGguf(file, { contextLength: 32768 });
  // One thread: the tiny model gains nothing from more, and a busy machine's spinning threads cost seconds per token.
  backend = await GgufBackend.load(await ggufConfigOf(file, { name: 'tiny', gpu: 'cpu', contextSize: 32768, threads: 1 }));
}, 60_000);
afterAll(async () => {
  await backend?.dispose();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe.skipIf(unavailable !== null)('a local GGUF model (tiny random llama, node-llama-cpp)', () => {
  it('plays a full DA episode whose every turn parses: the grammar holds even though the text is nonsense', async () => {
    const ledger = new PendingLedger(() => undefined);
    const da = new LlmDa(backend, 'text', { name: 'tiny', ledger, maxTokens: DA_GRAMMAR_MAX_TOKENS });
    const out = await runEpisode({
      domain,
      scenario: domain.scenarios[0]!,
      seed: 3,
      da,
      ca: new ScriptedCa(domain),
      judge: judgeEpisode,
      config: { ...DEFAULT_CONFIG, arena: { ...DEFAULT_CONFIG.arena, maxDaTurns: 4 } },
      matchId: 'M1',
      index: 0,
    });
    const agent = out.transcript.turns.filter((t) => t.role === 'agent');
    expect(agent.length).toBeGreaterThan(0);
    for (const t of agent) {
      expect(t.parseError, t.raw).toBeUndefined();
      expect(parseDaOutput(t.raw).ok).toBe(true);
    }
    // Every call recorded like an endpoint call: the file's hash in the model id, tokens and latency.
    expect(ledger.records).toHaveLength(agent.length);
    for (const r of ledger.records) {
      expect(r.endpoint).toBe('tiny');
      expect(r.model).toMatch(/^tiny\.gguf@sha256:[0-9a-f]{16}$/);
      expect(r.tokensIn).toBeGreaterThan(100);
      expect(r.tokensOut).toBeGreaterThan(0);
      expect(r.latencyMs).toBeGreaterThan(0);
      expect(r.params.responseSchema).toBe(true);
      expect(r.finishReason).toBe('stop');
    }
    expect(backend.gpu).toBe('cpu');
  }, 180_000);

  it('answers the same request with the same text (greedy), and the cache key names the file hash', async () => {
    const obs = { caller: { phone: '+1-555-0100' }, turns: [{ role: 'customer' as const, text: 'My card was declined.' }], daSteps: 0, maxDaTurns: 8 };
    const req = { messages: daMessages(obs, 'text'), temperature: 0, max_tokens: DA_GRAMMAR_MAX_TOKENS, seed: 1, responseSchema: DA_WIRE_SCHEMA };
    const a = await backend.complete(req);
    const b = await backend.complete(req);
    expect(b.text).toBe(a.text);
    expect(parseDaOutput(a.text).ok).toBe(true);
    const other = await GgufBackend.load(await ggufConfigOf(file, { name: 'tiny', gpu: 'cpu', contextSize: 4096, threads: 1 }));
    try {
      expect(requestKey(other, req)).toBe(requestKey(backend, req));
    } finally {
      await other.dispose();
    }
    expect(requestKey({ id: 'tiny', model: 'tiny.gguf@sha256:0000000000000000' }, req)).not.toBe(requestKey(backend, req));
  }, 120_000);

  it('runs as many calls at once as it has context sequences, each answer whole and parsed', async () => {
    const two = await GgufBackend.load(await ggufConfigOf(file, { name: 'tiny', gpu: 'cpu', contextSize: 4096, threads: 1, sequences: 2 }));
    try {
      expect(two.maxConcurrency).toBe(2);
      const texts = ['My card was declined.', 'I want to dispute a charge.', 'Move $200 from savings.', 'Where is my refund?'];
      const reqs = texts.map((text, i) => ({
        messages: daMessages({ caller: { phone: '+1-555-0100' }, turns: [{ role: 'customer' as const, text }], daSteps: 0, maxDaTurns: 8 }, 'text'),
        temperature: 0,
        max_tokens: DA_GRAMMAR_MAX_TOKENS,
        seed: i,
        responseSchema: DA_WIRE_SCHEMA,
      }));
      const out = await Promise.all(reqs.map((r) => two.complete(r)));
      // Two at a time, never more: the other two waited for a free sequence.
      expect(two.peakInFlight).toBe(2);
      for (const r of out) {
        expect(parseDaOutput(r.text).ok, r.text).toBe(true);
        expect(r.finishReason).toBe('stop');
      }
    } finally {
      await two.dispose();
    }
    await expect(GgufBackend.load(await ggufConfigOf(file, { name: 'tiny', gpu: 'cpu', threads: 1, sequences: 0 }))).rejects.toThrow(
      /sequences must be a whole number from 1 to 64, got 0/,
    );
  }, 120_000);

  it('plays the customer too (free text, no grammar)', async () => {
    const ca = new LlmCa(backend, { name: 'tiny', maxTokens: 24 });
    const out = await runEpisode({
      domain,
      scenario: domain.scenarios[1]!,
      seed: 4,
      da: new (await import('../../core/agents/scripted-da')).ScriptedDa(),
      ca,
      judge: judgeEpisode,
      config: { ...DEFAULT_CONFIG, arena: { ...DEFAULT_CONFIG.arena, maxDaTurns: 3 } },
      matchId: 'M1',
      index: 1,
    });
    expect(out.transcript.turns.filter((t) => t.role === 'customer').length).toBeGreaterThan(0);
  }, 120_000);

  it('refuses the native form to a file without a chat template, and a file that changed since it was saved', async () => {
    await expect(
      backend.complete({
        messages: [{ role: 'user', content: 'hi' }],
        temperature: 0,
        max_tokens: 8,
        tools: [{ type: 'function', function: { name: 'speak', description: '', parameters: {} } }],
      }),
    ).rejects.toThrow(/text form/);
    const cfg = await ggufConfigOf(file, { name: 'tiny', gpu: 'cpu', threads: 1 });
    await expect(GgufBackend.load({ ...cfg, sha256: '0'.repeat(64) })).rejects.toThrow(/has changed since it was saved/);
  });
});

describe('historyOf', () => {
  it('maps chat messages to node-llama-cpp history, ending in the model turn to generate', () => {
    expect(
      historyOf([
        { role: 'system', content: 's' },
        { role: 'user', content: 'u' },
        { role: 'assistant', content: 'a' },
        { role: 'tool', tool_call_id: 'c', content: '{}' },
      ]),
    ).toEqual([
      { type: 'system', text: 's' },
      { type: 'user', text: 'u' },
      { type: 'model', response: ['a'] },
      { type: 'user', text: 'TOOL RESULT: {}' },
      { type: 'model', response: [] },
    ]);
  });
});
