/**
 * A CA (customer) played by an LLM. Its system prompt (RL-ADA Appendix D.2, `ca-system.v1.txt`)
 * carries the hidden intent, the facts the customer knows and the scenario's persona; the turn's
 * adversity directive (MADS: withhold a detail, reveal a constraint, revise the goal, a hostile
 * opening) goes in as a bracketed note on the last message. The agent's spoken words are the
 * user's messages, the customer's own are the assistant's.
 */
import type { CaPolicy, TurnContext } from '../../core/agents/policy';
import type { Rng } from '../../core/random';
import type { CaObservation } from '../../core/world/environment';
import type { CallLedger, ChatBackend, ChatMessage, ChatRequest } from './chat-backend';
import { completeThrough } from './ledger';
import type { LlmPolicyOptions } from './llm-da';
import { drawSeed } from './llm-da';
import { fillPrompt, PROMPT_VERSIONS } from './prompts';

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
    intent: obs.intent, situation: obs.situation.replaceAll('_', ' '), name: obs.name, merchant: f.merchant, amount: f.amount.toFixed(2),
    date: f.datePhrase, channel: f.channel, place: f.place, card_last4: f.cardLast4, account: f.account, persona,
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

export class LlmCa implements CaPolicy {
  readonly name: string;
  private readonly ledger: CallLedger | null;
  private readonly temperature: number;
  private readonly maxTokens: number;

  constructor(
    readonly backend: ChatBackend,
    opts: LlmPolicyOptions = {},
  ) {
    this.name = opts.name ?? backend.id;
    this.ledger = opts.ledger ?? null;
    // Customers vary: sampled, with the per-call seed keeping it reproducible.
    this.temperature = opts.temperature ?? 0.8;
    this.maxTokens = opts.maxTokens ?? 160;
  }

  request(obs: CaObservation, seed: number): ChatRequest {
    return { messages: caMessages(obs), temperature: this.temperature, max_tokens: this.maxTokens, seed };
  }

  async speak(obs: CaObservation, rng: Rng, ctx?: TurnContext): Promise<string> {
    const reply = await completeThrough(this.backend, this.ledger, this.request(obs, drawSeed(rng)), ctx ? { ...ctx, role: 'CA' } : null);
    return reply.text.trim();
  }
}
