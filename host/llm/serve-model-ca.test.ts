/**
 * serve-model for the CA (issue 14, item 4): the messages `LlmCa` sends map back to the exact
 * observation the environment built, and a match whose customer is a builtin CA checkpoint served
 * over HTTP and played through the lab's OpenAI client equals, episode for episode, the same match
 * with the checkpoint in process drawing each utterance from `Rng(seed)` with the per-call seed
 * `LlmCa` sends (one draw from the episode's CA stream).
 */
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CaPolicy } from '../../core/agents/policy';
import { ScriptedDa } from '../../core/agents/scripted-da';
import { runMatch } from '../../core/arena/match';
import { selectScenarios } from '../../core/arena/scenarios';
import { DEFAULT_CONFIG, withEpisodes } from '../../core/config';
import { judgeEpisode } from '../../core/judge/judge';
import { Rng } from '../../core/random';
import type { CaObservation } from '../../core/world/environment';
import { BuiltinCa } from '../../models/builtin-ca';
import { CaModel } from '../../models/ca-model';
import { PendingLedger } from '../../models/llm/ledger';
import { caMessages, caObservationFromMessages, LlmCa } from '../../models/llm/llm-ca';
import { caTools } from '../../models/llm/ca-messages';
import { toOpenAiMessages } from '../../models/llm/chat-backend';
import { drawSeed } from '../../models/llm/llm-da';
import { OpenAiBackend } from '../../models/llm/openai-backend';
import { bankingDomain } from '../domain-files';
import { serveModel } from './serve-model';
import type { ServedModel } from './serve-model';

const domain = bankingDomain();
let model: CaModel;
let served: ServedModel;

beforeAll(async () => {
  model = await CaModel.create(domain.taxonomy, { seed: 5 });
  served = await serveModel({ ca: new BuiltinCa(model, domain.bank, { name: 'CA0' }), modelId: 'CA0' });
  process.env.SPARRING_TEST_SERVE_CA_TOKEN = served.token!;
}, 120_000);
afterAll(async () => {
  await served.close();
  await model.dispose();
});

/** The in-process CA under LlmCa's seed protocol: each utterance from `Rng(drawSeed(rng))`. */
function perCallSeed(ca: CaPolicy, seen?: CaObservation[]): CaPolicy {
  return {
    name: ca.name,
    speak: (obs, rng) => {
      seen?.push(structuredClone(obs));
      return ca.speak(obs, new Rng(drawSeed(rng)));
    },
  };
}

/** Arena, held-out and MADS robustness scenarios (adversity directives, personas). */
const SCENARIOS = [...selectScenarios(domain, 'all'), ...selectScenarios(domain, 'robustness')];

const play = (ca: CaPolicy, scenarios = SCENARIOS) =>
  runMatch({
    matchId: 'M1',
    createdAt: '2026-01-01T00:00:00.000Z',
    domain,
    scenarios,
    scenarioSet: 'all',
    da: new ScriptedDa(),
    ca,
    judge: judgeEpisode,
    config: withEpisodes(DEFAULT_CONFIG, 2),
    seed: 11,
    concurrency: 4,
  });

describe('serve-model with a CA checkpoint', () => {
  it("maps LlmCa's messages back to the observation the environment built (personas, directives and all)", async () => {
    const seen: CaObservation[] = [];
    await play(perCallSeed(new BuiltinCa(model, domain.bank), seen));
    expect(seen.some((o) => o.adversity !== undefined)).toBe(true);
    expect(seen.some((o) => o.persona !== undefined)).toBe(true);
    expect(seen.some((o) => o.dialogue.length > 2)).toBe(true);
    for (const obs of seen) {
      const want = obs.persona ? { ...obs, persona: { ...obs.persona, sampleMessages: [] } } : obs;
      expect(caObservationFromMessages(caMessages(obs))).toEqual(want);
      // The trained form (say calls, the agent's words as their results) maps back the same.
      expect(caObservationFromMessages(caMessages(obs, 'native'))).toEqual(want);
    }
  }, 120_000);

  it('a match through the endpoint equals the match in process, episode for episode', async () => {
    const inProcess = await play(perCallSeed(new BuiltinCa(model, domain.bank, { name: 'CA0' })));
    const ledger = new PendingLedger(() => undefined);
    const backend = new OpenAiBackend(
      { name: 'cust', baseUrl: served.baseUrl, model: 'CA0', apiKeyEnv: 'SPARRING_TEST_SERVE_CA_TOKEN', toolCalls: 'text', maxConcurrency: 4 },
      { maxRetries: 0 },
    );
    const remote = await play(new LlmCa(backend, { name: 'CA0', ledger }));
    expect(remote.episodes.length).toBe(inProcess.episodes.length);
    for (const [i, e] of remote.episodes.entries()) expect(e, e.id).toEqual(inProcess.episodes[i]);
    expect(remote.match).toEqual(inProcess.match);
    // The customers said different things in different episodes (sampled, not a constant reply).
    expect(new Set(remote.episodes.map((e) => e.turns.find((t) => t.role === 'customer')!.text)).size).toBeGreaterThan(5);
    const customerTurns = remote.episodes.flatMap((e) => e.turns.filter((t) => t.role === 'customer').map((t) => `${e.id}#${t.index}`));
    expect(ledger.records.map((r) => `${r.site!.episodeId}#${r.site!.turn}`).sort()).toEqual(customerTurns.sort());
    expect(ledger.records.every((r) => r.site!.role === 'CA' && r.tokensIn > 0 && r.tokensOut > 0 && r.model === 'CA0')).toBe(true);

    // The trained form: offered say, the served checkpoint answers with its one call; the same match.
    const calls: string[] = [];
    const native = await play(
      new LlmCa(
        {
          ...backend,
          id: backend.id,
          model: backend.model,
          maxConcurrency: backend.maxConcurrency,
          complete: async (req) => {
            const r = await backend.complete(req);
            calls.push(r.toolCalls.map((c) => c.name).join(','));
            return r;
          },
        },
        { name: 'CA0', mode: 'native' },
      ),
    );
    expect(native.episodes).toEqual(inProcess.episodes);
    expect(new Set(calls)).toEqual(new Set(['say']));
  }, 120_000);

  it("answers the official openai SDK in the customer's trained form: offered say, one say call with the in-process utterance", async () => {
    const seen: CaObservation[] = [];
    await play(perCallSeed(new BuiltinCa(model, domain.bank), seen), SCENARIOS.slice(0, 2));
    const obs = seen.find((o) => o.dialogue.length > 2)!;
    const client = new OpenAI({ baseURL: served.baseUrl, apiKey: served.token!, maxRetries: 0 });
    // On the OpenAI wire a call's arguments are JSON text (the chat template's form holds objects).
    const messages = toOpenAiMessages(caMessages(obs, 'native')) as OpenAI.Chat.Completions.ChatCompletionMessageParam[];
    const tools = caTools() as OpenAI.Chat.Completions.ChatCompletionTool[];
    const want = await new BuiltinCa(model, domain.bank).speak(obs, new Rng(42));
    for (const tool_choice of ['auto', 'required', { type: 'function', function: { name: 'say' } }] as const) {
      const r = await client.chat.completions.create({ model: 'CA0', messages, tools, tool_choice, seed: 42 });
      const call = r.choices[0]!.message.tool_calls?.[0];
      expect(r.choices[0]!.finish_reason).toBe('tool_calls');
      expect(call?.type === 'function' && call.function.name).toBe('say');
      expect(call?.type === 'function' && JSON.parse(call.function.arguments)).toEqual({ utterance: want });
    }
    // tool_choice "none": the same line as text; a function it does not have: OpenAI's error shape.
    const text = await client.chat.completions.create({ model: 'CA0', messages, tools, tool_choice: 'none', seed: 42 });
    expect(text.choices[0]!.message.content).toBe(want);
    const wrong = await client.chat.completions
      .create({ model: 'CA0', messages, tools, tool_choice: { type: 'function', function: { name: 'speak' } }, seed: 42 })
      .catch((e: unknown) => e);
    expect(wrong).toBeInstanceOf(OpenAI.BadRequestError);
    expect((wrong as InstanceType<typeof OpenAI.BadRequestError>).message).toMatch(/^400 tool_choice: function "speak"/);
  }, 120_000);

  it('answers a request that is not a customer prompt with a 400 naming the message', async () => {
    const r = await fetch(`${served.baseUrl}/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${served.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        model: 'CA0',
        messages: [
          { role: 'system', content: 'You are a helpful assistant.' },
          { role: 'user', content: 'hi' },
        ],
      }),
    });
    expect(r.status).toBe(400);
    expect(((await r.json()) as { error: { message: string } }).error.message).toMatch(/^messages\[0\]: not the customer prompt/);
  });
});
