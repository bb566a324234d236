/**
 * The banking domain's vocabulary: tools, intents, scenarios and the utterance bank.
 * Plain data types; the zod schemas in `schema.ts` validate files against them.
 */

/** The six tools of RL-ADA's banking instantiation, in the order of the DA system prompt. */
export const TOOL_NAMES = [
  'lookup_account',
  'get_transactions',
  'dispute_charge',
  'check_card_status',
  'transfer_funds',
  'transfer_to_human',
] as const;
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

export type ScenarioSet = 'arena' | 'heldout';

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
}

/** Everything the domain files hold, validated and cross-checked. */
export interface Domain {
  name: string;
  taxonomy: TaxonomyEntry[];
  bank: UtteranceBank;
  scenarios: Scenario[];
}
