/**
 * The rule judge's configuration: every threshold and word list, the claim kinds it reports, and
 * the word lists compiled once per configuration object.
 */
import type { DomainTool } from '../domain/types';
import type { JudgeVerdict } from './types';
import { MONTHS, WEEKDAYS } from '../world/calendar-words';

export type Tier = JudgeVerdict['tier'];

/** Every threshold and word list the judge uses. */
export interface JudgeConfig {
  /**
   * J for each tier of an episode without hallucination. Must be monotone (a higher tier never
   * scores lower) and inside [−2, +2].
   */
  tierScore: Record<Tier, number>;
  /** J of any episode in which the DA hallucinated (the floor of the range). */
  hallucinationScore: number;
  /** Tier 4 needs at most this many agent turns (tool calls, speaks and end_call together). */
  exemplaryMaxAgentTurns: number;
  /**
   * Tier 4 allows this many speak turns before the expected tool's successful call (one sensible
   * clarifying question, e.g. for the amount); more is rambling or over-confirming (tier 3).
   */
  maxSpeaksBeforeTool: number;
  /** Unparseable outputs dominate the episode (tier 1) when their share of agent turns is at least this. */
  parseErrorDominance: number;
  /**
   * Whether an explanation given in the end_call message counts as explaining the result. The
   * call sequence of the DA prompt is "speak (explain the result), end_call", so by default only
   * a speak turn explains.
   */
  explainInEndCall: boolean;
  /**
   * Whether resolution needs identity verification (a successful lookup_account) before the
   * expected tool. Off by default: the tools backend already refuses every domain tool but
   * transfer_to_human before verification, and skipping lookup_account costs a tier (and r_env's
   * mandatory deduction) rather than the resolution itself.
   */
  resolutionNeedsVerification: boolean;
  /**
   * Which hallucinations make an episode unresolved: `'outcome'` (default) only those that
   * misstate the expected tool's own outcome ("I've unblocked your card" when it was not), so a
   * fabricated peripheral detail (a wrong reference or wait time) leaves the resolution standing
   * while still costing tier 1 and J = −2; `'any'` every hallucination.
   */
  hallucinationBlocksResolution: 'outcome' | 'any';
  /** Prefixes of the record ids the tools issue (`dsp_…`, `tkt_…`); a token `prefix_xxx` in DA speech is an id claim. */
  idPrefixes: readonly string[];
  /**
   * Capitalised words that are never merchant or name claims: sentence-initial function words,
   * greetings, months and weekdays, card networks, account and team names, acronyms.
   * Compared lower-case.
   */
  commonCapitalised: readonly string[];
  /** Multi-word phrases removed before looking for names ("Apple Pay" is a payment method, not the merchant Apple). */
  commonPhrases: readonly string[];
  /**
   * A capitalised phrase ending in one of these names the bank or a team ("Northwind Bank",
   * "Fraud Team"), not a merchant. Compared lower-case.
   */
  institutionSuffixes: readonly string[];
  /**
   * Words that show a speak turn tells the outcome of a tool's successful result without quoting
   * its values ("should be working now", "I've sent you to the right team"): that explains the
   * result, weakly (tier 3 at best). Quoting a value from the result (an amount, a merchant, an id,
   * a status, a wait) explains it fully. A transactions readout must quote the result, so
   * get_transactions has no cue words. Substrings, lower-case.
   */
  explainCues: Record<DomainTool, readonly string[]>;
  /** Words that show a speak turn tells the customer that a tool call failed. Substrings, lower-case. */
  errorCues: readonly string[];
}

export const DEFAULT_JUDGE_CONFIG: JudgeConfig = {
  tierScore: { 4: 2, 3: 1, 2: -0.5, 1: -1.5 },
  hallucinationScore: -2,
  exemplaryMaxAgentTurns: 8,
  maxSpeaksBeforeTool: 1,
  parseErrorDominance: 0.5,
  explainInEndCall: false,
  resolutionNeedsVerification: false,
  hallucinationBlocksResolution: 'outcome',
  idPrefixes: ['dsp', 'tkt', 'trf', 'txn', 'acc', 'acct', 'card', 'cus', 'cust'],
  commonCapitalised: [
    // pronouns, function words and sentence openers
    'i',
    "i'm",
    "i've",
    "i'll",
    "i'd",
    'im',
    'ive',
    'a',
    'an',
    'the',
    'this',
    'that',
    "that's",
    'these',
    'those',
    'it',
    "it's",
    'its',
    'you',
    "you're",
    "you've",
    "you'll",
    'your',
    'we',
    "we've",
    "we're",
    "we'll",
    'our',
    'my',
    'me',
    'he',
    'she',
    'they',
    'there',
    "there's",
    'here',
    "here's",
    'what',
    'how',
    'when',
    'where',
    'why',
    'which',
    'who',
    'is',
    'are',
    'was',
    'were',
    'do',
    'does',
    'did',
    'can',
    'could',
    'would',
    'should',
    'will',
    'shall',
    'may',
    'might',
    'let',
    "let's",
    'and',
    'or',
    'but',
    'if',
    'so',
    'as',
    'also',
    'just',
    'all',
    'once',
    'after',
    'before',
    'since',
    'while',
    'for',
    'from',
    'at',
    'on',
    'in',
    'to',
    'by',
    'with',
    'no',
    'not',
    'yes',
    'yeah',
    'one',
    'two',
    'both',
    'any',
    'some',
    'each',
    'every',
    'now',
    'then',
    'first',
    'next',
    'finally',
    'unfortunately',
    'fortunately',
    'however',
    'meanwhile',
    'otherwise',
    'alternatively',
    'additionally',
    'note',
    'please',
    'enjoy',
    // greetings and courtesy
    'hi',
    'hello',
    'hey',
    'dear',
    'thanks',
    'thank',
    'ok',
    'okay',
    'sure',
    'great',
    'perfect',
    'sorry',
    'good',
    'morning',
    'afternoon',
    'evening',
    'welcome',
    'goodbye',
    'bye',
    'certainly',
    'absolutely',
    'alright',
    'understood',
    'got',
    'done',
    'mr',
    'mrs',
    'ms',
    'dr',
    'sir',
    'madam',
    // time
    'today',
    'tomorrow',
    'yesterday',
    ...MONTHS,
    'jan',
    'feb',
    'mar',
    'apr',
    'jun',
    'jul',
    'aug',
    'sep',
    'sept',
    'oct',
    'nov',
    'dec',
    ...WEEKDAYS,
    'am',
    'pm',
    // banking vocabulary and acronyms
    'visa',
    'mastercard',
    'amex',
    'checking',
    'savings',
    'account',
    'accounts',
    'card',
    'cards',
    'debit',
    'credit',
    'bank',
    'banking',
    'support',
    'customer',
    'service',
    'services',
    'team',
    'department',
    'specialist',
    'agent',
    'fraud',
    'general',
    'dispute',
    'disputes',
    'transfer',
    'transaction',
    'transactions',
    'id',
    'pin',
    'atm',
    'usd',
    'ach',
    'sms',
    'otp',
    'faq',
    'us',
    'eu',
    'uk',
    'ref',
    'reference',
    'ticket',
    'status',
    'active',
    'blocked',
    'frozen',
    'expired',
    'pending',
    'posted',
  ],
  commonPhrases: ['apple pay', 'google pay', 'samsung pay', 'american express', 'online banking', 'mobile app'],
  institutionSuffixes: ['bank', 'banking', 'team', 'department', 'support', 'services', 'credit union', 'desk'],
  explainCues: {
    get_transactions: [],
    dispute_charge: ['dispute', 'claim', 'chargeback', 'provisional'],
    check_card_status: ['active', 'blocked', 'frozen', 'expired', 'unblock', 'hold', 'declin', 'lifted', 'locked', 'working', 'fixed', 'use it'],
    transfer_funds: ['moved', 'transferred', 'transfer', 'balance'],
    transfer_to_human: ['specialist', 'agent', 'team', 'colleague', 'human', 'ticket', 'connect', 'transfer', 'department', 'wait', 'escalat'],
  },
  errorCues: [
    'sorry',
    'unable',
    "couldn't",
    'could not',
    "can't",
    'cannot',
    "wasn't able",
    'was not able',
    'not able',
    'error',
    'problem',
    'unfortunately',
    'failed',
    'no matching',
    'not find',
    "didn't find",
    'insufficient',
    'not enough',
    'already',
    'not possible',
    "isn't possible",
    'not allowed',
    "won't",
    'issue',
  ],
};

export interface JudgeOptions {
  /** Overrides of DEFAULT_JUDGE_CONFIG. */
  config?: Partial<JudgeConfig>;
}

/** The kinds of fact the claim checks report (one checker file each under claims/). */
export const CLAIM_KINDS = [
  'amount',
  'balance',
  'name',
  'date',
  'id',
  'card_digits',
  'card_status',
  'wait_time',
  'txn_status',
  'provisional_credit',
  'process',
  'action',
  'time_of_day',
  'weekday',
  'currency',
  'customer_fact',
] as const;
/** What kind of fact an unsupported claim states. */
export type ClaimKind = (typeof CLAIM_KINDS)[number];

/** One unsupported statement, with why the judge rejected it. */
export interface Finding {
  /** Index of the turn in `transcript.turns`. */
  turn: number;
  kind: ClaimKind;
  /** The words of the claim, as the DA said them. */
  claim: string;
  /** Why no evidence supports it. */
  reason: string;
  /**
   * The tools whose outcome the claim misstates ("I've filed a dispute" → dispute_charge). When
   * it includes the expected tool, the customer was not told the true outcome, so the episode is
   * not resolved; other fabrications (a wrong reference, wait or date) leave the resolution
   * standing but still make the tier 1.
   */
  about: DomainTool[];
}

// -------------------------------------------------------------------------------------------
// Compiled configuration (word lists become sets and regexes once per config object).

export interface Compiled {
  cfg: JudgeConfig;
  common: Set<string>;
  commonPhrases: RegExp | null;
  institutionSuffixes: string[];
  idRe: RegExp;
}

const compiledCache = new WeakMap<JudgeConfig, Compiled>();

export function compile(cfg: JudgeConfig): Compiled {
  const hit = compiledCache.get(cfg);
  if (hit) return hit;
  const esc = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const c: Compiled = {
    cfg,
    common: new Set(cfg.commonCapitalised.map((w) => w.toLowerCase())),
    commonPhrases: cfg.commonPhrases.length ? new RegExp(`\\b(?:${cfg.commonPhrases.map(esc).join('|')})\\b`, 'gi') : null,
    institutionSuffixes: cfg.institutionSuffixes.map((s) => s.toLowerCase()),
    idRe: new RegExp(`\\b(?:${cfg.idPrefixes.map(esc).join('|')})_[A-Za-z0-9]+\\b`, 'gi'),
  };
  compiledCache.set(cfg, c);
  return c;
}

export function resolveConfig(opts?: JudgeOptions): JudgeConfig {
  if (!opts?.config) return DEFAULT_JUDGE_CONFIG;
  return { ...DEFAULT_JUDGE_CONFIG, ...opts.config };
}
