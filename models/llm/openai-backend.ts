/**
 * A chat backend over any OpenAI-compatible endpoint (vLLM, SGLang, llama.cpp's server, Ollama, a
 * hosted API, or Sparring's own `serve-model`), through the official `openai` client.
 *
 * Faults: each request has a timeout; the client retries 408/409/429/5xx answers and connection
 * errors with exponential backoff (0.5 s doubling to 8 s, or the server's retry-after), then the
 * call fails with a `ChatBackendError` naming the endpoint, the kind of failure and the attempts.
 * A per-endpoint semaphore keeps at most `maxConcurrency` requests in flight. The API key is read
 * from the named environment variable when the backend is made, never stored in the lab.
 */
import OpenAI, { APIConnectionError, APIConnectionTimeoutError, APIError, APIUserAbortError, RateLimitError } from 'openai';
import type { ChatCompletion, ChatCompletionCreateParamsNonStreaming } from 'openai/resources/chat/completions';
import type { ChatBackend, ChatFailureKind, ChatRequest, ChatResult } from './chat-backend';
import { ChatBackendError, toOpenAiMessages } from './chat-backend';

/** How the DA's actions travel: as native `tool_calls`, or as the wire-format JSON in the text. */
export type ToolCallMode = 'native' | 'text';

/** An endpoint as the lab stores it (`sparring models add`). */
export interface EndpointConfig {
  name: string;
  /** e.g. http://127.0.0.1:8000/v1 */
  baseUrl: string;
  model: string;
  /** The environment variable holding the API key (read at call time; never stored). */
  apiKeyEnv: string | null;
  toolCalls: ToolCallMode;
  maxConcurrency: number;
}

export interface OpenAiBackendOptions {
  /** Per-request timeout (default 60 s). */
  timeoutMs?: number;
  /** Retries after the first attempt on 429/5xx/connection errors (default 4). */
  maxRetries?: number;
  /** For tests: a fetch to use instead of the global one. */
  fetch?: typeof fetch;
}

/** A counting semaphore: at most `n` holders; waiters are served first come, first served. */
export class Semaphore {
  private active = 0;
  private readonly waiting: (() => void)[] = [];
  constructor(readonly n: number) {
    if (!Number.isInteger(n) || n < 1) throw new RangeError(`Semaphore: n must be a positive integer, got ${n}`);
  }
  async run<T>(f: () => Promise<T>): Promise<T> {
    if (this.active >= this.n) await new Promise<void>((r) => this.waiting.push(r));
    else this.active++;
    try {
      return await f();
    } finally {
      const next = this.waiting.shift();
      if (next) next();
      else this.active--;
    }
  }
}

/** The key an endpoint's environment variable holds, or a placeholder for servers that want none. */
export function apiKeyOf(cfg: Pick<EndpointConfig, 'name' | 'apiKeyEnv'>, env: NodeJS.ProcessEnv = process.env): string {
  if (cfg.apiKeyEnv === null) return 'sparring-no-key';
  const key = env[cfg.apiKeyEnv];
  if (!key) throw new ChatBackendError(cfg.name, 'bad_request', `the environment variable ${cfg.apiKeyEnv} (--api-key-env) is not set`, 0);
  return key;
}

function failureKind(e: unknown): ChatFailureKind {
  if (e instanceof APIUserAbortError) return 'aborted';
  if (e instanceof APIConnectionTimeoutError) return 'timeout';
  if (e instanceof APIConnectionError) return 'connection';
  if (e instanceof RateLimitError) return 'rate_limited';
  if (e instanceof APIError && e.status !== undefined && e.status >= 500) return 'server_error';
  if (e instanceof APIError && e.status === 408) return 'timeout';
  return 'bad_request';
}

/** The request body an OpenAI-compatible server gets for a `ChatRequest`. */
export function requestBody(model: string, req: ChatRequest): ChatCompletionCreateParamsNonStreaming {
  const body: ChatCompletionCreateParamsNonStreaming = {
    model,
    messages: toOpenAiMessages(req.messages),
    temperature: req.temperature,
    max_tokens: req.max_tokens,
  };
  if (req.top_p !== undefined) body.top_p = req.top_p;
  if (req.seed !== undefined) body.seed = req.seed;
  if (req.n !== undefined && req.n !== 1) body.n = req.n;
  if (req.tools?.length) {
    body.tools = req.tools;
    body.tool_choice = 'auto';
  }
  if (req.responseSchema) {
    body.response_format = { type: 'json_schema', json_schema: { name: 'response', schema: req.responseSchema, strict: true } };
  }
  return body;
}

/**
 * The first choice of a completion as a `ChatResult`. Servers differ in the details (Ollama
 * leaves `usage` out on some paths; llama.cpp may send `content: null` beside tool calls); what is
 * missing is read as empty or zero, but no choice at all is a bad response.
 */
export function chatResultOf(backend: string, completion: ChatCompletion, latencyMs: number): ChatResult {
  const choice = completion.choices?.[0];
  if (!choice) throw new ChatBackendError(backend, 'bad_response', 'the server answered with no choices', 1);
  const msg = choice.message;
  const toolCalls = (msg?.tool_calls ?? []).flatMap((c) => (c.type === 'function' ? [{ name: c.function.name, arguments: c.function.arguments ?? '' }] : []));
  return {
    text: msg?.content ?? '',
    toolCalls,
    tokensIn: completion.usage?.prompt_tokens ?? 0,
    tokensOut: completion.usage?.completion_tokens ?? 0,
    latencyMs,
    model: completion.model ?? '',
    finishReason: choice.finish_reason ?? '',
  };
}

export class OpenAiBackend implements ChatBackend {
  readonly id: string;
  readonly model: string;
  readonly maxConcurrency: number;
  private readonly client: OpenAI;
  private readonly gate: Semaphore;
  private readonly maxRetries: number;

  constructor(
    readonly config: EndpointConfig,
    opts: OpenAiBackendOptions = {},
  ) {
    this.id = config.name;
    this.model = config.model;
    this.maxConcurrency = config.maxConcurrency;
    this.gate = new Semaphore(config.maxConcurrency);
    this.maxRetries = opts.maxRetries ?? 4;
    this.client = new OpenAI({
      baseURL: config.baseUrl,
      apiKey: apiKeyOf(config),
      timeout: opts.timeoutMs ?? 60_000,
      maxRetries: this.maxRetries,
      ...(opts.fetch ? { fetch: opts.fetch } : {}),
    });
  }

  complete(req: ChatRequest, signal?: AbortSignal): Promise<ChatResult> {
    return this.gate.run(async () => {
      const t0 = performance.now();
      let completion: ChatCompletion;
      try {
        completion = await this.client.chat.completions.create(requestBody(this.model, req), signal ? { signal } : {});
      } catch (e) {
        const kind = failureKind(e);
        const retried = kind === 'timeout' || kind === 'connection' || kind === 'rate_limited' || kind === 'server_error';
        throw new ChatBackendError(this.id, kind, (e as Error).message, retried ? this.maxRetries + 1 : 1, { cause: e });
      }
      return chatResultOf(this.id, completion, performance.now() - t0);
    });
  }

  /** The server's `/v1/models` listing (ids). */
  async listModels(): Promise<string[]> {
    try {
      const ids: string[] = [];
      for await (const m of this.client.models.list()) ids.push(m.id);
      return ids;
    } catch (e) {
      throw new ChatBackendError(this.id, failureKind(e), (e as Error).message, 1, { cause: e });
    }
  }
}
