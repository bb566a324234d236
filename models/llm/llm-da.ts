/**
 * A DA played by an LLM behind a chat backend. It speaks the one wire format — natively through
 * tool calls, or as the JSON text — and its output goes to the environment's parser as it came:
 * a malformed turn earns the format penalty, never a repair (`da-messages.ts` says how each form
 * maps). Each call's seed is drawn from the episode's DA stream, so a re-run sends identical
 * requests, which the lab's cache answers.
 */
import type { CheckpointRef, DaPolicy, TurnContext } from '../../core/agents/policy';
import type { Rng } from '../../core/random';
import type { DaObservation } from '../../core/world/environment';
import type { CallLedger, ChatBackend, ChatRequest } from './chat-backend';
import { DA_WIRE_SCHEMA, daMessages, daTools, wireFromReply } from './da-messages';
import { completeThrough } from './ledger';
import type { ToolCallMode } from './openai-backend';

export interface LlmPolicyOptions {
  /** Label for tables and the store (default: the backend's id). */
  name?: string;
  ledger?: CallLedger | null;
  /** The lab checkpoint this model is (an LLM checkpoint an external trainer handed back), which matches record. */
  checkpoint?: CheckpointRef;
  temperature?: number;
  maxTokens?: number;
}

/** Seeds sent to servers: 31-bit, which every server accepts. */
export const drawSeed = (rng: Rng) => rng.int(0, 0x7fffffff);

/** What an LLM policy of either role holds: its label, checkpoint, call ledger and sampling settings. */
export abstract class LlmPolicyBase {
  readonly name: string;
  readonly checkpoint?: CheckpointRef;
  protected readonly ledger: CallLedger | null;
  protected readonly temperature: number;
  protected readonly maxTokens: number;

  constructor(
    readonly backend: ChatBackend,
    opts: LlmPolicyOptions,
    defaults: { temperature: number; maxTokens: number },
  ) {
    this.name = opts.name ?? backend.id;
    if (opts.checkpoint) this.checkpoint = opts.checkpoint;
    this.ledger = opts.ledger ?? null;
    this.temperature = opts.temperature ?? defaults.temperature;
    this.maxTokens = opts.maxTokens ?? defaults.maxTokens;
  }
}

export class LlmDa extends LlmPolicyBase implements DaPolicy {
  constructor(
    backend: ChatBackend,
    readonly mode: ToolCallMode,
    opts: LlmPolicyOptions = {},
  ) {
    // Temperature 0 by default: an evaluated DA answers its most probable action (RL-ADA evaluates greedily).
    super(backend, opts, { temperature: 0, maxTokens: 512 });
  }

  /** The request for an observation (exposed for tests and for `models test`). */
  request(obs: DaObservation, seed: number): ChatRequest {
    const req: ChatRequest = { messages: daMessages(obs, this.mode), temperature: this.temperature, max_tokens: this.maxTokens, seed };
    if (this.mode === 'native') req.tools = daTools();
    else req.responseSchema = DA_WIRE_SCHEMA;
    return req;
  }

  async act(obs: DaObservation, rng: Rng, ctx?: TurnContext): Promise<string> {
    const req = this.request(obs, drawSeed(rng));
    const reply = await completeThrough(this.backend, this.ledger, req, ctx ? { ...ctx, role: 'DA' } : null);
    return wireFromReply(reply, this.mode);
  }
}
