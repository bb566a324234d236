/**
 * `sparring bench --only llm`: arena episodes per second with the builtin DA played through
 * `serve-model` and the lab's OpenAI client (native tool calls, 8 requests in flight), against
 * the same DA in process — the cost of the HTTP path. Measured as adjacent pairs of rounds in ABBA
 * order (`measurePaired`), so the ratio is the median of per-pair ratios, not of two medians.
 * The DA is a briefly SFT-trained builtin (so its episodes run the usual lookup → tool → speak
 * → end course) against the scripted CA.
 */
import { ScriptedCa } from '../../core/agents/scripted-ca';
import type { DaPolicy } from '../../core/agents/policy';
import { runMatch } from '../../core/arena/match';
import { DEFAULT_CONFIG } from '../../core/config';
import type { SparringConfig } from '../../core/config';
import type { Domain } from '../../core/domain/types';
import { judgeEpisode } from '../../core/judge/judge';
import { bankDemos } from '../../core/rl/demos';
import { runSft } from '../../core/rl/sft';
import { measurePaired } from '../../models/bench';
import { BuiltinDa } from '../../models/builtin-da';
import { DaModel } from '../../models/da-model';
import { LlmDa } from '../../models/llm/llm-da';
import { OpenAiBackend } from '../../models/llm/openai-backend';
import type { SessionSettings } from '../../models/session';
import { serveModel } from './serve-model';

export interface LlmHttpBench {
  /** Episodes/s, builtin DA through serve-model over HTTP. */
  httpEpisodes: number;
  /** Episodes/s, the same DA in process, same concurrency. */
  inProcessEpisodes: number;
  /** Median of per-pair ratios http / in-process. */
  httpOverInProcess: number;
  /** Mean DA turns (HTTP calls) per episode. */
  callsPerEpisode: number;
  concurrency: number;
}

export async function benchLlmHttp(domain: Domain, opts: { rounds?: number; roundMs?: number; session?: SessionSettings; concurrency?: number } = {}): Promise<LlmHttpBench> {
  const concurrency = opts.concurrency ?? 8;
  const model = await DaModel.create({ intents: domain.taxonomy.map((e) => ({ intent: e.intent, tool: e.tool })), seed: 1, ...(opts.session ? { session: opts.session } : {}) });
  await runSft(model, bankDemos(domain, { seed: 1, episodesPerIntent: 1, fills: 1, camouflaged: 0 }).demos, { epochs: 1, batchSize: 64, lr: 3e-3 });
  const served = await serveModel({ da: new BuiltinDa(model, { name: 'bench' }), modelId: 'bench', token: null });
  try {
    const arena = domain.scenarios.filter((s) => s.set === 'arena');
    const config: SparringConfig = { ...DEFAULT_CONFIG, arena: { ...DEFAULT_CONFIG.arena, episodesPerScenario: 1 } };
    const ca = new ScriptedCa(domain);
    const backend = new OpenAiBackend({ name: 'bench', baseUrl: served.baseUrl, model: 'bench', apiKeyEnv: null, toolCalls: 'native', maxConcurrency: concurrency }, { maxRetries: 0 });
    const http = new LlmDa(backend, 'native');
    const local = new BuiltinDa(model, { name: 'bench' });
    let seed = 1;
    const play = (da: DaPolicy) => runMatch({ matchId: 'bench', createdAt: '', domain, scenarios: arena, scenarioSet: 'arena', da, ca, judge: judgeEpisode, config, seed: seed++, concurrency });
    const sample = await play(http);
    const calls = sample.episodes.reduce((n, e) => n + e.turns.filter((t) => t.role === 'agent').length, 0);
    const r = await measurePaired(() => play(http), () => play(local), arena.length, opts.rounds ?? 7, opts.roundMs ?? 200);
    return { httpEpisodes: r.a, inProcessEpisodes: r.b, httpOverInProcess: r.ratio, callsPerEpisode: calls / sample.episodes.length, concurrency };
  } finally {
    await served.close();
    await model.dispose();
  }
}
