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
import { DEFAULT_CONFIG, withEpisodes } from '../../core/config';
import type { SparringConfig } from '../../core/config';
import type { Domain } from '../../core/domain/types';
import { judgeEpisode } from '../../core/judge/judge';
import { bankDemos } from '../../core/rl/demos';
import { runSft } from '../../core/rl/sft';
import { measurePaired, pairedRounds } from '../../models/bench';
import { BuiltinDa } from '../../models/builtin-da';
import { DaModel } from '../../models/da-model';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Rng } from '../../core/random';
import { DA_GRAMMAR_MAX_TOKENS } from '../../models/llm/da-messages';
import { GgufBackend, ggufConfigOf } from '../../models/llm/gguf-backend';
import type { GgufGpu } from '../../models/llm/gguf-backend';
import { writeTinyGguf } from '../../models/llm/tiny-gguf';
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

export async function benchLlmHttp(
  domain: Domain,
  opts: { rounds?: number; roundMs?: number; session?: SessionSettings; concurrency?: number } = {},
): Promise<LlmHttpBench> {
  const concurrency = opts.concurrency ?? 8;
  const model = await DaModel.create({
    intents: domain.taxonomy.map((e) => ({ intent: e.intent, tool: e.tool })),
    seed: 1,
    ...(opts.session ? { session: opts.session } : {}),
  });
  await runSft(model, bankDemos(domain, { seed: 1, episodesPerIntent: 1, fills: 1, camouflaged: 0 }).demos, { epochs: 1, batchSize: 64, lr: 3e-3 });
  const served = await serveModel({ da: new BuiltinDa(model, { name: 'bench' }), modelId: 'bench', token: null });
  try {
    const arena = domain.scenarios.filter((s) => s.set === 'arena');
    const config: SparringConfig = withEpisodes(DEFAULT_CONFIG, 1);
    const ca = new ScriptedCa(domain);
    const backend = new OpenAiBackend(
      { name: 'bench', baseUrl: served.baseUrl, model: 'bench', apiKeyEnv: null, toolCalls: 'native', maxConcurrency: concurrency },
      { maxRetries: 0 },
    );
    const http = new LlmDa(backend, 'native');
    const local = new BuiltinDa(model, { name: 'bench' });
    let seed = 1;
    const play = (da: DaPolicy) =>
      runMatch({
        matchId: 'bench',
        createdAt: '',
        domain,
        scenarios: arena,
        scenarioSet: 'arena',
        da,
        ca,
        judge: judgeEpisode,
        config,
        seed: seed++,
        concurrency,
      });
    const sample = await play(http);
    const calls = sample.episodes.reduce((n, e) => n + e.turns.filter((t) => t.role === 'agent').length, 0);
    const r = await measurePaired(
      () => play(http),
      () => play(local),
      arena.length,
      opts.rounds ?? 7,
      opts.roundMs ?? 200,
    );
    return { httpEpisodes: r.a, inProcessEpisodes: r.b, httpOverInProcess: r.ratio, callsPerEpisode: calls / sample.episodes.length, concurrency };
  } finally {
    await served.close();
    await model.dispose();
  }
}

export interface GgufBench {
  /** Generated tokens per second (median of rounds): DA turns under the wire grammar, one call at a time on one sequence. */
  tokensPerS: number;
  /** The same with `sequences` context sequences and as many calls at once (their tokens batched together). */
  batchedTokensPerS: number;
  /** Median over adjacent pairs of rounds (ABBA) of batched / one at a time. */
  batchedOverSingle: number;
  sequences: number;
  /** Where it ran: cuda, vulkan, metal or cpu. */
  gpu: string;
  threads: number;
  /** Mean tokens one DA turn generated. */
  tokensPerCall: number;
  params: number;
  /** The random llama's width and depth. */
  dim: number;
  layers: number;
}

/**
 * `sparring bench --only gguf`: tokens per second of a local GGUF model through node-llama-cpp —
 * a random-weight llama (`tiny-gguf.ts`; by default 2 layers of width 64, 127k parameters, 354
 * tokens) written to a temp dir, answering the same DA turn (text form, under the wire grammar)
 * again and again; after a sequence's first call the prompt is in its context, so the figure is
 * generation with grammar sampling. Measured one call at a time on one context sequence, and with
 * `sequences` sequences and as many calls at once (`GgufConfig.sequences`), in adjacent rounds
 * (ABBA) so the ratio is the median of per-pair ratios. A real 3B–7B file is orders of magnitude
 * slower per token; this measures the path, not a model (`dim`, `layers`: a wider, deeper random
 * model, whose matrix products dominate a token's cost as a real model's do).
 */
export async function benchGguf(opts: {
  rounds?: number;
  roundMs?: number;
  gpu: GgufGpu;
  threads: number;
  sequences?: number;
  dim?: number;
  layers?: number;
}): Promise<GgufBench> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'sparring-bench-gguf-'));
  const sequences = opts.sequences ?? 4;
  const dim = opts.dim ?? 64;
  const layers = opts.layers ?? 2;
  try {
    const file = path.join(dir, 'tiny.gguf');
    const { params } = writeTinyGguf(file, { contextLength: 8192, dim, layers });
    const cfg = await ggufConfigOf(file, { name: 'bench', gpu: opts.gpu, contextSize: 2048, threads: opts.threads });
    const single = await GgufBackend.load(cfg);
    const batched = await GgufBackend.load({ ...cfg, sequences });
    try {
      const da = new LlmDa(single, 'text', { maxTokens: DA_GRAMMAR_MAX_TOKENS });
      const obs = {
        caller: { phone: '+1-555-0100' },
        turns: [{ role: 'customer' as const, text: 'Hi, my card got declined at the grocery store this morning.' }],
        daSteps: 0,
        maxDaTurns: 12,
      };
      const rng = new Rng(1);
      let calls = 0;
      let tokens = 0;
      const call = async (backend: GgufBackend) => {
        const r = await backend.complete(da.request(obs, rng.int(0, 0x7fffffff)));
        calls++;
        tokens += r.tokensOut;
        return r.tokensOut;
      };
      /** Tokens/s over one round: `backend.maxConcurrency` callers, each calling until the round's time is up. */
      const round = async (backend: GgufBackend, ms: number) => {
        const t0 = performance.now();
        const counts = await Promise.all(
          Array.from({ length: backend.maxConcurrency }, async () => {
            let n = 0;
            do n += await call(backend);
            while (performance.now() - t0 < ms);
            return n;
          }),
        );
        return counts.reduce((a, b) => a + b, 0) / ((performance.now() - t0) / 1000);
      };
      // Warm-up rounds first: every sequence's context gets the prompt.
      const roundMs = opts.roundMs ?? 200;
      const r = await pairedRounds(
        () => round(batched, roundMs),
        () => round(single, roundMs),
        opts.rounds ?? 7,
      );
      return {
        tokensPerS: r.b,
        batchedTokensPerS: r.a,
        batchedOverSingle: r.ratio,
        sequences,
        gpu: single.gpu,
        threads: opts.threads,
        tokensPerCall: tokens / calls,
        params,
        dim,
        layers,
      };
    } finally {
      await single.dispose();
      await batched.dispose();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
