/**
 * The chat backend port: what every LLM policy (DA, CA, later the judge) calls, whatever serves
 * the model — an OpenAI-compatible endpoint (`openai-backend.ts`) today, a local GGUF file through
 * node-llama-cpp later. Keep it stable: backends implement it, policies depend only on it.
 *
 * Messages follow the OpenAI chat format (roles system/user/assistant/tool, `tool_calls` on an
 * assistant message, `tool_call_id` on a tool message), since every server this lab talks to
 * speaks it.
 */

/**
 * A tool call in a message: `arguments` is the model's JSON text, exactly as produced (it may not
 * parse), as the OpenAI API carries it, or an object, as chat templates want it (the trained form
 * of `da-messages.ts`; `toOpenAiMessages` turns it into text before a request leaves).
 */
export interface ChatToolCall {
  id: string;
  type: 'function';
  function: { name: string; arguments: string | Record<string, unknown> };
}

export type ChatMessage =
  | { role: 'system'; content: string }
  | { role: 'user'; content: string }
  | { role: 'assistant'; content: string | null; tool_calls?: ChatToolCall[] }
  | { role: 'tool'; content: string; tool_call_id: string };

/** A message as the OpenAI API carries it: every tool call's arguments as JSON text. */
export type OpenAiMessage =
  | Exclude<ChatMessage, { role: 'assistant' }>
  | { role: 'assistant'; content: string | null; tool_calls?: (Omit<ChatToolCall, 'function'> & { function: { name: string; arguments: string } })[] };

/** Messages with every tool call's arguments as the JSON text the OpenAI API carries. */
export function toOpenAiMessages(messages: readonly ChatMessage[]): OpenAiMessage[] {
  return messages.map((m): OpenAiMessage => {
    if (m.role !== 'assistant') return m;
    const { tool_calls, ...rest } = m;
    if (!tool_calls) return rest;
    return {
      ...rest,
      tool_calls: tool_calls.map((c) => ({
        ...c,
        function: { name: c.function.name, arguments: typeof c.function.arguments === 'string' ? c.function.arguments : JSON.stringify(c.function.arguments) },
      })),
    };
  });
}

/** A function the model may call, with a JSON schema of its parameters. */
export interface ChatTool {
  type: 'function';
  function: { name: string; description: string; parameters: Record<string, unknown> };
}

export interface ChatRequest {
  messages: ChatMessage[];
  tools?: ChatTool[];
  temperature: number;
  top_p?: number;
  max_tokens: number;
  /** Per-call seed, drawn from the episode's stream, so a re-run sends the identical request. */
  seed?: number;
  /** A JSON schema the output must match: grammar-constrained where the backend can, else asked for. */
  responseSchema?: Record<string, unknown>;
  /** Completions wanted; servers that ignore it (Ollama) return one. */
  n?: number;
}

export interface ChatResult {
  /** The first choice's text content ('' when the model only called tools). */
  text: string;
  /** The first choice's tool calls; `arguments` as the model wrote them (may be malformed JSON). */
  toolCalls: { name: string; arguments: string }[];
  tokensIn: number;
  tokensOut: number;
  latencyMs: number;
  /** The model the server says answered. */
  model: string;
  finishReason: string;
  /** True when the lab's response cache answered and no server was called. */
  cached?: boolean;
}

export interface ChatBackend {
  /** The endpoint's name in the lab (or a GGUF file's), for records and errors. */
  readonly id: string;
  readonly model: string;
  /** Most requests this backend has in flight at once; a match keeps this many episodes going. */
  readonly maxConcurrency: number;
  complete(req: ChatRequest, signal?: AbortSignal): Promise<ChatResult>;
}

/** Why a call failed after its retries: the kinds a caller can tell apart. */
export type ChatFailureKind = 'timeout' | 'rate_limited' | 'server_error' | 'connection' | 'bad_request' | 'bad_response' | 'aborted';

/**
 * A call that failed for reasons of infrastructure (not the model's output): the match it belongs
 * to fails as one transaction and nothing of it is stored (docs/llms.md, "Bring your own models").
 */
export class ChatBackendError extends Error {
  override name = 'ChatBackendError';
  constructor(
    readonly backend: string,
    readonly kind: ChatFailureKind,
    /** What went wrong, without the backend's name, the kind or the attempts (the message has them). */
    readonly detail: string,
    readonly attempts: number,
    options?: { cause?: unknown },
  ) {
    const tries = attempts > 0 ? ` after ${attempts} attempt${attempts === 1 ? '' : 's'}` : '';
    super(`endpoint "${backend}": ${kind.replace('_', ' ')}${tries}: ${detail}`, options);
  }
}

/** Who made a call: the agent (DA), the customer (CA), or the judge scoring a finished episode. */
export type CallRole = 'DA' | 'CA' | 'judge';

/**
 * Where a call was made from (for the call records): the episode and the turn index it produces
 * (a judge's call: the episode's turn count, the verdict coming after its last turn), and who
 * made it. A judge call outside a stored episode (a gym rollout, `judge-eval`) has no episode.
 */
export interface CallSite {
  episodeId: string | null;
  turn: number | null;
  role: CallRole;
}

/** One recorded call (model, parameters, seed, latency, tokens) — what the lab keeps per turn. */
export interface CallRecord {
  endpoint: string;
  model: string;
  site: CallSite | null;
  requestKey: string;
  params: { temperature: number; top_p?: number; max_tokens: number; n?: number; tools: number; responseSchema: boolean };
  seed: number | null;
  latencyMs: number;
  tokensIn: number;
  tokensOut: number;
  cached: boolean;
  finishReason: string;
}

/**
 * The lab side of calls: a response cache keyed by the exact request, and the call records.
 * Writes are held until the command that made the calls commits (a match writes them in its own
 * transaction), so a failed command leaves the lab unchanged.
 */
export interface CallLedger {
  cached(key: string): ChatResult | undefined;
  record(rec: CallRecord, result: ChatResult): void;
}
