/**
 * A CA (customer) played by an LLM. Its system prompt (RL-ADA Appendix D.2, `ca-system.v1.txt`)
 * carries the hidden intent, the facts the customer knows and the scenario's persona; the turn's
 * adversity directive (MADS: withhold a detail, reveal a constraint, revise the goal, a hostile
 * opening) goes in as a bracketed note on the last message. The agent's spoken words are the
 * user's messages, the customer's own are the assistant's.
 */
import type { CaPolicy, TurnContext } from '../../core/agents/policy';
import type { Rng } from '../../core/random';
import type { DetailSlot, Situation } from '../../core/domain/types';
import type { CaDirective } from '../../core/world/adversities';
import type { CaObservation } from '../../core/world/environment';
import type { AccountType } from '../../core/world/tool-types';
import type { ChatBackend, ChatMessage, ChatRequest } from './chat-backend';
import { completeThrough } from './ledger';
import type { LlmPolicyOptions } from './llm-da';
import { drawSeed, LlmPolicyBase } from './llm-da';
import { fillPrompt, PROMPT_VERSIONS, unfillPrompt } from './prompts';

/** The first user message, before the agent has said anything (chat templates want a user turn first). */
export const CALL_CONNECTS = '[The call connects. Say why you are calling.]';

function directiveNote(obs: CaObservation): string | null {
  const d = obs.adversity;
  if (!d) return null;
  const parts: string[] = [];
  if (d.hostile) parts.push(`open with, in your own words: "${d.hostile}"`);
  if (d.withhold) parts.push(`do not mention the ${d.withhold} yet`);
  if (d.revise) parts.push('drop what you asked before and state what you really need now');
  if (d.reveal) parts.push(`add: "${d.reveal}"`);
  return parts.length ? `[For this reply: ${parts.join('; ')}.]` : null;
}

export function caMessages(obs: CaObservation): ChatMessage[] {
  const f = obs.facts;
  const persona = obs.persona ? `Persona: ${obs.persona.name}. Style: ${obs.persona.style}` : '';
  const system = fillPrompt(PROMPT_VERSIONS.ca, {
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
  const msgs: ChatMessage[] = [{ role: 'system', content: system }];
  if (obs.dialogue[0]?.role !== 'agent') msgs.push({ role: 'user', content: CALL_CONNECTS });
  for (const d of obs.dialogue) msgs.push(d.role === 'agent' ? { role: 'user', content: d.text } : { role: 'assistant', content: d.text });
  const note = directiveNote(obs);
  const last = msgs.at(-1)!;
  if (note) {
    if (last.role === 'user') last.content = `${last.content}\n${note}`;
    else msgs.push({ role: 'user', content: note });
  }
  return msgs;
}

/** A list of messages that is not what `caMessages` writes, with where. */
export class CaMessagesError extends Error {
  override name = 'CaMessagesError';
}

const NOTE = /^\[For this reply: ([\s\S]*)\.\]$/;
const DIRECTIVE =
  /^(?:open with, in your own words: "([\s\S]*?)")?(?:(?:; )?do not mention the (\w+) yet)?(?:(?:; )?(drop what you asked before and state what you really need now))?(?:(?:; )?add: "([\s\S]*)")?$/;

/** The directive a bracketed note states (the inverse of `directiveNote`), or null when it is not one. */
function directiveOf(note: string): CaDirective | null {
  const inner = NOTE.exec(note)?.[1];
  const m = inner === undefined ? null : DIRECTIVE.exec(inner);
  if (!m || inner === '') return null;
  const d: CaDirective = {};
  if (m[1] !== undefined) d.hostile = m[1];
  if (m[2] !== undefined) d.withhold = m[2] as DetailSlot;
  if (m[3] !== undefined) d.revise = true;
  if (m[4] !== undefined) d.reveal = m[4];
  return d;
}

/**
 * The CA observation a list of messages describes (the inverse of `caMessages`), for
 * `sparring serve-model` serving a builtin CA: intent, situation, name, facts and persona from the
 * system prompt (`ca-system.v1.txt`, matched field by field), the dialogue from the messages
 * (user: the agent, assistant: the customer; the call-connects cue dropped), the directive from
 * the bracketed note on the last message. A persona's sample lines are not in the prompt, so they
 * come back empty; nothing a builtin CA reads is lost.
 */
export function caObservationFromMessages(messages: readonly ChatMessage[]): CaObservation {
  const system = messages[0];
  if (!system || system.role !== 'system') throw new CaMessagesError("messages[0]: expected the customer's system prompt");
  const v = unfillPrompt(PROMPT_VERSIONS.ca, system.content);
  if (!v) throw new CaMessagesError(`messages[0]: not the customer prompt assets/prompts/${PROMPT_VERSIONS.ca}.txt with its fields filled`);
  const amount = Number(v.amount);
  if (!Number.isFinite(amount)) throw new CaMessagesError(`messages[0]: amount "$${v.amount}" is not a number`);
  const dialogue: { role: 'agent' | 'customer'; text: string }[] = [];
  let adversity: CaDirective | null = null;
  for (let k = 0; k < messages.length - 1; k++) {
    const m = messages[k + 1]!;
    const where = `messages[${k + 1}]`;
    if (m.role !== 'user' && m.role !== 'assistant')
      throw new CaMessagesError(`${where}: role "${m.role}"; a customer's messages are user (the agent) and assistant (the customer)`);
    let text = m.content ?? '';
    if (k === messages.length - 2 && m.role === 'user') {
      const cut = text.lastIndexOf('[For this reply: ');
      const d = cut >= 0 ? directiveOf(text.slice(cut)) : null;
      if (d && (cut === 0 || text[cut - 1] === '\n')) {
        adversity = d;
        text = cut === 0 ? '' : text.slice(0, cut - 1);
        if (cut === 0 && k > 0) continue; // the note was a message of its own
      }
    }
    if (k === 0 && m.role === 'user' && text === CALL_CONNECTS) continue;
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

export class LlmCa extends LlmPolicyBase implements CaPolicy {
  constructor(backend: ChatBackend, opts: LlmPolicyOptions = {}) {
    // Customers vary: sampled, with the per-call seed keeping it reproducible.
    super(backend, opts, { temperature: 0.8, maxTokens: 160 });
  }

  request(obs: CaObservation, seed: number): ChatRequest {
    return { messages: caMessages(obs), temperature: this.temperature, max_tokens: this.maxTokens, seed };
  }

  async speak(obs: CaObservation, rng: Rng, ctx?: TurnContext): Promise<string> {
    const reply = await completeThrough(this.backend, this.ledger, this.request(obs, drawSeed(rng)), ctx ? { ...ctx, role: 'CA' } : null);
    return reply.text.trim();
  }
}
