/**
 * The serve-model round trip (issue 14's key test): a match whose DA is a builtin checkpoint
 * served over HTTP and played through the lab's OpenAI client equals, episode for episode, the
 * same match with the checkpoint in process — in both the native tool-call form and the text
 * form; the client keeps at most the endpoint's max-concurrency requests in flight, and reaches it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ScriptedCa } from '../../core/agents/scripted-ca';
import type { DaPolicy } from '../../core/agents/policy';
import { runMatch } from '../../core/arena/match';
import { selectScenarios } from '../../core/arena/scenarios';
import { DEFAULT_CONFIG, withEpisodes } from '../../core/config';
import { judgeEpisode } from '../../core/judge/judge';
import { bankDemos } from '../../core/rl/demos';
import { runSft } from '../../core/rl/sft';
import { BuiltinDa } from '../../models/builtin-da';
import { DaModel } from '../../models/da-model';
import { PendingLedger } from '../../models/llm/ledger';
import { caMessages } from '../../models/llm/ca-messages';
import { toOpenAiMessages } from '../../models/llm/chat-backend';
import { LlmDa } from '../../models/llm/llm-da';
import { CustomerEnvironment } from '../../core/world/environment';
import { OpenAiBackend } from '../../models/llm/openai-backend';
import type { ToolCallMode } from '../../models/llm/openai-backend';
import { bankingDomain } from '../domain-files';
import { serveModel } from './serve-model';
import type { ServedModel } from './serve-model';

const domain = bankingDomain();
let model: DaModel;
let served: ServedModel;

beforeAll(async () => {
  model = await DaModel.create({ intents: domain.taxonomy.map((e) => ({ intent: e.intent, tool: e.tool })), seed: 2 });
  await runSft(model, bankDemos(domain, { seed: 2, episodesPerIntent: 1, fills: 1, camouflaged: 0 }).demos, { epochs: 2, batchSize: 64, lr: 3e-3 });
  served = await serveModel({ da: new BuiltinDa(model, { name: 'DA0' }), modelId: 'DA0' });
  process.env.SPARRING_TEST_SERVE_TOKEN = served.token!;
}, 180_000);
afterAll(async () => {
  await served.close();
  await model.dispose();
});

const play = (da: DaPolicy, concurrency: number) =>
  runMatch({
    matchId: 'M1',
    createdAt: '2026-01-01T00:00:00.000Z',
    domain,
    scenarios: selectScenarios(domain, 'all'),
    scenarioSet: 'all',
    da,
    ca: new ScriptedCa(domain),
    judge: judgeEpisode,
    config: withEpisodes(DEFAULT_CONFIG, 2),
    seed: 7,
    concurrency,
  });

const backend = (toolCalls: ToolCallMode, maxConcurrency = 4) =>
  new OpenAiBackend(
    { name: 'local', baseUrl: served.baseUrl, model: 'DA0', apiKeyEnv: 'SPARRING_TEST_SERVE_TOKEN', toolCalls, maxConcurrency },
    { maxRetries: 0 },
  );

describe('serve-model', () => {
  it.each(['native', 'text'] as const)(
    'a match through the endpoint (%s form) equals the match in process, episode for episode',
    async (mode) => {
      const inProcess = await play(new BuiltinDa(model, { name: 'DA0' }), 4);
      const ledger = new PendingLedger(() => undefined);
      served.stats.peakInFlight = 0;
      const remote = await play(new LlmDa(backend(mode), mode, { name: 'DA0', ledger }), 4);
      expect(remote.episodes.length).toBe(inProcess.episodes.length);
      for (const [i, e] of remote.episodes.entries()) expect(e, e.id).toEqual(inProcess.episodes[i]);
      expect(remote.match).toEqual(inProcess.match);
      // The episodes are not trivial: tools were called and results came back.
      expect(remote.episodes.some((e) => e.turns.some((t) => t.tool !== null && t.tool !== 'lookup_account' && t.toolResult !== null))).toBe(true);
      // One call record per DA turn, each linked to its episode and turn, with tokens.
      const daTurns = remote.episodes.flatMap((e) => e.turns.filter((t) => t.role === 'agent').map((t) => `${e.id}#${t.index}`));
      expect(ledger.records.map((r) => `${r.site!.episodeId}#${r.site!.turn}`).sort()).toEqual(daTurns.sort());
      expect(ledger.records.every((r) => r.tokensIn > 0 && r.tokensOut > 0 && r.model === 'DA0' && r.seed !== null && !r.cached)).toBe(true);
      expect(served.stats.peakInFlight).toBe(4);
    },
    120_000,
  );

  it('keeps at most max-concurrency requests in flight, whatever the match asks', async () => {
    served.stats.peakInFlight = 0;
    await play(new LlmDa(backend('native', 2), 'native'), 16);
    expect(served.stats.peakInFlight).toBe(2);
  }, 120_000);

  it("refuses a customer's prompt, in either form, with a 400 naming the prompt file", async () => {
    const env = new CustomerEnvironment(12);
    env.reset(domain.scenarios[0]!, 3);
    const obs = env.observeCustomer();
    for (const [mode, file] of [
      ['text', 'ca-system.v1'],
      ['native', 'ca-system-native.v1'],
    ] as const) {
      const r = await fetch(`${served.baseUrl}/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${served.token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'DA0', messages: toOpenAiMessages(caMessages(obs, mode)) }),
      });
      expect(r.status, mode).toBe(400);
      expect(((await r.json()) as { error: { message: string } }).error.message).toBe(
        `messages[0]: the customer's prompt (assets/prompts/${file}.txt); this checkpoint plays the agent (DA), not the customer`,
      );
    }
  });

  it('refuses a request without the token, and lists its model', async () => {
    const bare = await fetch(`${served.baseUrl}/models`);
    expect(bare.status).toBe(401);
    const listed = await backend('native').listModels();
    expect(listed).toEqual(['DA0']);
  });
});
