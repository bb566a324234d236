/**
 * A CA (customer) played by an LLM. Its messages are `ca-messages.ts`'s: natively (the trained
 * form: the customer's lines as calls of `say`, the agent's words as their results) or as text.
 * Its system prompt (RL-ADA Appendix D.2) carries the hidden intent, the facts the customer knows
 * and the scenario's persona; the turn's adversity directive (MADS: withhold a detail, reveal a
 * constraint, revise the goal, a hostile opening) goes on the last message.
 */
import type { CaPolicy, TurnContext } from '../../core/agents/policy';
import type { Rng } from '../../core/random';
import type { CaObservation } from '../../core/world/environment';
import type { ChatBackend, ChatRequest } from './chat-backend';
import { caMessages, caTools, utteranceFromReply } from './ca-messages';
import { completeThrough } from './ledger';
import type { LlmPolicyOptions } from './llm-da';
import { drawSeed, LlmPolicyBase } from './llm-da';
import type { ToolCallMode } from './openai-backend';

export { CALL_CONNECTS, CaMessagesError, caMessages, caObservationFromMessages } from './ca-messages';

export class LlmCa extends LlmPolicyBase implements CaPolicy {
  /** The form it plays in (`ca-messages.ts`): `native` is the trained form. */
  readonly mode: ToolCallMode;

  constructor(backend: ChatBackend, opts: LlmPolicyOptions & { mode?: ToolCallMode } = {}) {
    // Customers vary: sampled, with the per-call seed keeping it reproducible.
    super(backend, opts, { temperature: 0.8, maxTokens: 160 });
    this.mode = opts.mode ?? 'text';
  }

  request(obs: CaObservation, seed: number): ChatRequest {
    const req: ChatRequest = { messages: caMessages(obs, this.mode), temperature: this.temperature, max_tokens: this.maxTokens, seed };
    if (this.mode === 'native') req.tools = caTools();
    return req;
  }

  async speak(obs: CaObservation, rng: Rng, ctx?: TurnContext): Promise<string> {
    const reply = await completeThrough(this.backend, this.ledger, this.request(obs, drawSeed(rng)), ctx ? { ...ctx, role: 'CA' } : null);
    return utteranceFromReply(reply, this.mode);
  }
}
