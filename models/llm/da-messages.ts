/**
 * How a DA observation travels as chat messages, and how a reply comes back as the wire format.
 *
 * Two forms (`--tool-calls` of an endpoint):
 * - **text**: the reply's text is the wire-format JSON itself, parsed as it is; tool results come
 *   back as user messages `TOOL RESULT (tool): {json}`.
 * - **native**: the actions are functions (`tools`): the six banking tools, `speak` and `end_call`
 *   (`{"message": "..."}`); the reply's text is the thinking and its one tool call is the action.
 *   The call is written into the wire format with its arguments *verbatim* — malformed arguments
 *   make an unparseable turn, which earns the format penalty; nothing is repaired. A reply with
 *   no tool call is read as the text form; several calls in one reply are unparseable.
 *
 * The mapping back (`observationFromMessages`) is what `sparring serve-model` uses to hand a
 * builtin DA the same `DaObservation` the environment would have: the caller ID and the turn
 * limit come from the system prompt's `Caller ID:` and `Turn limit:` lines, the turns from the
 * messages, each assistant message re-parsed by the one parser. Round trip:
 * `observationFromMessages(daMessages(obs, mode))` equals `obs`.
 */
import { z } from 'zod';
import { TOOL_NAMES } from '../../core/domain/types';
import { toolArgSchemas } from '../../core/world/backend';
import type { DaObservation } from '../../core/world/environment';
import type { AgentTurn, ToolResult, Turn } from '../../core/world/transcript';
import { formatDaAction, parseDaOutput } from '../../core/wire';
import type { DaAction } from '../../core/wire';
import type { ChatMessage, ChatResult, ChatTool, ChatToolCall } from './chat-backend';
import { fillPrompt, PROMPT_VERSIONS } from './prompts';
import type { ToolCallMode } from './openai-backend';

/** One argument of a DA function: its JSON type, what it is, the values it takes (an enum), and whether it is required. */
interface ArgSpec {
  type: 'string' | 'integer' | 'number' | 'boolean';
  description: string;
  enum?: readonly string[];
  required?: true;
}

/**
 * The DA's functions in the trained form: the six banking tools (their arguments as
 * `core/world/backend.ts` validates them) plus `speak` and `end_call`, each also taking `thinking`
 * (the wire format's thinking field: an empty one forfeits r_format's +0.5). The order of the
 * arguments is the order a call writes them in: `thinking` first.
 */
export const DA_FUNCTIONS: Record<string, { description: string; args: Record<string, ArgSpec> }> = {
  lookup_account: {
    description: "Verify the caller by caller-ID phone number (always first); returns the customer's accounts and cards.",
    args: { phone: { type: 'string', description: "the caller's phone number (caller ID)", required: true } },
  },
  get_transactions: {
    description: 'Recent transactions of an account (at most 5).',
    args: { account_id: { type: 'string', description: 'the account', required: true }, limit: { type: 'integer', description: 'how many, 1 to 5' } },
  },
  dispute_charge: {
    description: 'Open a dispute on one transaction, by id or by merchant and/or amount.',
    args: {
      account_id: { type: 'string', description: 'the account', required: true },
      reason: { type: 'string', description: 'why', enum: ['unrecognized', 'duplicate', 'refund_missing', 'not_received', 'other'], required: true },
      transaction_id: { type: 'string', description: 'the transaction, when known' },
      merchant: { type: 'string', description: 'the merchant, when the id is not known' },
      amount: { type: 'number', description: 'the amount in dollars, when the id is not known' },
    },
  },
  check_card_status: {
    description: 'Status of a card; optionally lift a fraud-prevention block.',
    args: { card_id: { type: 'string', description: 'the card', required: true }, unblock: { type: 'boolean', description: 'lift a fraud-prevention block' } },
  },
  transfer_funds: {
    description: "Move money between the customer's own accounts.",
    args: {
      from_account_id: { type: 'string', description: 'the source account', required: true },
      to_account_id: { type: 'string', description: 'the destination account', required: true },
      amount: { type: 'number', description: 'dollars', required: true },
    },
  },
  transfer_to_human: {
    description: 'Hand the call to a human department.',
    args: {
      reason: { type: 'string', description: 'why', required: true },
      department: { type: 'string', description: 'where', enum: ['fraud', 'cards', 'accounts', 'general'] },
    },
  },
  speak: {
    description: "Say something to the customer (a question, or the explanation of a tool result); the customer's answer comes back.",
    args: { message: { type: 'string', description: 'what you say', required: true } },
  },
  end_call: {
    description: 'End the call, with closing words.',
    args: { message: { type: 'string', description: 'your closing words', required: true } },
  },
};

const THINKING: ArgSpec = { type: 'string', description: 'your reasoning before this move' };

/**
 * The functions of the trained form, each spec in the shape transformers' `get_json_schema` writes
 * for a Python function (property `type`, then `enum`, then `description`; `required` in order), so
 * the TRL adapter's methods, built from these specs (trainers/trl_adapter.py), render in a chat
 * template exactly as the specs a served model is given.
 */
export function daTools(): ChatTool[] {
  return Object.entries(DA_FUNCTIONS).map(([name, f]) => {
    const args: [string, ArgSpec][] = [['thinking', THINKING], ...Object.entries(f.args)];
    const properties = Object.fromEntries(args.map(([k, a]) => [k, { type: a.type, ...(a.enum ? { enum: [...a.enum] } : {}), description: a.description }]));
    const required = args.filter(([, a]) => a.required).map(([k]) => k);
    return { type: 'function', function: { name, description: f.description, parameters: { type: 'object', properties, required } } };
  });
}

/** The JSON schema of the wire format (the text form asks the server to constrain its output to it). */
export const DA_WIRE_SCHEMA: Record<string, unknown> = {
  type: 'object',
  properties: {
    thinking: { type: 'string' },
    action_type: { type: 'string', enum: ['speak', 'tool_call', 'end_call'] },
    content: { type: 'string' },
    tool_args: { type: 'object' },
  },
  required: ['thinking', 'action_type', 'content', 'tool_args'],
  additionalProperties: false,
};

/** String limits of the grammar form of the wire format (characters). */
export const DA_GRAMMAR_LIMITS = { thinking: 120, content: 200, arg: 64 } as const;

/**
 * The wire format as a local grammar can enforce it (a GGUF model, `gguf-backend.ts`): one branch
 * per action — `speak`/`end_call` with a message and `{}`, and one `tool_call` branch per banking
 * tool, its name fixed and its required arguments typed (enums, numbers, strings). Servers get the
 * looser `DA_WIRE_SCHEMA` (their json_schema support varies); a grammar can say more. Strings are
 * bounded (`DA_GRAMMAR_LIMITS`), so every output ends within `DA_GRAMMAR_MAX_TOKENS` tokens and
 * parses — even a random-weight model's. Optional tool arguments are left out: node-llama-cpp's
 * grammar makes every listed property required.
 */
export function daWireGrammarSchema(limits: typeof DA_GRAMMAR_LIMITS = DA_GRAMMAR_LIMITS): Record<string, unknown> {
  const thinking = { type: 'string', maxLength: limits.thinking };
  const bound = (p: Record<string, unknown>): Record<string, unknown> => {
    if (p.enum) return { enum: p.enum };
    if (p.type === 'string') return { type: 'string', minLength: p.minLength ?? 0, maxLength: limits.arg };
    if (p.type === 'integer' || p.type === 'number' || p.type === 'boolean') return { type: p.type };
    throw new Error(`daWireGrammarSchema: unsupported argument schema ${JSON.stringify(p)}`);
  };
  const branches: Record<string, unknown>[] = [
    {
      type: 'object',
      properties: {
        thinking,
        action_type: { enum: ['speak', 'end_call'] },
        content: { type: 'string', maxLength: limits.content },
        tool_args: { type: 'object', properties: {} },
      },
    },
  ];
  for (const name of TOOL_NAMES) {
    const params = z.toJSONSchema(toolArgSchemas[name]) as { properties: Record<string, Record<string, unknown>>; required?: string[] };
    const args = Object.fromEntries((params.required ?? []).map((k) => [k, bound(params.properties[k]!)]));
    branches.push({
      type: 'object',
      properties: { thinking, action_type: { const: 'tool_call' }, content: { const: name }, tool_args: { type: 'object', properties: args } },
    });
  }
  return { oneOf: branches };
}

/**
 * The trained form's call as a local grammar enforces it (a GGUF model given `tools`): the JSON
 * inside `<tool_call>…</tool_call>`, `{"name": …, "arguments": {…}}`, one branch per function, its
 * name fixed, `thinking` and the required arguments typed and bounded (`DA_GRAMMAR_LIMITS`).
 */
export function daCallGrammarSchema(limits: typeof DA_GRAMMAR_LIMITS = DA_GRAMMAR_LIMITS): Record<string, unknown> {
  const bound = (a: ArgSpec, max: number): Record<string, unknown> =>
    a.enum ? { enum: [...a.enum] } : a.type === 'string' ? { type: 'string', maxLength: max } : { type: a.type };
  return {
    oneOf: Object.entries(DA_FUNCTIONS).map(([name, f]) => {
      const required = Object.entries(f.args).filter(([, a]) => a.required);
      const max = name === 'speak' || name === 'end_call' ? limits.content : limits.arg;
      const args = Object.fromEntries([['thinking', bound(THINKING, limits.thinking)], ...required.map(([k, a]) => [k, bound(a, max)])]);
      return { type: 'object', properties: { name: { const: name }, arguments: { type: 'object', properties: args } } };
    }),
  };
}

/**
 * Most tokens a `daWireGrammarSchema` output can take: every string character written as a
 * six-byte `\uXXXX` escape, one byte per token (a grammar never admits an empty piece), plus the
 * JSON around it and its whitespace.
 */
export const DA_GRAMMAR_MAX_TOKENS = 6 * (DA_GRAMMAR_LIMITS.thinking + Math.max(DA_GRAMMAR_LIMITS.content, 3 * DA_GRAMMAR_LIMITS.arg)) + 512;

export function daSystemPrompt(obs: Pick<DaObservation, 'caller' | 'maxDaTurns'>, mode: ToolCallMode): string {
  return fillPrompt(mode === 'native' ? PROMPT_VERSIONS.daNative : PROMPT_VERSIONS.daText, { caller_phone: obs.caller.phone, max_turns: obs.maxDaTurns });
}

const TOOL_RESULT_PREFIX = 'TOOL RESULT';
const callId = (turn: number) => `call_${turn}`;

/** The tool message after `speak`: what the customer answered (the trained form's customer turn). */
export function customerResult(text: string): string {
  return JSON.stringify({ customer: text });
}

/** The tool message after a move that ended the call (end_call, or a speak the customer hung up on). */
export const CALL_ENDED = JSON.stringify({ call_ended: true });

/**
 * The trained form of one parsed agent turn: its function name and arguments, `thinking` first
 * (when not empty), then the arguments as parsed.
 */
export function nativeCall(action: DaAction): { name: string; arguments: Record<string, unknown> } {
  const thinking = action.thinking === '' ? {} : { thinking: action.thinking };
  if (action.action_type === 'tool_call') return { name: action.content.trim(), arguments: { ...thinking, ...action.tool_args } };
  return { name: action.action_type, arguments: { ...thinking, message: action.content } };
}

/**
 * The chat messages of a DA observation, system prompt first.
 *
 * The native form is the trained form, the one format every LLM DA trains and plays in (TRL's
 * `environment_factory` loop, `env serve`'s observations, `gym export`, `sparring export`, endpoint
 * and GGUF policies): each move is one assistant message holding one function call and no text,
 * its arguments an object (`thinking` first); a banking tool's result comes back as the tool message
 * (its JSON); `speak`'s tool message is the customer's answer (`{"customer": "..."}`), since a
 * tool-calling trainer can hand a model nothing but tool results between its calls; a move that
 * ended the call gets `{"call_ended": true}`. Only the customer's first words are a user message.
 * An unparseable output stays the assistant's text, as it was produced.
 *
 * Arguments are objects here, as chat templates want them (`{{ tool_call.arguments | tojson }}`
 * would encode a JSON string a second time); `toOpenAiMessages` turns them into the JSON text the
 * OpenAI API carries, which OpenAI-compatible servers (vLLM) decode again before templating.
 */
export function daMessages(obs: DaObservation, mode: ToolCallMode): ChatMessage[] {
  const msgs: ChatMessage[] = [{ role: 'system', content: daSystemPrompt(obs, mode) }];
  if (mode === 'native') return [...msgs, ...nativeTurns(obs.turns)];
  obs.turns.forEach((t) => {
    if (t.role === 'customer') {
      msgs.push({ role: 'user', content: t.text });
      return;
    }
    msgs.push({ role: 'assistant', content: t.raw });
    if (t.toolResult) msgs.push({ role: 'user', content: `${TOOL_RESULT_PREFIX} (${t.action?.content.trim() ?? ''}): ${JSON.stringify(t.toolResult)}` });
  });
  return msgs;
}

/** The dialogue turns in the trained form (see `daMessages`), arguments as objects. */
export function nativeTurns(turns: readonly Turn[], ended = false): ChatMessage[] {
  const msgs: ChatMessage[] = [];
  turns.forEach((t, i) => {
    if (t.role === 'customer') {
      const prev = msgs.at(-1);
      const pending = prev?.role === 'tool' && prev.content === PENDING ? prev : null;
      if (pending) pending.content = customerResult(t.text);
      else msgs.push({ role: 'user', content: t.text });
      return;
    }
    if (!t.action) {
      msgs.push({ role: 'assistant', content: t.raw });
      return;
    }
    const id = callId(i);
    const call = nativeCall(t.action);
    msgs.push({ role: 'assistant', content: '', tool_calls: [{ id, type: 'function', function: { name: call.name, arguments: call.arguments } }] });
    if (t.action.action_type === 'tool_call') msgs.push({ role: 'tool', tool_call_id: id, content: JSON.stringify(t.toolResult ?? null) });
    else if (t.action.action_type === 'speak') msgs.push({ role: 'tool', tool_call_id: id, content: PENDING });
    else msgs.push({ role: 'tool', tool_call_id: id, content: CALL_ENDED });
  });
  // A speak the customer has not answered: the episode ended there (or the caller asks before the answer).
  const last = msgs.at(-1);
  if (last?.role === 'tool' && last.content === PENDING) {
    if (ended) last.content = CALL_ENDED;
    else msgs.pop();
  }
  return msgs;
}

const PENDING = '\u0000pending';

/**
 * The wire-format output of a native reply: its one call is the action, with the call's
 * `thinking` argument as the thinking (the reply's text when the call has none). Arguments go in
 * verbatim, so what the parser sees is what the model wrote; a reply with no call is read as the
 * text form; several calls are unparseable. The one mapping from a function call to the wire
 * format: endpoint replies, served conversations, and `env serve`'s tool-call actions use it.
 */
export function wireFromNative(text: string, calls: readonly { name: string; arguments: string | Record<string, unknown> }[]): string {
  if (calls.length === 0) return text;
  const argText = (a: string | Record<string, unknown>) => (typeof a === 'string' ? a : JSON.stringify(a));
  if (calls.length > 1) return JSON.stringify(calls.map((c) => ({ name: c.name, arguments: argText(c.arguments) })));
  const { name } = calls[0]!;
  const raw = calls[0]!.arguments;
  let parsed: unknown = raw;
  if (typeof raw === 'string') {
    try {
      parsed = raw.trim() === '' ? {} : JSON.parse(raw);
    } catch {
      parsed = undefined;
    }
  }
  const o = parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed) ? { ...(parsed as Record<string, unknown>) } : undefined;
  let thinking: string = text;
  if (o && typeof o.thinking === 'string') {
    thinking = o.thinking;
    delete o.thinking;
  }
  const args = o ? JSON.stringify(o) : argText(raw);
  if (name === 'speak' || name === 'end_call') {
    if (o && Object.keys(o).length === 1 && typeof o.message === 'string') {
      return formatDaAction({ thinking, action_type: name, content: o.message, tool_args: {} });
    }
    return `{"thinking":${JSON.stringify(thinking)},"action_type":${JSON.stringify(name)},"content":"","tool_args":${args}}`;
  }
  return `{"thinking":${JSON.stringify(thinking)},"action_type":"tool_call","content":${JSON.stringify(name)},"tool_args":${args}}`;
}

/** The raw DA output of a reply, in the endpoint's form. */
export function wireFromReply(reply: Pick<ChatResult, 'text' | 'toolCalls'>, mode: ToolCallMode): string {
  return mode === 'native' ? wireFromNative(reply.text, reply.toolCalls) : reply.text;
}

/** A malformed request to a served DA: what is wrong and where (message index). */
export class DaMessagesError extends Error {
  override name = 'DaMessagesError';
}

function agentTurn(raw: string): AgentTurn {
  const parsed = parseDaOutput(raw);
  return parsed.ok ? { role: 'agent', raw, action: parsed.action } : { role: 'agent', raw, action: null, parseError: parsed.error };
}

function toolResultOf(text: string, where: string): ToolResult {
  try {
    return JSON.parse(text) as ToolResult;
  } catch (e) {
    throw new DaMessagesError(`${where}: the tool result is not JSON (${(e as Error).message})`);
  }
}

/** The DA observation a list of messages describes (the inverse of `daMessages`). */
export function observationFromMessages(messages: readonly ChatMessage[]): DaObservation {
  const system = messages[0];
  if (!system || system.role !== 'system') throw new DaMessagesError('messages[0]: expected the system prompt');
  const phone = /^Caller ID: (.+)$/m.exec(system.content)?.[1]?.trim();
  const limit = /^Turn limit: (\d+)$/m.exec(system.content)?.[1];
  if (!phone) throw new DaMessagesError('messages[0]: the system prompt has no "Caller ID: <phone>" line');
  if (!limit) throw new DaMessagesError('messages[0]: the system prompt has no "Turn limit: <n>" line');
  const turns: Turn[] = [];
  const lastAgent = () => {
    const t = turns.at(-1);
    return t?.role === 'agent' ? t : undefined;
  };
  messages.slice(1).forEach((m, k) => {
    const where = `messages[${k + 1}]`;
    switch (m.role) {
      case 'system':
        throw new DaMessagesError(`${where}: a second system message`);
      case 'user': {
        const prev = lastAgent();
        if (m.content.startsWith(TOOL_RESULT_PREFIX) && prev?.action?.action_type === 'tool_call') {
          prev.toolResult = toolResultOf(m.content.slice(m.content.indexOf(': ') + 2), where);
        } else turns.push({ role: 'customer', text: m.content });
        break;
      }
      case 'assistant': {
        const calls = (m.tool_calls ?? []).map((c: ChatToolCall) => c.function);
        turns.push(agentTurn(m.tool_calls?.length ? wireFromNative(m.content ?? '', calls) : (m.content ?? '')));
        break;
      }
      case 'tool': {
        const prev = lastAgent();
        if (!prev) throw new DaMessagesError(`${where}: a tool message with no assistant turn before it`);
        if (prev.action?.action_type === 'tool_call') prev.toolResult = toolResultOf(m.content, where);
        else if (prev.action?.action_type === 'speak') {
          // The trained form: the customer's answer as speak's result (`{"said": true}` or no JSON: nothing said).
          let said: unknown;
          try {
            said = JSON.parse(m.content);
          } catch {
            said = undefined;
          }
          const text = (said as { customer?: unknown } | undefined)?.customer;
          if (typeof text === 'string') turns.push({ role: 'customer', text });
        }
        break;
      }
    }
  });
  const daSteps = turns.filter((t) => t.role === 'agent').length;
  return { caller: { phone }, turns, daSteps, maxDaTurns: Number(limit) };
}
