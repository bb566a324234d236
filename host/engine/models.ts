/**
 * The Models screen's side of the engine (issue 14, item 5): the LLMs saved in the lab — list,
 * add, test (one DA turn: latency, tokens, tokens/s), list a server's models, remove. The same
 * store and checks as `sparring models`; a saved name is a policy SPEC for either seat at once
 * (`engine/info` lists it), and removing one drops the engine's backend for it.
 */
import type { Handlers, ModelInfo } from '../../core/contract/contract';
import { ChatBackendError } from '../../models/llm/chat-backend';
import { OpenAiBackend } from '../../models/llm/openai-backend';
import type { EndpointConfig } from '../../models/llm/openai-backend';
import { testEndpoint, testGguf } from '../llm/test-endpoint';
import { forgetEndpoints } from '../policies/policies';
import { EndpointError } from '../store/llm-store';
import type { LlmStore } from '../store/llm-store';
import { ggufConfigOf, ggufModelId } from '../../models/llm/gguf-backend';
import type { GgufConfig } from '../../models/llm/gguf-backend';

export interface ModelHandlerDeps {
  llm: LlmStore;
  dbPath: string;
  /** Where API keys are read (the engine's environment). */
  env?: NodeJS.ProcessEnv;
}

type ModelHandlers = Pick<Handlers, 'models/list' | 'models/add' | 'models/add-gguf' | 'models/remove' | 'models/test' | 'models/server-models'>;

export function modelHandlers(d: ModelHandlerDeps): ModelHandlers {
  const env = d.env ?? process.env;
  const info = (e: EndpointConfig): ModelInfo => ({
    name: e.name,
    kind: 'endpoint',
    model: e.model,
    baseUrl: e.baseUrl,
    apiKeyEnv: e.apiKeyEnv,
    apiKeySet: e.apiKeyEnv === null ? null : Boolean(env[e.apiKeyEnv]),
    toolCalls: e.toolCalls,
    maxConcurrency: e.maxConcurrency,
  });
  const ggufInfo = (g: GgufConfig): ModelInfo => ({
    name: g.name,
    kind: 'gguf',
    model: ggufModelId(g),
    baseUrl: null,
    file: g.path,
    apiKeyEnv: null,
    apiKeySet: null,
    toolCalls: 'text',
    maxConcurrency: g.sequences,
    gguf: { sha256: g.sha256, gpu: g.gpu, contextSize: g.contextSize, threads: g.threads },
  });
  /** A saved model by name, endpoint or GGUF file; the error lists the saved ones. */
  const saved = (name: string, request: string): { endpoint: EndpointConfig } | { gguf: GgufConfig } => {
    const s = d.llm.saved(name);
    if (s) return s;
    throw new Error(`${request}: no model "${name}" in this lab; saved ones: ${d.llm.savedNames().join(', ') || 'none'}`);
  };
  const endpoint = (name: string, request: string): EndpointConfig => {
    const s = saved(name, request);
    if ('gguf' in s) throw new Error(`${request}: "${name}" is a local GGUF file (${s.gguf.path}), not a server`);
    return s.endpoint;
  };
  /**
   * A failed call in words for the screen: the endpoint and its URL, what went wrong, after how
   * many attempts, and the network's own reason underneath ("connection refused").
   */
  const calling = async <T>(request: string, name: string, work: () => Promise<T>): Promise<T> => {
    try {
      return await work();
    } catch (e) {
      if (!(e instanceof ChatBackendError)) throw e;
      const s = d.llm.saved(name);
      const url = s && 'endpoint' in s ? ` at ${s.endpoint.baseUrl}` : '';
      const why = networkCause(e);
      throw new Error(`${request}: ${e.message.replace(/^endpoint "([^"]+)"/, `endpoint "$1"${url}`)}${why && !e.message.includes(why) ? ` (${why})` : ''}`, {
        cause: e,
      });
    }
  };
  return {
    'models/list': () => [...d.llm.listEndpoints().map(info), ...d.llm.listGguf().map(ggufInfo)].sort((a, b) => a.name.localeCompare(b.name)),
    'models/add': (args) => {
      const cfg: EndpointConfig = {
        name: args.name,
        baseUrl: args.baseUrl,
        model: args.model,
        apiKeyEnv: args.apiKeyEnv ?? null,
        toolCalls: args.toolCalls,
        maxConcurrency: args.maxConcurrency,
      };
      try {
        d.llm.addEndpoint(cfg);
      } catch (e) {
        throw new Error(`models/add: ${(e as Error).message}`, { cause: e });
      }
      forgetEndpoints(d.dbPath);
      return info(endpoint(cfg.name, 'models/add'));
    },
    'models/add-gguf': async ({ name, file, ...settings }) => {
      try {
        // addGguf checks every setting, naming the field.
        const cfg = await ggufConfigOf(file, { name, ...settings });
        d.llm.addGguf(cfg);
        return ggufInfo(cfg);
      } catch (e) {
        if (e instanceof ChatBackendError) throw new Error(`models/add-gguf: ${e.detail}`, { cause: e });
        if (e instanceof EndpointError) throw new Error(`models/add-gguf: ${e.message}`, { cause: e });
        throw e;
      }
    },
    'models/remove': ({ name }) => {
      if (!d.llm.removeEndpoint(name)) throw new Error(`models/remove: no model "${name}" in this lab`);
      forgetEndpoints(d.dbPath);
      return { ok: true };
    },
    'models/test': ({ name }) =>
      calling('models/test', name, async () => {
        const s = saved(name, 'models/test');
        if ('endpoint' in s) return testEndpoint(s.endpoint);
        const { file: _file, gpu: _gpu, loadMs: _load, ...r } = await testGguf(s.gguf);
        return { ...r, serverModels: 'a local GGUF file: no server to list' };
      }),
    'models/server-models': ({ name }) =>
      calling('models/server-models', name, async () => ({
        models: await new OpenAiBackend(endpoint(name, 'models/server-models'), { maxRetries: 1 }).listModels(),
      })),
  };
}

/** Network error codes in words (Node's and undici's). */
const NETWORK_WORDS: Record<string, string> = {
  ECONNREFUSED: 'connection refused: nothing is listening at that address and port',
  ENOTFOUND: 'the host name does not resolve',
  EAI_AGAIN: 'the host name could not be resolved just now',
  ETIMEDOUT: 'the connection timed out',
  UND_ERR_CONNECT_TIMEOUT: 'the connection timed out',
  ECONNRESET: 'the server closed the connection',
  EHOSTUNREACH: 'the host cannot be reached',
  ENETUNREACH: 'the network cannot be reached',
  CERT_HAS_EXPIRED: "the server's TLS certificate has expired",
  DEPTH_ZERO_SELF_SIGNED_CERT: "the server's TLS certificate is self-signed",
};

/**
 * The deepest reason under a failed call (the OpenAI client's "Connection error." wraps fetch's
 * "fetch failed", which wraps the socket's ECONNREFUSED), in words; null when there is none.
 */
export function networkCause(e: unknown): string | null {
  let deepest: string | null = null;
  for (let c: unknown = e, depth = 0; c instanceof Error && depth < 8; c = c.cause, depth++) {
    const code = (c as { code?: unknown }).code;
    if (typeof code === 'string' && NETWORK_WORDS[code]) return NETWORK_WORDS[code];
    if (c !== e && c.message && !/^(fetch failed|Connection error\.?)$/i.test(c.message)) deepest = c.message;
  }
  return deepest;
}
