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
 * A CA checkpoint is served the same way: the messages `LlmCa` sends, in either form of
 * `models/llm/ca-messages.ts` (the trained form: the customer's lines as `say` calls, the agent's
 * words as their results; or text), are mapped back into the `CaObservation` the environment built
 * (`caObservationFromMessages`), and the builtin CA's utterance, sampled from `Rng(seed)` with the
 * request's seed, is the reply: its one `say` call when the request offers `say`, else its text.
 * So a match whose CA is played through this endpoint equals, episode for episode, the same match
 * with the checkpoint in process drawing each utterance from `Rng(seed)` with the same per-call
 * seed (what `LlmCa` sends: one draw from the episode's CA stream).
 *
 * Tokens: a builtin model has no tokenizer, so `usage` counts whitespace-separated words of the
 * messages (prompt) and of the reply (completion).
 *
 * Clients Sparring did not write (the `openai` SDK, the AI SDK) are answered as any OpenAI-compatible
 * server answers them: content given as parts (text parts joined by newlines), `developer`
 * messages read as `system` ones, a chat without Sparring's system prompt played with the
 * checkpoint's own prompt (caller ID and turn limit from `defaults`, or from whatever `Caller ID:` /
 * `Turn limit:` lines the client's system messages carry), `stream: true` as server-sent
 * `chat.completion.chunk` events (tool calls as deltas, then `data: [DONE]`), `tool_choice`
 * (`auto`, `none`, `required`, a named function: the DA chooses among the allowed tools only,
 * `BuiltinDa.actWithin`), the tools a client offers (the DA calls none it was not offered), 404 for
 * another model, and errors as `{"error": {"message", "type", "param", "code"}}` with a string code.
 *
 * Bound to loopback with a per-launch bearer token unless told otherwise; a browser page of another
 * origin, or a request by a non-loopback Host name, is refused 403 before the token is looked at
 * (`host/request-guard.ts`).
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { createServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { DA_CHOICES } from '../../core/agents/da-actions';
import type { DaChoice } from '../../core/agents/da-actions';
import type { CaPolicy, DaPolicy } from '../../core/agents/policy';
import { DEFAULT_CONFIG } from '../../core/config';
import { isToolName } from '../../core/domain/types';
import { Rng } from '../../core/random';
import { parseDaOutput } from '../../core/wire';
import type { DaObservation } from '../../core/world/environment';
import type { ChatMessage, ChatToolCall } from '../../models/llm/chat-backend';
import { DaMessagesError, daSystemPrompt, daTools, observationFromMessages } from '../../models/llm/da-messages';
import { CA_SAY, CaMessagesError, caObservationFromMessages } from '../../models/llm/ca-messages';
import { PROMPT_VERSIONS, unfillPrompt } from '../../models/llm/prompts';
import { crossOriginRefusal } from '../request-guard';

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
  /**
   * What a DA chat without Sparring's system prompt plays with: the caller ID its `lookup_account`
   * sends (default "unknown") and the turn limit (default: the arena's).
   */
  defaults?: { callerPhone?: string; maxDaTurns?: number };
  /** Browser origins allowed besides none (`http://host:port`); default: no web page may call. */
  allowOrigins?: readonly string[];
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

/** The largest request body read (a long chat is well under 1 MiB). */
export const MAX_BODY_BYTES = 8 * 1024 * 1024;
/** The most messages one request may carry. */
const MAX_MESSAGES = 4096;

/** A tool call's arguments as the JSON text OpenAI's API carries. */
const argumentText = (a: string | Record<string, unknown>) => (typeof a === 'string' ? a : JSON.stringify(a));
const words = (s: string) => (s.trim() === '' ? 0 : s.trim().split(/\s+/).length);

function messageWords(m: ChatMessage): number {
  const calls = m.role === 'assistant' ? (m.tool_calls ?? []).reduce((n, c) => n + words(argumentText(c.function.arguments)) + 1, 0) : 0;
  return words(m.content ?? '') + calls;
}

/** A refusal in OpenAI's error shape: HTTP status, message, string code, the request field at fault. */
class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly code: string,
    readonly param: string | null = null,
  ) {
    super(message);
  }
  get type(): string {
    if (this.status === 401) return 'authentication_error';
    if (this.status === 403) return 'permission_error';
    if (this.status === 404) return 'not_found_error';
    return this.status >= 500 ? 'server_error' : 'invalid_request_error';
  }
}

const invalid = (param: string, message: string, code = 'invalid_value') => new ApiError(400, `${param}: ${message}`, code, param);

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function readJson(req: IncomingMessage): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const declared = Number(req.headers['content-length'] ?? 0);
    let size = 0;
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size <= MAX_BODY_BYTES && declared <= MAX_BODY_BYTES) chunks.push(c);
    });
    req.on('error', reject);
    req.on('end', () => {
      if (size > MAX_BODY_BYTES || declared > MAX_BODY_BYTES)
        return reject(new ApiError(413, `request body of ${Math.max(size, declared)} bytes is over the limit of ${MAX_BODY_BYTES}`, 'request_too_large'));
      try {
        resolve(JSON.parse(Buffer.concat(chunks).toString('utf8')));
      } catch (e) {
        reject(new ApiError(400, `body is not JSON: ${(e as Error).message}`, 'invalid_json'));
      }
    });
  });
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

/** A message's content as text: a string, null, or OpenAI's content parts (text parts, joined by newlines). */
function textOf(content: unknown, where: string): string | null {
  if (content === null || content === undefined) return null;
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) throw invalid(where, 'expected a string or an array of content parts', 'invalid_type');
  return content
    .map((p, j) => {
      if (!isObject(p) || typeof p.type !== 'string') throw invalid(`${where}[${j}]`, 'a content part is an object with "type"', 'invalid_type');
      if (p.type === 'text' && typeof p.text === 'string') return p.text;
      if (p.type === 'refusal' && typeof p.refusal === 'string') return p.refusal;
      if (p.type === 'text') throw invalid(`${where}[${j}].text`, 'expected a string', 'invalid_type');
      throw invalid(`${where}[${j}].type`, `content part "${p.type}" is not supported: this checkpoint reads text only`, 'unsupported_content');
    })
    .join('\n');
}

/**
 * The request's messages in the lab's chat form: roles checked, `developer` read as `system`,
 * content parts joined into text, tool calls checked. Each refusal names the field.
 */
export function normaliseMessages(raw: unknown): ChatMessage[] {
  if (!Array.isArray(raw) || raw.length === 0) throw invalid('messages', 'expected a non-empty array', 'invalid_type');
  if (raw.length > MAX_MESSAGES) throw invalid('messages', `${raw.length} messages; at most ${MAX_MESSAGES}`);
  return raw.map((m: unknown, i): ChatMessage => {
    const where = `messages[${i}]`;
    if (!isObject(m)) throw invalid(where, 'expected an object with "role" and "content"', 'invalid_type');
    const content = textOf(m.content, `${where}.content`);
    switch (m.role) {
      case 'system':
      case 'developer':
        return { role: 'system', content: content ?? '' };
      case 'user':
        if (content === null) throw invalid(`${where}.content`, 'a user message needs content');
        return { role: 'user', content };
      case 'assistant': {
        const calls = m.tool_calls;
        if (calls === undefined || calls === null) return { role: 'assistant', content };
        if (!Array.isArray(calls)) throw invalid(`${where}.tool_calls`, 'expected an array', 'invalid_type');
        const toolCalls = calls.map((c: unknown, j): ChatToolCall => {
          const at = `${where}.tool_calls[${j}]`;
          if (!isObject(c) || !isObject(c.function) || typeof c.function.name !== 'string')
            throw invalid(at, 'a tool call is {"id", "type": "function", "function": {"name", "arguments"}}', 'invalid_type');
          const args = c.function.arguments ?? '';
          if (typeof args !== 'string') throw invalid(`${at}.function.arguments`, 'expected a JSON string', 'invalid_type');
          return { id: typeof c.id === 'string' ? c.id : `call_${i}_${j}`, type: 'function', function: { name: c.function.name, arguments: args } };
        });
        return toolCalls.length ? { role: 'assistant', content, tool_calls: toolCalls } : { role: 'assistant', content };
      }
      case 'tool':
        if (typeof m.tool_call_id !== 'string') throw invalid(`${where}.tool_call_id`, 'a tool message names the call it answers', 'invalid_type');
        return { role: 'tool', tool_call_id: m.tool_call_id, content: content ?? '' };
      default:
        throw invalid(`${where}.role`, `${JSON.stringify(m.role ?? null)} is not one of system, developer, user, assistant, tool`);
    }
  });
}

/** The function names a request offers (`tools`), or null when it offers none. */
function offeredTools(tools: unknown): string[] | null {
  if (tools === undefined || tools === null) return null;
  if (!Array.isArray(tools)) throw invalid('tools', 'expected an array of {"type": "function", "function": {...}}', 'invalid_type');
  if (tools.length === 0) return null;
  return tools.map((t: unknown, i) => {
    if (!isObject(t) || t.type !== 'function' || !isObject(t.function) || typeof t.function.name !== 'string')
      throw invalid(`tools[${i}]`, 'expected {"type": "function", "function": {"name", "parameters"}}', 'invalid_type');
    return t.function.name;
  });
}

type ToolChoice = { kind: 'auto' | 'none' | 'required' } | { kind: 'named'; name: string };

function toolChoiceOf(v: unknown, offered: string[] | null): ToolChoice {
  let c: ToolChoice;
  if (v === undefined || v === null || v === 'auto') c = { kind: 'auto' };
  else if (v === 'none' || v === 'required') c = { kind: v };
  else if (isObject(v) && v.type === 'function' && isObject(v.function) && typeof v.function.name === 'string') c = { kind: 'named', name: v.function.name };
  else throw invalid('tool_choice', 'expected "auto", "none", "required" or {"type": "function", "function": {"name": ...}}');
  if ((c.kind === 'required' || c.kind === 'named') && offered === null)
    throw invalid('tool_choice', `"${c.kind === 'named' ? c.name : 'required'}" needs "tools"`);
  if (c.kind === 'named' && !offered!.includes(c.name)) throw invalid('tool_choice', `function "${c.name}" is not among the request's tools`);
  return c;
}

/** The DA's functions (the banking tools, speak, end_call) and the choices each one stands for. */
const DA_FUNCTIONS = daTools().map((t) => t.function.name);
function choicesFor(name: string): DaChoice[] {
  if (name === 'speak') return ['ask', 'explain'];
  if (name === 'end_call') return ['end_call'];
  return isToolName(name) ? [name] : [];
}

/** A DA that can choose within a set (BuiltinDa). */
interface RestrictableDa extends DaPolicy {
  actWithin(obs: DaObservation, rng: Rng, allowed?: ReadonlySet<DaChoice>): Promise<string>;
}
const restrictable = (da: DaPolicy): da is RestrictableDa => typeof (da as Partial<RestrictableDa>).actWithin === 'function';

interface Reply {
  message: { role: 'assistant'; content: string | null; tool_calls?: ChatToolCall[] };
  finish: 'stop' | 'tool_calls';
}

/** Text pieces of a streamed string (a word or so each), so that clients see real deltas. */
function pieces(s: string, size = 16): string[] {
  const out: string[] = [];
  for (let i = 0; i < s.length; i += size) out.push(s.slice(i, i + size));
  return out;
}

export async function serveModel(opts: ServeModelOptions): Promise<ServedModel> {
  if ((opts.da === undefined) === (opts.ca === undefined)) throw new Error('serveModel: give exactly one of da and ca');
  const token = opts.token === undefined ? randomBytes(18).toString('base64url') : opts.token;
  const stats = { completions: 0, inFlight: 0, peakInFlight: 0 };
  const created = Math.floor(Date.now() / 1000);
  const host = opts.host ?? '127.0.0.1';
  const callerPhone = opts.defaults?.callerPhone ?? 'unknown';
  const maxDaTurns = opts.defaults?.maxDaTurns ?? DEFAULT_CONFIG.arena.maxDaTurns;
  let counter = 0;

  /**
   * The DA conversation with the checkpoint's own system prompt first: Sparring's prompt when the
   * client sent it (its caller ID and turn limit), else the defaults; any other system text is the
   * client's instruction, which a builtin checkpoint cannot read.
   */
  function daConversation(messages: ChatMessage[], native: boolean): ChatMessage[] {
    // A customer's prompt sent to an agent: the lab is offering this checkpoint as the other role.
    const caPrompt = (m: ChatMessage) =>
      m.role === 'system' ? [PROMPT_VERSIONS.ca, PROMPT_VERSIONS.caNative].find((v) => unfillPrompt(v, m.content) !== null) : undefined;
    const ca = messages.findIndex((m) => caPrompt(m) !== undefined);
    if (ca >= 0)
      throw new ApiError(
        400,
        `messages[${ca}]: the customer's prompt (assets/prompts/${caPrompt(messages[ca]!)}.txt); this checkpoint plays the agent (DA), not the customer`,
        'invalid_value',
        `messages[${ca}]`,
      );
    const system = messages
      .filter((m) => m.role === 'system')
      .map((m) => m.content)
      .join('\n');
    const phone = /^Caller ID: (.+)$/m.exec(system)?.[1]?.trim() || callerPhone;
    const limit = /^Turn limit: (\d+)$/m.exec(system)?.[1];
    const prompt = daSystemPrompt({ caller: { phone }, maxDaTurns: limit ? Number(limit) : maxDaTurns }, native ? 'native' : 'text');
    return [{ role: 'system', content: prompt }, ...messages.filter((m) => m.role !== 'system')];
  }

  async function daReply(da: DaPolicy, messages: ChatMessage[], body: Record<string, unknown>, seed: number): Promise<Reply> {
    const offered = offeredTools(body.tools);
    const choice = toolChoiceOf(body.tool_choice, offered);
    // The functions the DA may call this turn; null: it answers in text (the wire format).
    let callable: string[] | null = null;
    if (offered !== null && choice.kind !== 'none') {
      const known = offered.filter((n) => DA_FUNCTIONS.includes(n));
      if (choice.kind === 'named') {
        if (!DA_FUNCTIONS.includes(choice.name))
          throw invalid('tool_choice', `this checkpoint cannot call "${choice.name}"; it calls ${DA_FUNCTIONS.join(', ')}`);
        callable = [choice.name];
      } else if (known.length > 0) callable = known;
      else if (choice.kind === 'required') throw invalid('tools', `none of the request's functions is one this checkpoint calls (${DA_FUNCTIONS.join(', ')})`);
    }
    let obs;
    try {
      obs = observationFromMessages(daConversation(messages, callable !== null));
    } catch (e) {
      if (e instanceof DaMessagesError) throw new ApiError(400, e.message, 'invalid_value', 'messages');
      throw e;
    }
    const allowed = callable === null ? null : new Set(callable.flatMap(choicesFor));
    const raw =
      allowed !== null && allowed.size < DA_CHOICES.length && restrictable(da)
        ? await da.actWithin(obs, new Rng(seed), allowed)
        : await da.act(obs, new Rng(seed));
    const parsed = parseDaOutput(raw);
    if (callable !== null && parsed.ok) {
      const a = parsed.action;
      const call =
        a.action_type === 'tool_call'
          ? { name: a.content, arguments: JSON.stringify(a.tool_args) }
          : { name: a.action_type, arguments: JSON.stringify({ message: a.content }) };
      if (callable.includes(call.name)) {
        return {
          message: {
            role: 'assistant',
            content: a.thinking === '' ? null : a.thinking,
            tool_calls: [{ id: `call_${obs.turns.length}`, type: 'function', function: call }],
          },
          finish: 'tool_calls',
        };
      }
    }
    if (callable !== null && choice.kind !== 'auto')
      throw new ApiError(500, `the checkpoint's answer is not a call of ${callable.join(' or ')} (tool_choice ${choice.kind})`, 'tool_choice_unmet');
    return { message: { role: 'assistant', content: raw }, finish: 'stop' };
  }

  async function caReply(ca: CaPolicy, messages: ChatMessage[], body: Record<string, unknown>, seed: number): Promise<Reply> {
    const offered = offeredTools(body.tools);
    const choice = toolChoiceOf(body.tool_choice, offered);
    // The trained form (`ca-messages.ts`): offered `say`, the customer's line is its one call.
    const says = offered !== null && offered.includes(CA_SAY) && choice.kind !== 'none';
    if (choice.kind === 'named' && choice.name !== CA_SAY)
      throw invalid('tool_choice', `this customer checkpoint calls only "${CA_SAY}", not "${choice.name}"`);
    if (choice.kind === 'required' && !says) throw invalid('tools', `a customer checkpoint calls only "${CA_SAY}", which the request's tools do not hold`);
    let obs;
    try {
      obs = caObservationFromMessages(messages);
    } catch (e) {
      if (e instanceof CaMessagesError) throw new ApiError(400, e.message, 'invalid_value', 'messages');
      throw e;
    }
    const said = await ca.speak(obs, new Rng(seed));
    if (says) {
      const call = { name: CA_SAY, arguments: JSON.stringify({ utterance: said }) };
      return {
        message: { role: 'assistant', content: null, tool_calls: [{ id: `call_${obs.dialogue.length}`, type: 'function', function: call }] },
        finish: 'tool_calls',
      };
    }
    return { message: { role: 'assistant', content: said }, finish: 'stop' };
  }

  async function completion(body: Record<string, unknown>) {
    if (body.model !== undefined && typeof body.model !== 'string') throw invalid('model', 'expected a string', 'invalid_type');
    if (typeof body.model === 'string' && body.model !== opts.modelId)
      throw new ApiError(404, `The model "${body.model}" does not exist; this server serves "${opts.modelId}"`, 'model_not_found', 'model');
    if (body.stream !== undefined && body.stream !== null && typeof body.stream !== 'boolean') throw invalid('stream', 'expected a boolean', 'invalid_type');
    if (body.seed !== undefined && body.seed !== null && !Number.isSafeInteger(body.seed)) throw invalid('seed', 'expected an integer', 'invalid_type');
    if (body.n !== undefined && body.n !== null && !(Number.isInteger(body.n) && (body.n as number) >= 1 && (body.n as number) <= 128))
      throw invalid('n', 'expected an integer from 1 to 128');
    const messages = normaliseMessages(body.messages);
    const seed = typeof body.seed === 'number' ? body.seed : 0;
    const n = typeof body.n === 'number' ? body.n : 1;
    const r = opts.ca ? await caReply(opts.ca, messages, body, seed) : await daReply(opts.da!, messages, body, seed);
    const completionWords = words(r.message.content ?? '') + (r.message.tool_calls ? words(JSON.stringify(r.message.tool_calls[0])) : 0);
    const promptWords = messages.reduce((s, m) => s + messageWords(m), 0);
    return {
      id: `chatcmpl-sparring-${++counter}`,
      object: 'chat.completion',
      created,
      model: opts.modelId,
      choices: Array.from({ length: n }, (_, index) => ({ index, message: r.message, finish_reason: r.finish, logprobs: null })),
      usage: { prompt_tokens: promptWords, completion_tokens: completionWords * n, total_tokens: promptWords + completionWords * n },
    };
  }

  /** A completion as OpenAI's server-sent events: role, content and tool-call deltas, the finish, usage if asked, [DONE]. */
  function stream(res: ServerResponse, c: Awaited<ReturnType<typeof completion>>, includeUsage: boolean): void {
    res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache', connection: 'keep-alive' });
    const chunk = (choices: unknown[], extra: Record<string, unknown> = {}) =>
      res.write(
        `data: ${JSON.stringify({ id: c.id, object: 'chat.completion.chunk', created: c.created, model: c.model, choices, ...(includeUsage ? { usage: null } : {}), ...extra })}\n\n`,
      );
    for (const ch of c.choices) {
      const delta = (d: Record<string, unknown>, finish: string | null = null) => chunk([{ index: ch.index, delta: d, logprobs: null, finish_reason: finish }]);
      delta({ role: 'assistant', content: '' });
      for (const p of pieces(ch.message.content ?? '')) delta({ content: p });
      (ch.message.tool_calls ?? []).forEach((call, index) => {
        delta({ tool_calls: [{ index, id: call.id, type: 'function', function: { name: call.function.name, arguments: '' } }] });
        for (const p of pieces(argumentText(call.function.arguments))) delta({ tool_calls: [{ index, function: { arguments: p } }] });
      });
      delta({}, ch.finish_reason);
    }
    if (includeUsage) chunk([], { usage: c.usage });
    res.end('data: [DONE]\n\n');
  }

  async function handle(req: IncomingMessage, res: ServerResponse) {
    const path = (req.url ?? '/').split('?')[0];
    const foreign = crossOriginRefusal(req, { bound: host, ...(opts.allowOrigins ? { allowOrigins: opts.allowOrigins } : {}) });
    if (foreign) throw new ApiError(403, foreign, 'forbidden_origin');
    if (token !== null && !tokenMatches(req.headers.authorization, token)) {
      throw new ApiError(
        401,
        'missing or wrong bearer token (the token serve-model printed; give the client its environment variable with --api-key-env)',
        'invalid_api_key',
      );
    }
    if (req.method === 'GET' && (path === '/v1/models' || path === '/models')) {
      send(res, 200, { object: 'list', data: [{ id: opts.modelId, object: 'model', created, owned_by: 'sparring' }] });
      return;
    }
    if (req.method === 'GET' && (path?.startsWith('/v1/models/') || path?.startsWith('/models/'))) {
      const id = decodeURIComponent(path.slice(path.lastIndexOf('/models/') + 8));
      if (id !== opts.modelId) throw new ApiError(404, `The model "${id}" does not exist; this server serves "${opts.modelId}"`, 'model_not_found', 'model');
      send(res, 200, { id: opts.modelId, object: 'model', created, owned_by: 'sparring' });
      return;
    }
    if (req.method === 'POST' && (path === '/v1/chat/completions' || path === '/chat/completions')) {
      const body = await readJson(req);
      if (!isObject(body)) throw new ApiError(400, 'body: expected a JSON object', 'invalid_type');
      stats.inFlight++;
      stats.peakInFlight = Math.max(stats.peakInFlight, stats.inFlight);
      try {
        const c = await completion(body);
        if (body.stream === true) stream(res, c, isObject(body.stream_options) && body.stream_options.include_usage === true);
        else send(res, 200, c);
        stats.completions++;
      } finally {
        stats.inFlight--;
      }
      return;
    }
    throw new ApiError(404, `no route ${req.method} ${path}; serve-model answers GET /v1/models and POST /v1/chat/completions`, 'unknown_url');
  }

  const server: Server = createServer((req, res) => {
    handle(req, res).catch((e: unknown) => {
      const err = e instanceof ApiError ? e : new ApiError(500, (e as Error).message, 'internal_error');
      if (res.headersSent) return void res.end();
      // A refused body may still be arriving: answer, and close the connection rather than read it all.
      if (err.status === 413) res.setHeader('connection', 'close');
      send(res, err.status, { error: { message: err.message, type: err.type, param: err.param, code: err.code } });
    });
  });
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
