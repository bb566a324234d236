/**
 * An endpoint's round trip (`sparring models test NAME`, the Models screen's Test): one DA turn —
 * the opening of a call, the first customer sentence — sent as the lab's DA would send it, the
 * reply read by the one parser, with its latency, tokens and tokens per second; and the server's
 * models (`GET /v1/models`), or why they could not be listed.
 */
import { selectScenarios } from '../../core/arena/scenarios';
import type { Domain } from '../../core/domain/types';
import { Rng } from '../../core/random';
import { CustomerEnvironment } from '../../core/world/environment';
import { parseDaOutput } from '../../core/wire';
import { wireFromReply } from '../../models/llm/da-messages';
import { LlmCa } from '../../models/llm/llm-ca';
import { LlmDa } from '../../models/llm/llm-da';
import { OpenAiBackend } from '../../models/llm/openai-backend';
import type { EndpointConfig } from '../../models/llm/openai-backend';
import { DA_GRAMMAR_MAX_TOKENS } from '../../models/llm/da-messages';
import { GgufBackend } from '../../models/llm/gguf-backend';
import type { GgufConfig } from '../../models/llm/gguf-backend';

/** The one DA turn a test or a role probe asks an endpoint for: a customer's plain opening. */
const PROBE_DA_OBSERVATION = {
  caller: { phone: '+1-555-0100' },
  turns: [{ role: 'customer' as const, text: 'Hi, my card got declined at the grocery store this morning.' }],
  daSteps: 0,
  maxDaTurns: 12,
};

export async function testEndpoint(cfg: EndpointConfig) {
  const backend = new OpenAiBackend(cfg, { maxRetries: 1, timeoutMs: 60_000 });
  const da = new LlmDa(backend, cfg.toolCalls, { maxTokens: 256 });
  const reply = await backend.complete(da.request(PROBE_DA_OBSERVATION, new Rng(1).int(0, 0x7fffffff)));
  const raw = wireFromReply(reply, cfg.toolCalls);
  const parsed = parseDaOutput(raw);
  let models: string[] | string;
  try {
    models = await backend.listModels();
  } catch (e) {
    models = (e as Error).message;
  }
  return {
    endpoint: cfg.name,
    model: reply.model,
    latencyMs: reply.latencyMs,
    tokensIn: reply.tokensIn,
    tokensOut: reply.tokensOut,
    tokensPerS: reply.latencyMs > 0 ? reply.tokensOut / (reply.latencyMs / 1000) : null,
    finishReason: reply.finishReason,
    raw,
    parsed: parsed.ok ? parsed.action : null,
    parseError: parsed.ok ? null : parsed.error,
    serverModels: models,
  };
}

/**
 * One DA turn of a local GGUF model as a round trip (`sparring models test NAME`, the Models
 * screen's Test): the request an endpoint gets, in the text form under the wire grammar, on the
 * file loaded for this test alone (and disposed after); with where it ran and how long loading took.
 */
export async function testGguf(cfg: GgufConfig) {
  const t0 = performance.now();
  const backend = await GgufBackend.load(cfg);
  const loadMs = performance.now() - t0;
  try {
    const da = new LlmDa(backend, 'text', { maxTokens: DA_GRAMMAR_MAX_TOKENS });
    const reply = await backend.complete(da.request(PROBE_DA_OBSERVATION, new Rng(1).int(0, 0x7fffffff)));
    const parsed = parseDaOutput(reply.text);
    return {
      endpoint: cfg.name,
      model: reply.model,
      file: cfg.path,
      gpu: backend.gpu,
      loadMs,
      latencyMs: reply.latencyMs,
      tokensIn: reply.tokensIn,
      tokensOut: reply.tokensOut,
      tokensPerS: reply.latencyMs > 0 ? reply.tokensOut / (reply.latencyMs / 1000) : null,
      finishReason: reply.finishReason,
      raw: reply.text,
      parsed: parsed.ok ? parsed.action : null,
      parseError: parsed.ok ? null : parsed.error,
    };
  } finally {
    await backend.dispose();
  }
}

/**
 * Can the endpoint play `role` at all? One turn of that role, as a run would send it (the DA: the
 * opening above; the CA: the customer prompt of the domain's first arena scenario, seed 1).
 * Resolves with the reply's model id; rejects with the backend's error when the server refuses
 * or cannot be reached — e.g. `serve-model` serving a CA checkpoint answers a DA prompt with 400.
 * Whether the words are any good is the arena's business, not this probe's.
 */
export async function probeRole(cfg: EndpointConfig, role: 'DA' | 'CA', domain: Domain): Promise<string> {
  const backend = new OpenAiBackend(cfg, { maxRetries: 1, timeoutMs: 60_000 });
  const seed = new Rng(1).int(0, 0x7fffffff);
  if (role === 'DA') {
    const da = new LlmDa(backend, cfg.toolCalls, { maxTokens: 256 });
    return (await backend.complete(da.request(PROBE_DA_OBSERVATION, seed))).model;
  }
  const scenario = selectScenarios(domain, 'arena')[0];
  if (!scenario) throw new Error('probeRole: the domain has no arena scenario to build a customer prompt from');
  const env = new CustomerEnvironment(12);
  env.reset(scenario, 1);
  return (await backend.complete(new LlmCa(backend).request(env.observeCustomer(), seed))).model;
}
