/**
 * How a CA (customer) observation travels as chat messages, and how a reply comes back as the
 * customer's words: the customer's twin of `da-messages.ts`.
 *
 * Two forms (`--tool-calls` of an endpoint, as for the DA):
 * - **native**, the trained form, the one every LLM CA trains and plays in (TRL's
 *   `environment_factory` loop with `trainers/trl_adapter.py`, `env serve`'s CA observations,
 *   `gym export`, endpoint and GGUF policies): the system prompt `ca-system-native.v1` (the hidden
 *   intent, the facts, the persona); the agent's first words, or `CALL_CONNECTS` when the customer
 *   opens, as the one user message; each customer line one assistant message holding one call of
 *   the one function `say` (`{"utterance": "..."}`, an object) and no text; the call's tool message
 *   is what the agent said back, `{"agent": "..."}` (a tool-calling trainer can hand a model nothing
 *   but tool results between its calls), with `"call_ended": true` once the call is over. The
 *   turn's adversity directive (MADS: withhold a detail, reveal a constraint, revise the goal, a
 *   hostile opening) goes on the last message: the bracketed note after the user message, or
 *   `"for_this_reply"` in the tool message. The reply's one `say` call is what the customer says.
 * - **text**: the system prompt `ca-system.v1`; the agent's words are user messages, the
 *   customer's own assistant messages; the directive a bracketed note on the last message; the
 *   reply's text is what the customer says.
 *
 * The mapping back (`caObservationFromMessages`) is what `sparring serve-model` uses to hand a
 * builtin CA the observation the environment built; it reads either form.
 */
import type { DetailSlot, Situation } from '../../core/domain/types';
import type { CaDirective } from '../../core/world/adversities';
import type { CaObservation } from '../../core/world/environment';
import type { AccountType } from '../../core/world/tool-types';
import type { ChatMessage, ChatResult, ChatTool } from './chat-backend';
import type { ToolCallMode } from './openai-backend';
import { fillPrompt, PROMPT_VERSIONS, unfillPrompt } from './prompts';

/** The first user message, before the agent has said anything (chat templates want a user turn first). */
export const CALL_CONNECTS = '[The call connects. Say why you are calling.]';

/** The customer's one function in the trained form. */
export const CA_SAY = 'say';

/**
 * The customer's function, in the shape transformers' `get_json_schema` writes for a Python
 * function (so the TRL adapter's method, built from this spec by `trainers/trl_adapter.py`, renders
 * in a chat template exactly as the spec a served model is given).
 */
export function caTools(): ChatTool[] {
  return [
    {
      type: 'function',
      function: {
        name: CA_SAY,
        description: 'Say your next line to the support agent, in plain customer language.',
        parameters: { type: 'object', properties: { utterance: { type: 'string', description: 'what you say' } }, required: ['utterance'] },
      },
    },
  ];
}

/** String limit of the call grammar's utterance (characters; the DA's spoken content has as many). */
export const CA_GRAMMAR_UTTERANCE = 200;

/**
 * The trained form's call as a local grammar enforces it (a GGUF model given the CA's tools): the
 * JSON inside `<tool_call>…</tool_call>`, `{"name": "say", "arguments": {"utterance": "…"}}`.
 */
export function caCallGrammarSchema(max = CA_GRAMMAR_UTTERANCE): Record<string, unknown> {
  return {
    type: 'object',
    properties: { name: { const: CA_SAY }, arguments: { type: 'object', properties: { utterance: { type: 'string', maxLength: max } } } },
  };
}

/** Most tokens a `caCallGrammarSchema` output can take: every character a six-byte escape, one byte a token, plus the JSON around it. */
export const CA_GRAMMAR_MAX_TOKENS = 6 * CA_GRAMMAR_UTTERANCE + 64;

/** The directive's parts, as the notes and `for_this_reply` state them; null when it asks nothing. */
function directiveText(d: CaDirective | undefined): string | null {
  if (!d) return null;
  const parts: string[] = [];
  if (d.hostile) parts.push(`open with, in your own words: "${d.hostile}"`);
  if (d.withhold) parts.push(`do not mention the ${d.withhold} yet`);
  if (d.revise) parts.push('drop what you asked before and state what you really need now');
  if (d.reveal) parts.push(`add: "${d.reveal}"`);
  return parts.length ? parts.join('; ') : null;
}

const noteOf = (text: string) => `[For this reply: ${text}.]`;

export function caSystemPrompt(obs: CaObservation, mode: ToolCallMode): string {
  const f = obs.facts;
  const persona = obs.persona ? `Persona: ${obs.persona.name}. Style: ${obs.persona.style}` : '';
  return fillPrompt(mode === 'native' ? PROMPT_VERSIONS.caNative : PROMPT_VERSIONS.ca, {
    intent: obs.intent,
    situation: obs.situation.replaceAll('_', ' '),
    name: obs.name,
    merchant: f.merchant,
    amount: f.amount.toFixed(2),
    date: f.datePhrase,
    channel: f.channel,
    place: f.place,
    card_last4: f.cardLast4,
    account: f.account,
    persona,
  });
}

/** The tool message after a `say`: what the agent said back, the call's end, the next reply's directive. */
export function agentResult(r: { agent?: string; for_this_reply?: string; call_ended?: true }): string {
  return JSON.stringify({
    ...(r.agent !== undefined ? { agent: r.agent } : {}),
    ...(r.for_this_reply !== undefined ? { for_this_reply: r.for_this_reply } : {}),
    ...(r.call_ended ? { call_ended: true } : {}),
  });
}

/**
 * The chat messages of a CA observation, system prompt first (see the module's doc). `ended`: the
 * call is over (the environment's last observation), so the last tool message says so.
 */
export function caMessages(obs: CaObservation, mode: ToolCallMode = 'text', ended = false): ChatMessage[] {
  const msgs: ChatMessage[] = [{ role: 'system', content: caSystemPrompt(obs, mode) }];
  const note = ended ? null : directiveText(obs.adversity);
  if (mode === 'native') {
    // The agent's words before the customer's first line (usually none), then per customer line its
    // call and the agent's words after it.
    const d = obs.dialogue;
    let i = 0;
    const agentBlock = () => {
      const said: string[] = [];
      while (i < d.length && d[i]!.role === 'agent') said.push(d[i++]!.text);
      return said;
    };
    const first = agentBlock();
    msgs.push({ role: 'user', content: first.length ? first.join('\n') : CALL_CONNECTS });
    while (i < d.length) {
      const id = `call_${i}`;
      msgs.push({ role: 'assistant', content: '', tool_calls: [{ id, type: 'function', function: { name: CA_SAY, arguments: { utterance: d[i++]!.text } } }] });
      const said = agentBlock();
      const last = i >= d.length;
      msgs.push({
        role: 'tool',
        tool_call_id: id,
        content: agentResult({
          ...(said.length || !(last && ended) ? { agent: said.join('\n') } : {}),
          ...(last && note !== null ? { for_this_reply: note } : {}),
          ...(last && ended ? { call_ended: true as const } : {}),
        }),
      });
    }
    const last = msgs.at(-1)!;
    if (note !== null && last.role === 'user') last.content = `${last.content}\n${noteOf(note)}`;
    return msgs;
  }
  if (obs.dialogue[0]?.role !== 'agent') msgs.push({ role: 'user', content: CALL_CONNECTS });
  for (const t of obs.dialogue) msgs.push(t.role === 'agent' ? { role: 'user', content: t.text } : { role: 'assistant', content: t.text });
  const last = msgs.at(-1)!;
  if (note !== null) {
    if (last.role === 'user') last.content = `${last.content}\n${noteOf(note)}`;
    else msgs.push({ role: 'user', content: noteOf(note) });
  }
  return msgs;
}

/**
 * What the customer says, from a reply in the endpoint's form. Native: the utterance of the reply's
 * one `say` call; a reply with no call, its text (words are words); anything else (several calls,
 * another function, arguments without a string `utterance`) says nothing, as the arena hears it.
 */
export function utteranceFromReply(reply: Pick<ChatResult, 'text' | 'toolCalls'>, mode: ToolCallMode): string {
  if (mode === 'text' || reply.toolCalls.length === 0) return reply.text.trim();
  if (reply.toolCalls.length !== 1 || reply.toolCalls[0]!.name !== CA_SAY) return '';
  const u = argumentsOf(reply.toolCalls[0]!.arguments)?.utterance;
  return typeof u === 'string' ? u.trim() : '';
}

function argumentsOf(a: string | Record<string, unknown>): Record<string, unknown> | null {
  let v: unknown = a;
  if (typeof a === 'string') {
    try {
      v = JSON.parse(a);
    } catch {
      return null;
    }
  }
  return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : null;
}

/** A list of messages that is not what `caMessages` writes, with where. */
export class CaMessagesError extends Error {
  override name = 'CaMessagesError';
}

const DIRECTIVE =
  /^(?:open with, in your own words: "([\s\S]*?)")?(?:(?:; )?do not mention the (\w+) yet)?(?:(?:; )?(drop what you asked before and state what you really need now))?(?:(?:; )?add: "([\s\S]*)")?$/;

/** The directive a note's text states (the inverse of `directiveText`), or null when it is not one. */
function directiveOfText(inner: string): CaDirective | null {
  const m = DIRECTIVE.exec(inner);
  if (!m || inner === '') return null;
  const d: CaDirective = {};
  if (m[1] !== undefined) d.hostile = m[1];
  if (m[2] !== undefined) d.withhold = m[2] as DetailSlot;
  if (m[3] !== undefined) d.revise = true;
  if (m[4] !== undefined) d.reveal = m[4];
  return d;
}

const NOTE = /^\[For this reply: ([\s\S]*)\.\]$/;
const directiveOf = (note: string) => {
  const inner = NOTE.exec(note)?.[1];
  return inner === undefined ? null : directiveOfText(inner);
};

/** A user message's text without the directive note on its end, and the directive. */
function splitNote(text: string): { text: string; directive: CaDirective | null; own: boolean } {
  const cut = text.lastIndexOf('[For this reply: ');
  const d = cut >= 0 ? directiveOf(text.slice(cut)) : null;
  if (!d || !(cut === 0 || text[cut - 1] === '\n')) return { text, directive: null, own: false };
  return { text: cut === 0 ? '' : text.slice(0, cut - 1), directive: d, own: cut === 0 };
}

/**
 * The CA observation a list of messages describes (the inverse of `caMessages`, either form), for
 * `sparring serve-model` serving a builtin CA: intent, situation, name, facts and persona from the
 * system prompt (matched field by field), the dialogue from the messages, the directive from the
 * last message. A persona's sample lines are not in the prompt, so they come back empty; nothing a
 * builtin CA reads is lost.
 */
export function caObservationFromMessages(messages: readonly ChatMessage[]): CaObservation {
  const system = messages[0];
  if (!system || system.role !== 'system') throw new CaMessagesError("messages[0]: expected the customer's system prompt");
  const native = unfillPrompt(PROMPT_VERSIONS.caNative, system.content);
  const v = native ?? unfillPrompt(PROMPT_VERSIONS.ca, system.content);
  if (!v)
    throw new CaMessagesError(
      `messages[0]: not the customer prompt assets/prompts/${PROMPT_VERSIONS.caNative}.txt or ${PROMPT_VERSIONS.ca}.txt with its fields filled`,
    );
  const amount = Number(v.amount);
  if (!Number.isFinite(amount)) throw new CaMessagesError(`messages[0]: amount "$${v.amount}" is not a number`);
  const dialogue: { role: 'agent' | 'customer'; text: string }[] = [];
  let adversity: CaDirective | null = null;
  const lastIndex = messages.length - 1;
  for (let k = 1; k < messages.length; k++) {
    const m = messages[k]!;
    const where = `messages[${k}]`;
    if (native) {
      if (k === 1) {
        if (m.role !== 'user')
          throw new CaMessagesError(`${where}: role "${m.role}"; the trained form opens with one user message (the agent's words or the call connecting)`);
        const s = k === lastIndex ? splitNote(m.content) : { text: m.content, directive: null };
        adversity = s.directive;
        if (s.text !== CALL_CONNECTS) dialogue.push({ role: 'agent', text: s.text });
      } else if (m.role === 'assistant') {
        const calls = m.tool_calls ?? [];
        const u = calls.length === 1 && calls[0]!.function.name === CA_SAY ? argumentsOf(calls[0]!.function.arguments)?.utterance : undefined;
        if (typeof u !== 'string') throw new CaMessagesError(`${where}: a customer line in the trained form is one call of say with a string "utterance"`);
        dialogue.push({ role: 'customer', text: u });
      } else if (m.role === 'tool') {
        const r = argumentsOf(m.content);
        if (!r) throw new CaMessagesError(`${where}: the tool message is not a JSON object ({"agent": "..."})`);
        if (typeof r.agent === 'string' && r.agent !== '') dialogue.push({ role: 'agent', text: r.agent });
        if (k === lastIndex && typeof r.for_this_reply === 'string') adversity = directiveOfText(r.for_this_reply);
      } else throw new CaMessagesError(`${where}: role "${m.role}"; after the first, the trained form's messages are say calls and their results`);
      continue;
    }
    if (m.role !== 'user' && m.role !== 'assistant')
      throw new CaMessagesError(`${where}: role "${m.role}"; a customer's messages are user (the agent) and assistant (the customer)`);
    let text = m.content ?? '';
    if (k === lastIndex && m.role === 'user') {
      const s = splitNote(text);
      if (s.directive) {
        adversity = s.directive;
        text = s.text;
        if (s.own && k > 1) continue; // the note was a message of its own
      }
    }
    if (k === 1 && m.role === 'user' && text === CALL_CONNECTS) continue;
    dialogue.push({ role: m.role === 'user' ? 'agent' : 'customer', text });
  }
  const obs: CaObservation = {
    intent: v.intent!,
    situation: v.situation!.replaceAll(' ', '_') as Situation,
    facts: {
      merchant: v.merchant!,
      amount,
      datePhrase: v.date!,
      channel: v.channel!,
      place: v.place!,
      cardLast4: v.card_last4!,
      account: v.account as AccountType,
    },
    name: v.name!,
    dialogue,
  };
  if (adversity) obs.adversity = adversity;
  const persona = /^Persona: ([\s\S]*?)\. Style: ([\s\S]*)$/.exec(v.persona!);
  if (persona) obs.persona = { name: persona[1]!, style: persona[2]!, sampleMessages: [] };
  return obs;
}
