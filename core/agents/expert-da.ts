/**
 * The privileged expert DA: the demonstrator for behaviour cloning (Phase 0 of RL-ADA). It is told
 * the tool the customer's hidden intent needs — which no real DA ever sees — and follows the call
 * sequence of the DA system prompt with it:
 *
 *   (ask for the detail, when the tool needs one the customer has not given) → lookup_account →
 *   the correct tool → explain the result → end_call.
 *
 * When a dispute could not be pinned to one charge (`recoverable`), its explanation asks which
 * charge it is, and the expert calls once more on the answer.
 *
 * Why the question comes before verification: the clone learns from the DA's own partial view, and
 * the single-utterance routing demonstrations (utterance + successful lookup → tool) must not
 * contradict it. If the expert asked *after* the lookup, the same observation (one utterance, a
 * successful lookup, nothing else) would be labelled "ask" in episodes and "dispute_charge" in the
 * routing demos. Asking first keeps "after a successful lookup" the routing decision; lookup_account
 * is still the first tool call, which is all r_env and the judge ask of the order.
 */
import type { DomainTool } from '../domain/types';
import type { Rng } from '../random';
import type { DaObservation } from '../world/environment';
import type { DaChoice, DialogueState } from './da-actions';
import { dialogueState, needsDetail, renderDaChoice } from './da-actions';
import { chargeNotIdentified } from './speech';
import type { DaPolicy } from './policy';

/** Clarifying questions the expert asks at most before it routes on what it has. */
export const EXPERT_MAX_ASKS = 1;

/** Speak actions before any domain tool call: the clarifying questions asked so far. */
export function asksSoFar(s: DialogueState): number {
  return s.domainCalls.length === 0 ? s.speaks : 0;
}

/** Domain tool calls the expert makes at most: the first and retries after asking which charge it is. */
export const EXPERT_MAX_DOMAIN_CALLS = 3;

/**
 * Did every domain call so far fail to pin down the charge, with calls to spare? Then asking which
 * and calling again can resolve it. One answer may not be enough (a customer who names only the
 * merchant of a duplicate gets AMBIGUOUS; one who answers with something else gets nothing), so the
 * expert tries more than once.
 */
export function recoverable(s: DialogueState): boolean {
  return s.domainCalls.length > 0 && s.domainCalls.length < EXPERT_MAX_DOMAIN_CALLS && s.domainCalls.every((c) => chargeNotIdentified(c.toolResult));
}

/**
 * The expert's next choice for a customer whose intent needs `tool`. `maxAsks` bounds the
 * questions before routing (a hasty expert, 0, calls the tool on whatever it was told).
 */
export function expertChoice(tool: DomainTool, obs: DaObservation, s: DialogueState = dialogueState(obs), maxAsks = EXPERT_MAX_ASKS): DaChoice {
  const verifyAttempted = obs.turns.some((t) => t.role === 'agent' && t.action?.action_type === 'tool_call' && t.action.content.trim() === 'lookup_account');
  const domainCall = s.domainCalls[0];
  if (!domainCall) {
    if (!s.lookup) {
      if (needsDetail(tool, s) && asksSoFar(s) < maxAsks) return 'ask';
      // A failed verification leaves escalation to a person as the only safe move.
      return verifyAttempted ? 'transfer_to_human' : 'lookup_account';
    }
    return tool;
  }
  // Recovery: the explanation asks which charge it is (explainResult); once answered, call again.
  if (recoverable(s) && s.explained && obs.turns.at(-1)?.role === 'customer') return tool;
  return s.explained ? 'end_call' : 'explain';
}

/** A DA that acts as the expert for one episode (it is built knowing the episode's tool). */
export class ExpertDa implements DaPolicy {
  readonly name = 'expert';
  constructor(
    readonly tool: DomainTool,
    readonly maxAsks = EXPERT_MAX_ASKS,
  ) {}

  /** The choice and its wire-format rendering. */
  decide(obs: DaObservation): { choice: DaChoice; raw: string } {
    const s = dialogueState(obs);
    const choice = expertChoice(this.tool, obs, s, this.maxAsks);
    return { choice, raw: renderDaChoice(choice, obs, `[EXPERT: the intent needs ${this.tool}] -> Next: ${choice}`, s) };
  }

  act(obs: DaObservation, _rng: Rng): string {
    return this.decide(obs).raw;
  }
}
