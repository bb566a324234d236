/**
 * MADS adversities in the environment. A scenario lists them (`AdversitySpec`); at reset the
 * episode's seed decides which conversational ones the customer acts (each with its `rate`), and
 * while the episode runs:
 *  - conversational adversities become a directive in the customer's observation for the turn
 *    they apply to (withhold a slot until asked, reveal one more constraint, revise the goal,
 *    speak with hostility); every CA backend renders the directive through `renderCaChoice`;
 *  - execution adversities replace the tools backend's answer to a matching, otherwise valid
 *    call (a failure, nothing found, a timeout, a policy refusal), by rate or once at a DA step.
 * Both are decided from the environment's state and its own seeded stream only, so a replayed
 * episode fires the same adversities at the same turns. Every firing is recorded with its turn.
 */
import type { AdversityKind, AdversitySpec, DetailSlot, Domain, ExecutionAdversity, Scenario, ToolName } from '../domain/types';
import type { Rng } from '../random';
import type { ToolResult } from './transcript';

/** What the customer is to act in this utterance (absent fields: nothing of that kind). */
export interface CaDirective {
  /** Partial information: do not state this detail (the agent has not asked for it yet). */
  withhold?: DetailSlot;
  /** Incremental constraint revelation: add this sentence (may hold `{slot}`s). */
  reveal?: string;
  /** Goal revision: drop the earlier request and state the real one now. */
  revise?: boolean;
  /** Adversarial tone: open with this hostile line. */
  hostile?: string;
}

type ExecutionSpec = Extract<AdversitySpec, { kind: ExecutionAdversity }>;

/** The adversities of one episode, after the seeded draw. */
export interface EpisodeAdversities {
  /** Conversational adversities the customer acts in this episode. */
  conversational: Exclude<AdversitySpec, ExecutionSpec>[];
  execution: { spec: ExecutionSpec; tool: ToolName; fired: boolean }[];
}

const EXECUTION_KINDS: readonly string[] = ['backend_failure', 'empty_results', 'timeout', 'policy_constraint'];
const isExecution = (a: AdversitySpec): a is ExecutionSpec => EXECUTION_KINDS.includes(a.kind);

/** Hostile lines for a persona without sample messages. */
export const HOSTILE_LINES = [
  "Honestly, this is ridiculous and I'm fed up.",
  "I've been on hold forever, so don't waste my time.",
  'Your bank keeps messing this up.',
];

/** Which of the scenario's adversities this episode has (conversational ones by their rate). */
export function drawAdversities(scenario: Scenario, rng: Rng): EpisodeAdversities {
  const out: EpisodeAdversities = { conversational: [], execution: [] };
  for (const a of scenario.adversities ?? []) {
    if (isExecution(a)) out.execution.push({ spec: a, tool: a.tool ?? scenario.expectedTool, fired: false });
    else if (rng.chance(a.rate ?? 1)) out.conversational.push(a);
  }
  return out;
}

/** The dialogue as the customer sees it, and what the agent has asked for so far. */
export interface DirectiveContext {
  /** Customer utterances so far (the coming one is number customerTurns + 1). */
  customerTurns: number;
  /** Has the agent asked for this detail in any message so far? */
  asked: (slot: DetailSlot) => boolean;
  /** The persona's sample messages, the hostile lines of adversarial tone. */
  hostileLines: readonly string[];
}

/** The directive for the coming customer utterance, and the firings it amounts to. */
export function customerDirective(
  adv: EpisodeAdversities,
  ctx: DirectiveContext,
): { directive: CaDirective | undefined; fired: { kind: AdversityKind; detail: string }[] } {
  const d: CaDirective = {};
  const fired: { kind: AdversityKind; detail: string }[] = [];
  const n = ctx.customerTurns + 1;
  for (const a of adv.conversational) {
    switch (a.kind) {
      case 'partial_information':
        if (!ctx.asked(a.slot)) {
          d.withhold = a.slot;
          if (n === 1) fired.push({ kind: a.kind, detail: `withholds the ${a.slot} until asked` });
        }
        break;
      case 'incremental_constraints': {
        const next = a.reveals[n - 2];
        if (next !== undefined) {
          d.reveal = next;
          fired.push({ kind: a.kind, detail: `reveals constraint ${n - 1} of ${a.reveals.length}` });
        }
        break;
      }
      case 'goal_revision':
        if (n === a.turn) {
          d.revise = true;
          fired.push({ kind: a.kind, detail: `drops the "${a.from}" request for the real one` });
        }
        break;
      case 'adversarial_tone': {
        const lines = ctx.hostileLines.length ? ctx.hostileLines : HOSTILE_LINES;
        d.hostile = lines[(n - 1) % lines.length]!;
        fired.push({ kind: a.kind, detail: 'hostile tone' });
        break;
      }
    }
  }
  return { directive: Object.keys(d).length ? d : undefined, fired };
}

/** The intent the customer acts before a goal revision (the real one afterwards). */
export function actedIntent(adv: EpisodeAdversities, realIntent: string, customerTurns: number): string {
  const rev = adv.conversational.find((a) => a.kind === 'goal_revision');
  return rev && customerTurns + 1 < rev.turn ? rev.from : realIntent;
}

export const DEFAULT_MESSAGES: Record<ExecutionAdversity, string> = {
  backend_failure: 'service unavailable (503); nothing was changed',
  empty_results: 'no records found',
  timeout: 'no answer from the service within 10 s; nothing was changed',
  policy_constraint: 'refused by bank policy',
};

/**
 * The injected answer to a valid call of `tool` at DA step `step`, or null when no execution
 * adversity fires. A `turn` spec fires once; a rate spec draws from `rng` on each matching call.
 */
export function injectExecution(
  adv: EpisodeAdversities,
  tool: string,
  args: Record<string, unknown>,
  step: number,
  rng: Rng,
): { kind: ExecutionAdversity; result: ToolResult } | null {
  for (const e of adv.execution) {
    if (e.tool !== tool) continue;
    let fires: boolean;
    if (e.spec.turn !== undefined) fires = !e.fired && step >= e.spec.turn;
    else fires = rng.chance(e.spec.rate ?? 1);
    if (!fires) continue;
    e.fired = true;
    const message = e.spec.message ?? DEFAULT_MESSAGES[e.spec.kind];
    switch (e.spec.kind) {
      case 'backend_failure':
        return { kind: e.spec.kind, result: { ok: false, tool, error: { code: 'BACKEND_ERROR', message } } };
      case 'timeout':
        return { kind: e.spec.kind, result: { ok: false, tool, error: { code: 'TIMEOUT', message } } };
      case 'policy_constraint':
        return { kind: e.spec.kind, result: { ok: false, tool, error: { code: 'POLICY', message } } };
      case 'empty_results':
        return {
          kind: e.spec.kind,
          result:
            tool === 'get_transactions'
              ? { ok: true, tool, data: { account_id: args.account_id, transactions: [] } }
              : { ok: false, tool, error: { code: 'NOT_FOUND', message } },
        };
    }
  }
  return null;
}

/**
 * The adversities a run with `adversities: true` gives every scenario that has none of its own:
 * a customer who holds back the merchant (30% of episodes) or is hostile (20%), and a backend
 * whose goal tool fails, times out or finds nothing on 10% of calls each.
 */
export const DEFAULT_ADVERSITY_PROFILE: readonly AdversitySpec[] = [
  { kind: 'partial_information', slot: 'merchant', rate: 0.3 },
  { kind: 'adversarial_tone', rate: 0.2 },
  { kind: 'backend_failure', rate: 0.1 },
  { kind: 'timeout', rate: 0.1 },
  { kind: 'empty_results', rate: 0.1 },
];

/** The domain with `profile` on every scenario that declares no adversities (ids unchanged, so stored episodes replay). */
export function withAdversityProfile(domain: Domain, profile: readonly AdversitySpec[] = DEFAULT_ADVERSITY_PROFILE): Domain {
  return { ...domain, scenarios: domain.scenarios.map((s) => (s.adversities?.length ? s : { ...s, adversities: [...profile] })) };
}
