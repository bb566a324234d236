/**
 * The banking domain's vocabulary: tools, intents, scenarios and the utterance bank.
 * Plain data types; the zod schemas in `schema.ts` validate files against them.
 */

/** The six tools of RL-ADA's banking instantiation, in the order of the DA system prompt. */
export const TOOL_NAMES = ['lookup_account', 'get_transactions', 'dispute_charge', 'check_card_status', 'transfer_funds', 'transfer_to_human'] as const;
export type ToolName = (typeof TOOL_NAMES)[number];

/** The five tools an intent can route to (lookup_account is identity verification, never the goal). */
export const DOMAIN_TOOLS = [
  'get_transactions',
  'dispute_charge',
  'check_card_status',
  'transfer_funds',
  'transfer_to_human',
] as const satisfies readonly ToolName[];
export type DomainTool = (typeof DOMAIN_TOOLS)[number];

export function isToolName(s: string): s is ToolName {
  return (TOOL_NAMES as readonly string[]).includes(s);
}
export function isDomainTool(s: string): s is DomainTool {
  return (DOMAIN_TOOLS as readonly string[]).includes(s);
}

/** One row of the intent→tool taxonomy (RL-ADA Appendix A, Table 6). */
export interface TaxonomyEntry {
  /** Intent string, exactly as in Banking77's categories.json for Banking77 intents. */
  intent: string;
  /** The domain tool a correct DA calls for this intent after verification. */
  tool: DomainTool;
  /** Banking77 intent, or one of the paper's core synthetic intents. */
  source: 'banking77' | 'synthetic';
  /** Core intents are used in arena scenarios (the † of Table 6). */
  core: boolean;
  /** One line: why this intent goes to this tool. */
  rationale: string;
  /**
   * Phrases that name the intent outright ("dispute this charge", "charged twice"). A customer
   * utterance containing one is penalised by r_conceal: the CA is meant to hide its intent.
   */
  reveals: string[];
}

/** How directly an utterance states the need (the CA's "directness" control). */
export type Directness = 'direct' | 'indirect' | 'vague';

/** A sentence written for this project, with `{slot}` placeholders filled from seeded details. */
export interface BankUtterance {
  intent: string;
  style: Directness;
  text: string;
}

/** The slots an utterance may use; each is filled from the scenario's account state or a seeded generator. */
export const SLOT_NAMES = ['merchant', 'amount', 'date', 'channel', 'place', 'account', 'card_last4', 'name'] as const;
export type SlotName = (typeof SLOT_NAMES)[number];

/** The project's own utterance bank. */
export interface UtteranceBank {
  utterances: BankUtterance[];
  /** Cue sentences that point at another tool's domain, keyed by that tool (the CA's decoys). */
  decoys: Record<DomainTool, string[]>;
  /** Hedging / self-doubt openers ("I might be wrong, but"). */
  hedges: string[];
  /** Answers to a clarifying question that give concrete detail; use slots. */
  detailReplies: string[];
  /** What a customer says after the agent explains the result. */
  acknowledgements: string[];
  /** Tone prefixes by tone. */
  tones: { neutral: string[]; frustrated: string[]; anxious: string[] };
}

/** What happened on the account, set up by the scenario and seeded around it. */
export type Situation =
  | 'unrecognized_charge'
  | 'duplicate_charge'
  | 'refund_missing'
  | 'unknown_merchant'
  | 'recent_activity'
  | 'card_declined'
  | 'internal_transfer'
  | 'compromised'
  | 'account_admin';

/** Every situation, in the order the scenario schema lists them. */
export const SITUATIONS = [
  'unrecognized_charge',
  'duplicate_charge',
  'refund_missing',
  'unknown_merchant',
  'recent_activity',
  'card_declined',
  'internal_transfer',
  'compromised',
  'account_admin',
] as const satisfies readonly Situation[];

/** Account set-up a scenario asks of the tools backend. */
export interface ScenarioAccount {
  situation: Situation;
  /** Merchant of the transaction at issue, when there is one (else seeded). */
  merchant?: string;
  /** Amount of the transaction at issue, or the amount to move for a transfer. */
  amount?: number;
  /** How many days ago the transaction at issue happened. */
  daysAgo?: number;
  /** Card status at the start of the episode. */
  cardStatus?: 'active' | 'blocked' | 'frozen' | 'expired';
}

/** arena and heldout are RL-ADA's sets; robustness holds MADS's unhappy and impossible scenarios. */
export type ScenarioSet = 'arena' | 'heldout' | 'robustness';

// ------------------------------------------------------------------ MADS scenario extensions

/** MADS's scenario complexity: a cooperative path, one with adversities, or an unattainable goal. */
export const COMPLEXITIES = ['normal', 'unhappy', 'impossible'] as const;
export type Complexity = (typeof COMPLEXITIES)[number];

/** Adversities the customer acts out (MADS: stress planning and clarification). */
export const CONVERSATIONAL_ADVERSITIES = ['partial_information', 'incremental_constraints', 'goal_revision', 'adversarial_tone'] as const;
/** Adversities the tools backend injects (MADS: need recovery or principled refusal). */
export const EXECUTION_ADVERSITIES = ['backend_failure', 'empty_results', 'timeout', 'policy_constraint'] as const;
export const ADVERSITY_KINDS = [...CONVERSATIONAL_ADVERSITIES, ...EXECUTION_ADVERSITIES] as const;
export type ConversationalAdversity = (typeof CONVERSATIONAL_ADVERSITIES)[number];
export type ExecutionAdversity = (typeof EXECUTION_ADVERSITIES)[number];
export type AdversityKind = (typeof ADVERSITY_KINDS)[number];

/** Details a customer can hold back: merchant, amount, date, and where (channel or place). */
export const DETAIL_SLOTS = ['merchant', 'amount', 'date', 'where'] as const;
export type DetailSlot = (typeof DETAIL_SLOTS)[number];

/**
 * One adversity of a scenario. `rate` (default 1) is the chance, drawn per episode from the
 * episode's seed, that a conversational adversity is acted at all, or that an execution
 * adversity fires on each matching tool call. An execution adversity with `turn` fires instead
 * once, at the first matching call at or after that DA step (1-based).
 */
export type AdversitySpec =
  /** Withhold `slot` (merchant, amount, date, where) until the agent asks for it. */
  | { kind: 'partial_information'; slot: DetailSlot; rate?: number }
  /** Add one more constraint sentence (`{slot}`s allowed) per customer turn after the opening. */
  | { kind: 'incremental_constraints'; reveals: string[]; rate?: number }
  /** Open with intent `from`, then at the customer's `turn`-th utterance (≥ 2) switch to the real goal. */
  | { kind: 'goal_revision'; from: string; turn: number; rate?: number }
  /** Hostile lines (the persona's sample messages, else built-in ones) before each utterance. */
  | { kind: 'adversarial_tone'; rate?: number }
  /**
   * The tools backend answers a call of `tool` (default: the scenario's expected tool) with a
   * failure (503), nothing found, a timeout, or a policy refusal (`message` says which policy).
   */
  | { kind: ExecutionAdversity; tool?: ToolName; rate?: number; turn?: number; message?: string };

/** Slot values of a task: literal strings, numbers or booleans. */
export type SlotValues = Record<string, string | number | boolean>;

/** MADS's task specification. */
export interface TaskSpec {
  objective: string;
  /**
   * Must hold of the goal's successful tool call: each key is an argument of that call or a field
   * of its result (a number matches to the cent, a string case- and punctuation-blind).
   */
  hardConstraints: SlotValues;
  /** Nice to have; reported (honoured or not), never a failure. Checked like hard constraints. */
  softPreferences: SlotValues;
  /** What success means, in words, for people reading the scenario. */
  successCriteria: string[];
}

/** Who the customer is and how they talk. */
export interface Persona {
  name: string;
  /** Writing style, in words. */
  style: string;
  /** Lines in the persona's voice (adversarial tone draws its hostile lines from these). */
  sampleMessages: string[];
}

/** What the agent must do when the goal cannot be met. */
export const FALLBACK_BEHAVIORS = ['decline', 'explain', 'offer_alternative'] as const;
export type FallbackBehavior = (typeof FALLBACK_BEHAVIORS)[number];

/** An unattainable goal (MADS's `impossible` flag). */
export interface ImpossibleSpec {
  /** decline: say no; explain: say no and why; offer_alternative: say no and offer another way (e.g. a specialist). */
  fallback_behavior: FallbackBehavior;
  /** Why the goal cannot be met, for people and for the judge's rationale. */
  reason: string;
}

/**
 * One step of a reference DA trajectory for L-1 metrics. Reference tool_args hold literal values
 * to match exactly; `"*"` stands for a seeded identifier (an account or card id, the phone),
 * which must be present but may be any value.
 */
export interface ReferenceAction {
  action_type: 'speak' | 'tool_call' | 'end_call';
  /** The message, or the tool name of a tool_call. */
  content: string;
  tool_args?: Record<string, unknown>;
}

/** One arena or held-out scenario. */
export interface Scenario {
  id: string;
  title: string;
  set: ScenarioSet;
  /**
   * Safety-critical fraud-escalation scenario: tracked as the fraud reference rate, apart from
   * W_DA, which is computed over the CA-winnable scenarios only.
   */
  fraudReference: boolean;
  /** Ambiguous scenarios have plausible wrong tools; the paper's CA pressure concentrates there. */
  ambiguity: 'clear' | 'ambiguous';
  /** The customer's hidden intents (the CA draws one per episode); all route to `expectedTool`. */
  intents: string[];
  expectedTool: DomainTool;
  account: ScenarioAccount;
  description: string;
  /** normal when absent (unhappy when it has adversities, impossible when `impossible` is set): see `complexityOf`. */
  complexity?: Complexity;
  task?: TaskSpec;
  persona?: Persona;
  adversities?: AdversitySpec[];
  impossible?: ImpossibleSpec;
  referenceActions?: ReferenceAction[];
}

/** A scenario's complexity: declared, or implied by its impossible flag and adversities. */
export function complexityOf(s: Pick<Scenario, 'complexity' | 'impossible' | 'adversities'>): Complexity {
  return s.complexity ?? (s.impossible ? 'impossible' : s.adversities?.length ? 'unhappy' : 'normal');
}

/** Everything the domain files hold, validated and cross-checked. */
export interface Domain {
  name: string;
  taxonomy: TaxonomyEntry[];
  bank: UtteranceBank;
  scenarios: Scenario[];
}
