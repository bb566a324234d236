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
import type { ChatMessage, ChatResult, ChatTool, ChatToolCall } from './chat-backend';
import { fillPrompt, PROMPT_VERSIONS } from './prompts';
import type { ToolCallMode } from './openai-backend';

const TOOL_DESCRIPTIONS: Record<(typeof TOOL_NAMES)[number], string> = {
  lookup_account: 'verify customer identity (always first)',
  get_transactions: 'retrieve last 5 transactions',
  dispute_charge: 'file a dispute',
  check_card_status: 'check/unblock a declined card',
  transfer_funds: 'move money between accounts',
  transfer_to_human: 'escalate to specialist',
};

const MESSAGE_PARAMS = { type: 'object', properties: { message: { type: 'string' } }, required: ['message'], additionalProperties: false };

/** The functions of the native form: the banking tools (their argument schemas) plus speak and end_call. */
export function daTools(): ChatTool[] {
  const tools: ChatTool[] = TOOL_NAMES.map((name) => {
    const parameters = z.toJSONSchema(toolArgSchemas[name]) as Record<string, unknown>;
    delete parameters.$schema;
    return { type: 'function', function: { name, description: TOOL_DESCRIPTIONS[name], parameters } };
  });
  tools.push({ type: 'function', function: { name: 'speak', description: 'say something to the customer', parameters: MESSAGE_PARAMS } });
  tools.push({ type: 'function', function: { name: 'end_call', description: 'end the call with a closing message', parameters: MESSAGE_PARAMS } });
  return tools;
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

/** The native form of one parsed agent turn: its function name and arguments text. */
function nativeCall(turn: AgentTurn): { name: string; arguments: string } | null {
  const a = turn.action;
  if (!a) return null;
  if (a.action_type === 'tool_call') return { name: a.content, arguments: JSON.stringify(a.tool_args) };
  return { name: a.action_type, arguments: JSON.stringify({ message: a.content }) };
}

/** The chat messages of a DA observation, system prompt first. */
export function daMessages(obs: DaObservation, mode: ToolCallMode): ChatMessage[] {
  const msgs: ChatMessage[] = [{ role: 'system', content: daSystemPrompt(obs, mode) }];
  obs.turns.forEach((t, i) => {
    if (t.role === 'customer') {
      msgs.push({ role: 'user', content: t.text });
      return;
    }
    const call = mode === 'native' ? nativeCall(t) : null;
    if (!call) {
      msgs.push({ role: 'assistant', content: t.raw });
      if (t.toolResult) msgs.push({ role: 'user', content: `${TOOL_RESULT_PREFIX} (${t.action?.content.trim() ?? ''}): ${JSON.stringify(t.toolResult)}` });
      return;
    }
    const id = callId(i);
    msgs.push({ role: 'assistant', content: t.action!.thinking === '' ? null : t.action!.thinking, tool_calls: [{ id, type: 'function', function: call }] });
    if (t.toolResult) msgs.push({ role: 'tool', tool_call_id: id, content: JSON.stringify(t.toolResult) });
    else if (t.action!.action_type === 'speak') msgs.push({ role: 'tool', tool_call_id: id, content: '{"said": true}' });
  });
  return msgs;
}

/**
 * The wire-format output of a native reply (text = thinking, one tool call = the action). The
 * arguments go in verbatim, so what the parser sees is what the model wrote.
 */
export function wireFromNative(text: string, calls: readonly { name: string; arguments: string }[]): string {
  if (calls.length === 0) return text;
  if (calls.length > 1) return JSON.stringify(calls.map((c) => ({ name: c.name, arguments: c.arguments })));
  const { name, arguments: args } = calls[0]!;
  if (name === 'speak' || name === 'end_call') {
    let parsed: unknown;
    try {
      parsed = JSON.parse(args);
    } catch {
      parsed = undefined;
    }
    const o = parsed as Record<string, unknown> | undefined;
    if (o && typeof o === 'object' && !Array.isArray(o) && Object.keys(o).length === 1 && typeof o.message === 'string') {
      return formatDaAction({ thinking: text, action_type: name, content: o.message, tool_args: {} });
    }
    return `{"thinking":${JSON.stringify(text)},"action_type":${JSON.stringify(name)},"content":"","tool_args":${args}}`;
  }
  return `{"thinking":${JSON.stringify(text)},"action_type":"tool_call","content":${JSON.stringify(name)},"tool_args":${args}}`;
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
        break;
      }
    }
  });
  const daSteps = turns.filter((t) => t.role === 'agent').length;
  return { caller: { phone }, turns, daSteps, maxDaTurns: Number(limit) };
}
