/**
 * `sparring serve-model`: a builtin DA or CA checkpoint as an OpenAI-compatible chat-completions
 * endpoint with tool calling (`GET /v1/models`, `POST /v1/chat/completions`), so outside harnesses
 * can evaluate it and the lab's own client is tested against a real server.
 *
 * A request's messages are mapped back into the DA observation the environment would have built
 * (`observationFromMessages`: caller ID and turn limit from the system prompt's lines, turns from
 * the messages, each assistant message re-parsed by the one parser), and the checkpoint's greedy
 * answer comes back as a tool call when the request offers `tools` (native form), else as the
 * wire-format JSON text. So a match played through this endpoint equals, episode for episode, the
 * same match with the checkpoint in process. The greedy DA draws nothing; `seed` is accepted and
 * used only by a sampling policy (`Rng(seed)`).
 *
 * A CA checkpoint is served the same way: the messages `LlmCa` sends (its system prompt, the
 * agent's words as user messages, the customer's as assistant ones, the adversity note) are mapped
 * back into the `CaObservation` the environment built (`caObservationFromMessages`), and the
 * builtin CA's utterance, sampled from `Rng(seed)` with the request's seed, is the reply's text.
 * So a match whose CA is played through this endpoint equals, episode for episode, the same match
 * with the checkpoint in process drawing each utterance from `Rng(seed)` with the same per-call
 * seed (what `LlmCa` sends: one draw from the episode's CA stream).
 *
 * Tokens: a builtin model has no tokenizer, so `usage` counts whitespace-separated words of the
 * messages (prompt) and of the reply (completion).
 *
 * Bound to loopback with a per-launch bearer token unless told otherwise.
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { createServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { CaPolicy, DaPolicy } from '../../core/agents/policy';
import { Rng } from '../../core/random';
import { parseDaOutput } from '../../core/wire';
import type { ChatMessage } from '../../models/llm/chat-backend';
import { DaMessagesError, observationFromMessages } from '../../models/llm/da-messages';
import { CaMessagesError, caObservationFromMessages } from '../../models/llm/llm-ca';

export interface ServeModelOptions {
  /** The policy served: a builtin DA (greedy) or a builtin CA (sampled from the request's seed); exactly one. */
  da?: DaPolicy;
  ca?: CaPolicy;
  /** The model id `/v1/models` lists and completions name (the checkpoint's name). */
  modelId: string;
  host?: string;
  /** 0: any free port. */
  port?: number;
  /** Bearer token clients must send; null: none (explicit opt-out). Default: a fresh random one. */
  token?: string | null;
}

export interface ServedModel {
  url: string;
  /** The base URL clients use (`…/v1`). */
  baseUrl: string;
  token: string | null;
  /** Requests answered so far, and the most in flight at once (what a client's concurrency reached). */
  stats: { completions: number; inFlight: number; peakInFlight: number };
  close(): Promise<void>;
}

const words = (s: string) => (s.trim() === '' ? 0 : s.trim().split(/\s+/).length);

function messageWords(m: ChatMessage): number {
  const calls =
    m.role === 'assistant'
      ? (m.tool_calls ?? []).reduce(
          (n, c) => n + words(typeof c.function.arguments === 'string' ? c.function.arguments : JSON.stringify(c.function.arguments)) + 1,
          0,
        )
      : 0;
  return words(m.content ?? '') + calls;
}

class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly type = 'invalid_request_error',
  ) {
    super(message);
  }
}

async function readJson(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const c of req) {
    size += (c as Buffer).length;
    if (size > 8 * 1024 * 1024) throw new HttpError(413, 'request body over 8 MiB');
    chunks.push(c as Buffer);
  }
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8'));
  } catch (e) {
    throw new HttpError(400, `body is not JSON: ${(e as Error).message}`);
  }
}

function send(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

function tokenMatches(header: string | undefined, token: string): boolean {
  const given = Buffer.from(/^Bearer (.+)$/.exec(header ?? '')?.[1] ?? '');
  const want = Buffer.from(token);
  return given.length === want.length && timingSafeEqual(given, want);
}

export async function serveModel(opts: ServeModelOptions): Promise<ServedModel> {
  if ((opts.da === undefined) === (opts.ca === undefined)) throw new Error('serveModel: give exactly one of da and ca');
  const token = opts.token === undefined ? randomBytes(18).toString('base64url') : opts.token;
  const stats = { completions: 0, inFlight: 0, peakInFlight: 0 };
  const created = Math.floor(Date.now() / 1000);
  let counter = 0;

  async function completion(body: Record<string, unknown>) {
    const messages = body.messages;
    if (!Array.isArray(messages) || messages.length === 0) throw new HttpError(400, 'messages: expected a non-empty array');
    if (body.stream === true) throw new HttpError(400, 'stream: not supported by serve-model; send stream: false');
    const seed = typeof body.seed === 'number' ? body.seed : 0;
    const n = typeof body.n === 'number' && Number.isInteger(body.n) && body.n >= 1 ? Math.min(body.n, 16) : 1;
    if (opts.ca)
      return reply(messages as ChatMessage[], { role: 'assistant', content: await customerSays(messages as ChatMessage[], opts.ca, seed) }, 'stop', n);
    const da = opts.da!;
    let obs;
    try {
      obs = observationFromMessages(messages as ChatMessage[]);
    } catch (e) {
      if (e instanceof DaMessagesError) throw new HttpError(400, e.message);
      throw e;
    }
    const raw = await da.act(obs, new Rng(seed));
    const native = Array.isArray(body.tools) && body.tools.length > 0;
    const parsed = parseDaOutput(raw);
    let message: Record<string, unknown>;
    let finish = 'stop';
    if (native && parsed.ok) {
      const a = parsed.action;
      const call =
        a.action_type === 'tool_call'
          ? { name: a.content, arguments: JSON.stringify(a.tool_args) }
          : { name: a.action_type, arguments: JSON.stringify({ message: a.content }) };
      message = {
        role: 'assistant',
        content: a.thinking === '' ? null : a.thinking,
        tool_calls: [{ id: `call_${obs.turns.length}`, type: 'function', function: call }],
      };
      finish = 'tool_calls';
    } else message = { role: 'assistant', content: raw };
    return reply(messages as ChatMessage[], message, finish, n);
  }

  async function customerSays(messages: ChatMessage[], ca: CaPolicy, seed: number): Promise<string> {
    let obs;
    try {
      obs = caObservationFromMessages(messages);
    } catch (e) {
      if (e instanceof CaMessagesError) throw new HttpError(400, e.message);
      throw e;
    }
    return ca.speak(obs, new Rng(seed));
  }

  function reply(messages: ChatMessage[], message: Record<string, unknown>, finish: string, n: number) {
    const id = `chatcmpl-sparring-${++counter}`;
    const completionWords =
      words(typeof message.content === 'string' ? message.content : '') +
      (finish === 'tool_calls' ? words(JSON.stringify((message.tool_calls as unknown[])[0])) : 0);
    const promptWords = messages.reduce((s, m) => s + messageWords(m), 0);
    return {
      id,
      object: 'chat.completion',
      created,
      model: opts.modelId,
      choices: Array.from({ length: n }, (_, index) => ({ index, message, finish_reason: finish, logprobs: null })),
      usage: { prompt_tokens: promptWords, completion_tokens: completionWords * n, total_tokens: promptWords + completionWords * n },
    };
  }

  async function handle(req: IncomingMessage, res: ServerResponse) {
    const path = (req.url ?? '/').split('?')[0];
    if (token !== null && !tokenMatches(req.headers.authorization, token)) {
      throw new HttpError(
        401,
        'missing or wrong bearer token (the token serve-model printed; give the client its environment variable with --api-key-env)',
        'authentication_error',
      );
    }
    if (req.method === 'GET' && (path === '/v1/models' || path === '/models')) {
      send(res, 200, { object: 'list', data: [{ id: opts.modelId, object: 'model', created, owned_by: 'sparring' }] });
      return;
    }
    if (req.method === 'POST' && (path === '/v1/chat/completions' || path === '/chat/completions')) {
      const body = await readJson(req);
      if (typeof body !== 'object' || body === null || Array.isArray(body)) throw new HttpError(400, 'body: expected a JSON object');
      stats.inFlight++;
      stats.peakInFlight = Math.max(stats.peakInFlight, stats.inFlight);
      try {
        send(res, 200, await completion(body as Record<string, unknown>));
        stats.completions++;
      } finally {
        stats.inFlight--;
      }
      return;
    }
    throw new HttpError(404, `no route ${req.method} ${path}; serve-model answers GET /v1/models and POST /v1/chat/completions`);
  }

  const server: Server = createServer((req, res) => {
    handle(req, res).catch((e: unknown) => {
      const status = e instanceof HttpError ? e.status : 500;
      const type = e instanceof HttpError ? e.type : 'server_error';
      send(res, status, { error: { message: (e as Error).message, type, code: status } });
    });
  });
  const host = opts.host ?? '127.0.0.1';
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const url = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
  return {
    url,
    baseUrl: `${url}/v1`,
    token,
    stats,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((e) => (e ? reject(e) : resolve()));
      }),
  };
}
