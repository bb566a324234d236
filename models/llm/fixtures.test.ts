/**
 * Recorded-shape responses of the servers people run (vLLM with the hermes parser, SGLang with
 * qwen25, llama.cpp's server with --jinja, Ollama), each built from the server's source (the
 * fixture names the file and commit), each mapped by the lab's client to the DA turn it stands
 * for. Ollama ignores `n` and `tool_choice`: one choice comes back, and prose instead of a call is
 * an unparseable turn, never repaired.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { DaObservation } from '../../core/world/environment';
import { parseDaOutput } from '../../core/wire';
import type { DaAction } from '../../core/wire';
import { wireFromReply } from './da-messages';
import { LlmDa } from './llm-da';
import { OpenAiBackend } from './openai-backend';

interface Fixture {
  source: { server: string; files: string[]; how: string };
  turn: string;
  request?: { n?: number; tool_choice?: string };
  observation: DaObservation;
  response: unknown;
  expect: { action?: DaAction; parseError?: string; lastMessageRole?: string; tokensIn: number; tokensOut: number };
}

const DIR = path.join(__dirname, 'fixtures');
const fixtures = readdirSync(DIR)
  .filter((f) => f.endsWith('.json'))
  .sort();

describe('server response fixtures', () => {
  it('has one for each server docs/llms.md names', () => {
    expect(fixtures).toEqual(['llamacpp-jinja.json', 'ollama-end-call.json', 'ollama-no-tool-call.json', 'sglang-qwen25.json', 'vllm-qwen25-hermes.json']);
  });

  it.each(fixtures)('%s maps to its DA turn', async (file) => {
    const fx = JSON.parse(readFileSync(path.join(DIR, file), 'utf8')) as Fixture;
    expect(
      fx.source.files.every((f) => /@[0-9a-f]{40} /.test(f) || !f.includes('@')),
      'each source file names its commit',
    ).toBe(true);
    const sent: Record<string, unknown>[] = [];
    const fakeFetch = (async (_url: string, init?: RequestInit) => {
      sent.push(JSON.parse(init?.body as string) as Record<string, unknown>);
      return new Response(JSON.stringify(fx.response), { status: 200, headers: { 'content-type': 'application/json' } });
    }) as typeof fetch;
    const backend = new OpenAiBackend(
      { name: file, baseUrl: 'http://127.0.0.1:9/v1', model: 'qwen', apiKeyEnv: null, toolCalls: 'native', maxConcurrency: 1 },
      { fetch: fakeFetch, maxRetries: 0 },
    );
    const da = new LlmDa(backend, 'native');
    const req = da.request(fx.observation, 1234);
    if (fx.request?.n) req.n = fx.request.n;
    if (fx.expect.lastMessageRole) expect(req.messages.at(-1)!.role).toBe(fx.expect.lastMessageRole);

    const reply = await backend.complete(req);
    const body = sent[0]!;
    expect(body.model).toBe('qwen');
    expect(body.seed).toBe(1234);
    expect((body.tools as { function: { name: string } }[]).map((t) => t.function.name)).toEqual([
      'lookup_account',
      'get_transactions',
      'dispute_charge',
      'check_card_status',
      'transfer_funds',
      'transfer_to_human',
      'speak',
      'end_call',
    ]);
    if (fx.request?.n) expect(body.n).toBe(fx.request.n);
    expect([reply.tokensIn, reply.tokensOut]).toEqual([fx.expect.tokensIn, fx.expect.tokensOut]);

    const parsed = parseDaOutput(wireFromReply(reply, 'native'));
    if (fx.expect.action) {
      if (!parsed.ok) throw new Error(`${file}: ${parsed.error}`);
      expect(parsed.action).toEqual(fx.expect.action);
    } else {
      expect(parsed.ok).toBe(false);
      if (!parsed.ok) expect(parsed.error).toContain(fx.expect.parseError);
    }
  });
});
