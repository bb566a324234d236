/**
 * The builtin NeutralJudge (RL-ADA §3.1): a deterministic, rule-based episode scorer.
 *
 * It reads the whole transcript and the world's ground truth (`expectedTool`), never the DA's
 * `thinking` or any other internal state, and answers three questions:
 *
 * - **Hallucination**: every factual claim the DA makes to the customer (speak / end_call text) —
 *   dollar amounts, balances, merchant and other proper names, dates, record ids, card digits,
 *   card and transaction statuses, wait times, provisional credit, process promises (timelines,
 *   notifications) and action claims ("I've filed a dispute", "I'm transferring you") — must be
 *   backed by a *successful* tool result earlier in the transcript or, for amounts, names, dates
 *   and ids, by the customer's own words.
 * - **Resolution**: the expected tool succeeded with its effect (a card check that leaves the card
 *   blocked has not), a later speak turn told the customer the result, and nothing the DA said
 *   misstates that outcome. A fabricated peripheral detail (a wrong reference or wait time) leaves
 *   the resolution standing but costs the tier.
 * - **Quality tier** 4..1 and the terminal score J ∈ [−2, +2] (a monotone map of the tier; the
 *   floor when the DA hallucinated):
 *   4 exemplary: lookup first, the expected tool once, explained with the result's details,
 *     end_call, concise (at most one speak before the tool, at most 8 agent turns), nothing garbled;
 *   3 resolved with lapses (any of those missed, or a vague or raw-field explanation);
 *   2 unresolved but honest: the expected tool was tried (error, card left blocked, or result
 *     never explained), or identity could not be verified and the DA escalated;
 *   1 failed: wrong or no domain tool, unparseable outputs dominating, or any hallucination.
 *
 * Pure and allocation-light: it runs on every arena episode.
 */
import { isDomainTool } from '../domain/types';
import type { DomainTool } from '../domain/types';
import type { AgentTurn, ToolResult, Transcript } from '../world/transcript';
import { fallbackHandled, impossibleOutcome } from './fallback';
import type { JudgeVerdict } from './types';

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
    'i', "i'm", "i've", "i'll", "i'd", 'im', 'ive', 'a', 'an', 'the', 'this', 'that', 'these', 'those', 'it', "it's", 'its',
    'you', "you're", "you've", "you'll", 'your', 'we', "we've", "we're", "we'll", 'our', 'my', 'me', 'he', 'she', 'they', 'there',
    "there's", 'here', "here's", 'what', 'how', 'when', 'where', 'why', 'which', 'who', 'is', 'are', 'was', 'were', 'do', 'does',
    'did', 'can', 'could', 'would', 'should', 'will', 'shall', 'may', 'might', 'let', "let's", 'and', 'or', 'but', 'if', 'so',
    'as', 'also', 'just', 'all', 'once', 'after', 'before', 'since', 'while', 'for', 'from', 'at', 'on', 'in', 'to', 'by', 'with',
    'no', 'not', 'yes', 'yeah', 'one', 'two', 'both', 'any', 'some', 'each', 'every', 'now', 'then', 'first', 'next', 'finally',
    'unfortunately', 'fortunately', 'however', 'meanwhile', 'otherwise', 'alternatively', 'additionally', 'note', 'please',
    // greetings and courtesy
    'hi', 'hello', 'hey', 'dear', 'thanks', 'thank', 'ok', 'okay', 'sure', 'great', 'perfect', 'sorry', 'good', 'morning',
    'afternoon', 'evening', 'welcome', 'goodbye', 'bye', 'certainly', 'absolutely', 'alright', 'understood', 'got', 'done',
    'mr', 'mrs', 'ms', 'dr', 'sir', 'madam',
    // time
    'today', 'tomorrow', 'yesterday', 'january', 'february', 'march', 'april', 'may', 'june', 'july', 'august', 'september',
    'october', 'november', 'december', 'jan', 'feb', 'mar', 'apr', 'jun', 'jul', 'aug', 'sep', 'sept', 'oct', 'nov', 'dec',
    'monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday', 'am', 'pm',
    // banking vocabulary and acronyms
    'visa', 'mastercard', 'amex', 'checking', 'savings', 'account', 'accounts', 'card', 'cards', 'debit', 'credit', 'bank',
    'banking', 'support', 'customer', 'service', 'services', 'team', 'department', 'specialist', 'agent', 'fraud', 'general',
    'dispute', 'disputes', 'transfer', 'transaction', 'transactions', 'id', 'pin', 'atm', 'usd', 'ach', 'sms', 'otp', 'faq',
    'us', 'eu', 'uk', 'ref', 'reference', 'ticket', 'status', 'active', 'blocked', 'frozen', 'expired', 'pending', 'posted',
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
    'sorry', 'unable', "couldn't", 'could not', "can't", 'cannot', "wasn't able", 'was not able', 'not able', 'error', 'problem',
    'unfortunately', 'failed', 'no matching', 'not find', "didn't find", 'insufficient', 'not enough', 'already', 'not possible',
    "isn't possible", 'not allowed', "won't", 'issue',
  ],
};

export interface JudgeOptions {
  /** Overrides of DEFAULT_JUDGE_CONFIG. */
  config?: Partial<JudgeConfig>;
}

/** What kind of fact an unsupported claim states. */
export type ClaimKind =
  | 'amount'
  | 'balance'
  | 'name'
  | 'date'
  | 'id'
  | 'card_digits'
  | 'card_status'
  | 'wait_time'
  | 'txn_status'
  | 'provisional_credit'
  | 'process'
  | 'action';

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

interface Compiled {
  cfg: JudgeConfig;
  common: Set<string>;
  commonPhrases: RegExp | null;
  institutionSuffixes: string[];
  idRe: RegExp;
}

const compiledCache = new WeakMap<JudgeConfig, Compiled>();

function compile(cfg: JudgeConfig): Compiled {
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

function resolveConfig(opts?: JudgeOptions): JudgeConfig {
  if (!opts?.config) return DEFAULT_JUDGE_CONFIG;
  return { ...DEFAULT_JUDGE_CONFIG, ...opts.config };
}

// -------------------------------------------------------------------------------------------
// Small text helpers.

const toCents = (x: number) => Math.round(x * 100);
const glue = (s: string) => s.toLowerCase().replace(/['’]s\b/g, 's').replace(/[^a-z0-9]/g, '');
const fmtMoney = (cents: number) => `$${(cents / 100).toFixed(2)}`;

/** `$1,234.50`, `$ 89`, `USD 12`, `42.10 dollars`, `89 bucks`. Group 1 or 2 holds the number. */
const AMOUNT_RE = /(?:\$|\bUSD\s?|\bUS\$\s?)\s?(\d{1,3}(?:,\d{3})+(?:\.\d{1,2})?|\d+(?:\.\d{1,2})?)(?!\d|[.,]\d)|\b(\d{1,3}(?:,\d{3})+(?:\.\d{1,2})?|\d+(?:\.\d{1,2})?)\s?(?:dollars?|bucks|usd)\b/gi;
/** Any number a customer says: their amounts may come without a currency sign ("the 89 charge"). */
const NUMBER_RE = /\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?/g;

const MONTHS: Record<string, number> = {
  jan: 1, feb: 2, mar: 3, apr: 4, may: 5, jun: 6, jul: 7, aug: 8, sep: 9, oct: 10, nov: 11, dec: 12,
};
const MONTH_NAME = '(Jan(?:uary)?|Feb(?:ruary)?|Mar(?:ch)?|Apr(?:il)?|May|June?|July?|Aug(?:ust)?|Sep(?:t(?:ember)?)?|Oct(?:ober)?|Nov(?:ember)?|Dec(?:ember)?)';
/** ISO `2026-03-10`; `March 10(th)(, 2026)`; `10(th) (of) March( 2026)`; `3/10(/2026)`. Month names are case-sensitive (so the modal "may" is no date). */
const DATE_RES: { re: RegExp; parse: (m: RegExpExecArray) => DateClaim | null }[] = [
  { re: /\b(\d{4})-(\d{2})-(\d{2})\b/g, parse: (m) => ({ y: +m[1]!, m: +m[2]!, d: +m[3]! }) },
  {
    re: new RegExp(`\\b${MONTH_NAME}\\.?\\s+(\\d{1,2})(?:st|nd|rd|th)?\\b(?:,?\\s+(\\d{4}))?`, 'g'),
    parse: (m) => ({ y: m[3] ? +m[3] : undefined, m: MONTHS[m[1]!.slice(0, 3).toLowerCase()]!, d: +m[2]! }),
  },
  {
    re: new RegExp(`\\b(\\d{1,2})(?:st|nd|rd|th)?\\s+(?:of\\s+)?${MONTH_NAME}\\b(?:,?\\s+(\\d{4}))?`, 'g'),
    parse: (m) => ({ y: m[3] ? +m[3] : undefined, m: MONTHS[m[2]!.slice(0, 3).toLowerCase()]!, d: +m[1]! }),
  },
  {
    re: /\b(\d{1,2})\/(\d{1,2})(?:\/(\d{2}|\d{4}))?\b/g,
    parse: (m) => {
      const y = m[3] ? (m[3].length === 2 ? 2000 + +m[3] : +m[3]) : undefined;
      return { y, m: +m[1]!, d: +m[2]!, alt: { m: +m[2]!, d: +m[1]! } };
    },
  },
];
interface DateClaim {
  y: number | undefined;
  m: number;
  d: number;
  /** Day/month order is ambiguous in `3/10`; either reading may match. */
  alt?: { m: number; d: number };
}

function findDates(text: string): { date: DateClaim; text: string; index: number }[] {
  const out: { date: DateClaim; text: string; index: number }[] = [];
  const taken: [number, number][] = [];
  for (const { re, parse } of DATE_RES) {
    re.lastIndex = 0;
    for (let m = re.exec(text); m; m = re.exec(text)) {
      const a = m.index;
      const b = a + m[0].length;
      if (taken.some(([x, y]) => a < y && b > x)) continue;
      const d = parse(m);
      if (!d || d.m < 1 || d.m > 12 || d.d < 1 || d.d > 31) continue;
      taken.push([a, b]);
      out.push({ date: d, text: m[0], index: a });
    }
  }
  return out;
}

function findAmounts(text: string): { cents: number; text: string; index: number }[] {
  const out: { cents: number; text: string; index: number }[] = [];
  AMOUNT_RE.lastIndex = 0;
  for (let m = AMOUNT_RE.exec(text); m; m = AMOUNT_RE.exec(text)) {
    const num = (m[1] ?? m[2])!;
    out.push({ cents: toCents(Number(num.replace(/,/g, ''))), text: m[0].trim(), index: m.index });
  }
  return out;
}

/** Split a message into sentences (keeping their offsets irrelevant: claims are reported by text). */
function sentences(text: string): string[] {
  return text
    .replace(/[’‘]/g, "'")
    .split(/(?<=[.!?])\s+|\n+/)
    .map((s) => s.trim())
    .filter((s) => s.length > 0);
}

/** The part of the sentence's clause that precedes (and includes) a match: where negation and conditions live. */
function clausePrefix(sentence: string, end: number): string {
  const before = sentence.slice(0, end);
  const cut = Math.max(before.lastIndexOf(','), before.lastIndexOf(';'), before.lastIndexOf(':'), before.lastIndexOf(' - '), before.lastIndexOf('—'), before.lastIndexOf('('), before.search(/\bbut\b(?!.*\bbut\b)/));
  return before.slice(cut + 1);
}

const NEGATION_RE = /\b(?:not|never|unable|cannot|failed|no longer)\b|n't\b/i;
const CONDITION_RE = /\b(?:if|once|when|whenever|after|unless|whether|until|before|in case)\b/i;
const HEDGE_RE = /\b(?:may|might|could|can|should|would|possibly|eligible)\b/i;

const isQuestion = (s: string) => /\?\s*["')\]]*$/.test(s);

// -------------------------------------------------------------------------------------------
// Evidence: what the transcript has established so far.

type CardState = { current: string; seen: Set<string> };

class Evidence {
  /** Every money value (a number under a key naming an amount or balance) of a successful result. */
  readonly money = new Set<number>();
  /** Balances only. */
  readonly balances = new Set<number>();
  /** Every number the customer said, in cents. */
  readonly customerNumbers = new Set<number>();
  /** Joined word n-grams (n ≤ 5) of successful-result strings and customer text, for name claims. */
  private readonly gramSet = new Set<string>();
  /** Lower-cased tokens of successful-result strings and customer text, for id claims. */
  private readonly tokenSet = new Set<string>();
  /** Texts not yet indexed into gramSet / tokenSet: indexing waits until a name or id needs checking. */
  private pending: string[] = [];
  readonly dates: DateClaim[] = [];
  readonly last4 = new Set<string>();
  readonly cards = new Map<string, CardState>();
  /** Successful results by tool, in order. */
  readonly ok = new Map<string, Record<string, unknown>[]>();
  customerLower = '';

  addCustomer(text: string): void {
    this.customerLower += ` ${text.toLowerCase()}`;
    NUMBER_RE.lastIndex = 0;
    for (let m = NUMBER_RE.exec(text); m; m = NUMBER_RE.exec(text)) this.customerNumbers.add(toCents(Number(m[0].replace(/,/g, ''))));
    for (const d of findDates(text)) this.dates.push(d.date);
    this.addText(text);
    for (const m of text.matchAll(/\b\d{4}\b/g)) this.last4.add(m[0]);
  }

  private addText(text: string): void {
    this.pending.push(text);
  }

  private index(): void {
    for (const text of this.pending) this.indexText(text);
    this.pending = [];
  }

  get grams(): ReadonlySet<string> {
    if (this.pending.length) this.index();
    return this.gramSet;
  }

  get tokens(): ReadonlySet<string> {
    if (this.pending.length) this.index();
    return this.tokenSet;
  }

  private indexText(text: string): void {
    const toks = text.toLowerCase().replace(/['’]s\b/g, 's').split(/[^a-z0-9_]+/).filter(Boolean);
    for (let i = 0; i < toks.length; i++) {
      this.tokenSet.add(toks[i]!);
      let g = '';
      for (let n = 0; n < 5 && i + n < toks.length; n++) {
        g += toks[i + n]!.replace(/_/g, '');
        this.gramSet.add(g);
      }
    }
  }

  addResult(r: ToolResult): void {
    if (!r.ok) return;
    const list = this.ok.get(r.tool);
    if (list) list.push(r.data);
    else this.ok.set(r.tool, [r.data]);
    this.walk(r.data, '', false, false);
    // Card statuses: lookup_account lists every card; check_card_status updates one.
    const setCard = (id: unknown, status: unknown) => {
      if (typeof id !== 'string' || typeof status !== 'string') return;
      const c = this.cards.get(id);
      if (c) {
        c.current = status;
        c.seen.add(status);
      } else this.cards.set(id, { current: status, seen: new Set([status]) });
    };
    if (Array.isArray(r.data.cards)) for (const c of r.data.cards as Record<string, unknown>[]) setCard(c?.card_id, c?.status);
    if (r.tool === 'check_card_status') setCard(r.data.card_id, r.data.status);
  }

  private walk(v: unknown, key: string, money: boolean, balance: boolean): void {
    if (typeof v === 'number') {
      if (money) this.money.add(toCents(v));
      if (balance) this.balances.add(toCents(v));
    } else if (typeof v === 'string') {
      this.addText(v);
      if (/^\d{4}-\d{2}-\d{2}/.test(v)) this.dates.push({ y: +v.slice(0, 4), m: +v.slice(5, 7), d: +v.slice(8, 10) });
      if (key === 'last4') this.last4.add(v);
    } else if (Array.isArray(v)) {
      for (const x of v) this.walk(x, key, money, balance);
    } else if (v && typeof v === 'object') {
      for (const [k, x] of Object.entries(v)) {
        const isBal = balance || /balance/i.test(k);
        this.walk(x, k, money || isBal || /amount/i.test(k), isBal);
      }
    }
  }

  okData(tool: string): Record<string, unknown>[] {
    return this.ok.get(tool) ?? [];
  }

  /** Every transaction of every successful get_transactions result. */
  transactions(): Record<string, unknown>[] {
    const out: Record<string, unknown>[] = [];
    for (const d of this.okData('get_transactions')) if (Array.isArray(d.transactions)) out.push(...(d.transactions as Record<string, unknown>[]));
    return out;
  }

  hasDate(c: DateClaim): boolean {
    const same = (e: DateClaim, m: number, d: number) => e.m === m && e.d === d && (c.y === undefined || e.y === undefined || c.y === e.y);
    return this.dates.some((e) => same(e, c.m, c.d) || (c.alt !== undefined && same(e, c.alt.m, c.alt.d)));
  }
}

// -------------------------------------------------------------------------------------------
// Action claims: "I've filed a dispute", "I'm transferring you", …

type ActionKind = 'dispute' | 'unblock' | 'block' | 'funds' | 'human' | 'case' | 'refund' | 'verify';

/** A cheap test per action kind: a sentence without it cannot hold that kind of claim. */
const CUES: Record<ActionKind, RegExp> = {
  dispute: /disput|chargeback|claim/i,
  unblock: /unblock|unlock|unfr|reactivat|re-activat|enabl|lift|remov|clear|releas|again/i,
  block: /card/i,
  funds: /mov|transfer|sent|deposit|fund|money|\$/i,
  human: /transfer|connect|escalat|rout|pass|hand|put|forward|refer|will|ticket/i,
  case: /case|report|investigation|will/i,
  refund: /refund|revers|reimburs|waiv|remov|cancel|money back/i,
  verify: /verif|confirm|authent|pull|locat|found|look|access/i,
};

/** Claims that something has been (or is being) done. */
const DONE_ACTIONS: { kind: ActionKind; re: RegExp; cue: RegExp }[] = withCues([
  // dispute
  { kind: 'dispute', re: /\b(?:I|we)(?:'ve| have| had)?\s+(?:\w+\s+){0,3}?(?:filed|opened|raised|submitted|lodged|started|initiated|created|logged|registered|put in|set up)\s+(?:a|an|the|your)?\s*(?:\w+\s+){0,2}?(?:dispute|chargeback|claim)\b/gi },
  { kind: 'dispute', re: /\b(?:I|we)(?:'ve| have| had)?\s+(?:\w+\s+){0,3}?disputed\b/gi },
  { kind: 'dispute', re: /\b(?:dispute|chargeback|claim)\s+(?:\w+\s+){0,4}?(?:has been|have been|was|is now|is|is being)\s+(?:\w+\s+)?(?:filed|opened|raised|submitted|lodged|created|logged|registered|initiated|started|in progress|under review|underway|under way)\b/gi },
  { kind: 'dispute', re: /\b(?:charge|transaction|payment)\s+(?:\w+\s+){0,4}?(?:has been|have been|was|is now|is being)\s+(?:formally\s+|officially\s+|successfully\s+)?disputed\b/gi },
  { kind: 'dispute', re: /\b(?:dispute|chargeback)\s+(?:is\s+)?(?:filed|opened|submitted|in place|underway)\b/gi },
  // card unblocked
  { kind: 'unblock', re: /\b(?:I|we)(?:'ve| have)?\s+(?:\w+\s+){0,3}?(?:unblocked|unlocked|unfrozen|unfroze|reactivated|re-activated|reenabled|re-enabled)\b/gi },
  { kind: 'unblock', re: /\b(?:I|we)(?:'ve| have)?\s+(?:\w+\s+){0,3}?(?:lifted|removed|cleared|released)\s+(?:it|the\s+(?:\w+\s+){0,2}?(?:hold|block|freeze|restriction)|that\s+(?:hold|block))\b/gi },
  { kind: 'unblock', re: /\b(?:card|it)\s+(?:\w+\s+){0,4}?(?:has been|have been|was|is now|is|'s been|got)\s+(?:\w+\s+)?(?:unblocked|unlocked|unfrozen|reactivated|re-activated|re-enabled)\b/gi },
  { kind: 'unblock', re: /\b(?:hold|block|freeze|restriction)\s+(?:\w+\s+){0,3}?(?:has been|have been|was|is now|is)\s+(?:\w+\s+)?(?:lifted|removed|cleared|released)\b/gi },
  { kind: 'unblock', re: /\b(?:card|it)\s+(?:\w+\s+){0,3}?(?:works|will work|is working|'s working|is usable|can be used)\s+again\b/gi },
  // card blocked by the agent (no tool does this)
  { kind: 'block', re: /\b(?:I|we)(?:'ve| have)?\s+(?:\w+\s+){0,3}?(?:blocked|frozen|froze|cancell?ed|deactivated|locked|suspended|replaced|reissued|re-issued)\s+(?:your|the|this)\s+(?:\w+\s+)?card\b/gi },
  { kind: 'block', re: /\b(?:I|we)(?:'ve| have)?\s+(?:\w+\s+){0,3}?(?:ordered|sent|issued|requested)\s+(?:you\s+)?(?:a\s+)?(?:new|replacement)\s+card\b/gi },
  // funds moved
  { kind: 'funds', re: /\b(?:I|we)(?:'ve| have)?\s+(?:\w+\s+){0,3}?(?:moved|transferred|transfered|sent|deposited)\b(?!\s+(?:you|your\s+(?:call|case|request|issue|details)|this\s+(?:call|case)|it\s+to\s+(?:a|our|the)\s+(?:specialist|team|agent)))/gi },
  { kind: 'funds', re: /\b(?:I|we)(?:'ve| have)\s+(?:\w+\s+){0,3}?(?:made|completed|processed|done|set up|initiated)\s+(?:the|a|that|your)\s+(?:\w+\s+)?transfer\b/gi },
  { kind: 'funds', re: /\$\s?[\d,]+(?:\.\d{1,2})?\s+(?:has been|have been|was|is now)\s+(?:\w+\s+)?(?:moved|transferred|sent|deposited)\b/gi },
  { kind: 'funds', re: /(?:\$\s?[\d,]+(?:\.\d{1,2})?|\bfunds|\bmoney)\s+(?:\w+\s+){0,3}?(?:is|are)\s+(?:now\s+)?(?:in|sitting in|available in)\s+your\b/gi },
  { kind: 'funds', re: /\b(?:funds|money|transfer)\s+(?:\w+\s+){0,5}?(?:has been|have been|was|is now|is|went)\s+(?:\w+\s+)?(?:moved|transferred|sent|completed|complete|processed|done|successful|through|deposited)\b/gi },
  { kind: 'funds', re: /\bDone:\s+I've moved\b/g },
  // escalation to a person
  { kind: 'human', re: /\b(?:I'm|I am|we're|we are)\s+(?:now\s+|just\s+)?(?:transferring|connecting|escalating|routing|passing|handing|putting|forwarding|referring)\s+(?:you|your|this|it)\b/gi },
  { kind: 'human', re: /\b(?:I|we)(?:'ve| have)?\s+(?:now\s+|just\s+|already\s+)?(?:transferred|connected|escalated|routed|passed|handed|forwarded|referred)\s+(?:you|your|this|it)\b/gi },
  { kind: 'human', re: /\byou(?:'re|'ve| are| have)\s+(?:now\s+)?(?:being|been)\s+(?:transferred|connected|escalated|put through|routed)\b/gi },
  { kind: 'human', re: /\b(?:case|issue|request|matter|call|it|this)\s+(?:\w+\s+){0,3}?(?:has been|have been|was|is being|is now)\s+(?:\w+\s+)?(?:escalated|referred|forwarded|passed on|handed over|handed off)\b/gi },
  { kind: 'human', re: /\b(?:a|an|our|the|one of our)\s+(?:\w+\s+){0,2}?(?:specialist|specialists|agent|agents|advisor|adviser|representative|colleague|colleagues|team|human|person)\s+(?:\w+\s+){0,2}?will\s+(?:be\s+with|be\s+in\s+touch|call|contact|reach|get\s+back|join|pick|speak|talk|take\s+(?:your|the)\s+call)\b/gi },
  { kind: 'human', re: /\b(?:I|we)(?:'ve| have)?\s+(?:\w+\s+){0,3}?(?:opened|raised|created|logged|filed|submitted)\s+(?:a|an|the|your)\s+(?:\w+\s+){0,2}?ticket\b/gi },
  { kind: 'human', re: /\bticket\s+(?:\w+\s+){0,3}?(?:has been|was|is now)\s+(?:\w+\s+)?(?:opened|raised|created|logged|filed|submitted)\b/gi },
  // a case: a dispute or a ticket
  { kind: 'case', re: /\b(?:I|we)(?:'ve| have)?\s+(?:\w+\s+){0,3}?(?:opened|raised|created|logged|filed|submitted|started)\s+(?:a|an|the|your)\s+(?:\w+\s+){0,2}?(?:case|report|investigation)\b/gi },
  { kind: 'case', re: /\b(?:a|an|our|the|one of our)\s+(?:\w+\s+){0,2}?(?:specialist|specialists|team|investigator|investigators|department)\s+(?:\w+\s+){0,2}?will\s+(?:review|investigate|look|handle|follow|assist|help|work)\b/gi },
  // refunds (no tool refunds anything)
  { kind: 'refund', re: /\b(?:I|we)(?:'ve| have)?\s+(?:\w+\s+){0,3}?(?:refunded|reversed|reimbursed|waived)\b/gi },
  { kind: 'refund', re: /\b(?:I|we)(?:'ve| have)\s+(?:\w+\s+){0,3}?(?:issued|processed|initiated|sent|approved)\s+(?:a|the|your)\s+(?:\w+\s+)?(?:refund|reimbursement|reversal)\b/gi },
  { kind: 'refund', re: /\b(?:refund|reimbursement|reversal)\s+(?:\w+\s+){0,3}?(?:has been|have been|was|is now)\s+(?:\w+\s+)?(?:issued|processed|approved|sent|completed|credited)\b/gi },
  { kind: 'refund', re: /\b(?:refund|reimbursement|money back)\s+(?:\w+\s+){0,2}?(?:is|'s)\s+(?:on its way|on the way|coming|being processed)\b/gi },
  { kind: 'refund', re: /\b(?:charge|transaction|payment|fee)\s+(?:\w+\s+){0,3}?(?:has been|have been|was)\s+(?:\w+\s+)?(?:refunded|reversed|removed|waived|cancell?ed)\b/gi },
  // identity
  { kind: 'verify', re: /\b(?:I|we)(?:'ve| have)?\s+(?:\w+\s+){0,3}?(?:verified|confirmed|authenticated|pulled up|located|found|looked up|accessed)\s+(?:your|the)\s+(?:identity|account|details|profile)\b/gi },
  { kind: 'verify', re: /\b(?:you(?:'re| are| have been|'ve been)|identity\s+(?:is|has been))\s+(?:now\s+|successfully\s+)?(?:verified|authenticated)\b/gi },
]);

function withCues(list: { kind: ActionKind; re: RegExp }[]): { kind: ActionKind; re: RegExp; cue: RegExp }[] {
  return list.map((x) => ({ ...x, cue: CUES[x.kind] }));
}

/** Promises ("I'll file a dispute", "let me transfer you"). Checked at the end_call (nothing can follow) and against later tool calls. */
const PROMISE_ACTIONS: { kind: ActionKind; re: RegExp; cue: RegExp }[] = withCues([
  { kind: 'dispute', re: /\b(?:I'll|I will|we'll|we will|I'm going to|I am going to|let me|I'm about to)\s+(?:\w+\s+){0,2}?(?:file|open|raise|submit|lodge|start|dispute|put in)\b(?:\s+(?:\w+\s+){0,3}?(?:dispute|chargeback|claim|charge))?/gi },
  { kind: 'unblock', re: /\b(?:I'll|I will|we'll|we will|I'm going to|I am going to|let me)\s+(?:\w+\s+){0,2}?(?:unblock|unlock|reactivate|lift|remove)\b/gi },
  { kind: 'funds', re: /\b(?:I'll|I will|we'll|we will|I'm going to|I am going to|let me)\s+(?:\w+\s+){0,2}?(?:move|transfer)\s+(?:the\s+|that\s+|those\s+)?(?:\$|funds|money|\d)/gi },
  { kind: 'human', re: /\b(?:I'll|I will|we'll|we will|I'm going to|I am going to|let me)\s+(?:\w+\s+){0,2}?(?:transfer|connect|escalate|put|pass|hand|route|forward|refer)\s+(?:you|your|this|it)\b/gi },
]);

/** Which successful tool results make an action claim true. */
function actionSupported(kind: ActionKind, ev: Evidence): boolean {
  switch (kind) {
    case 'dispute':
      return ev.okData('dispute_charge').length > 0;
    case 'unblock':
      return ev.okData('check_card_status').some((d) => d.unblocked === true);
    case 'funds':
      return ev.okData('transfer_funds').length > 0;
    case 'human':
      return ev.okData('transfer_to_human').length > 0;
    case 'case':
      return ev.okData('dispute_charge').length > 0 || ev.okData('transfer_to_human').length > 0;
    case 'verify':
      return ev.okData('lookup_account').length > 0;
    case 'block':
    case 'refund':
      return false;
  }
}

const ACTION_TOOL: Record<ActionKind, string[]> = {
  dispute: ['dispute_charge'],
  unblock: ['check_card_status'],
  funds: ['transfer_funds'],
  human: ['transfer_to_human'],
  case: ['dispute_charge', 'transfer_to_human'],
  verify: ['lookup_account'],
  block: [],
  refund: [],
};

/** Whose outcome an unsupported action claim misstates (see Finding.about). */
const ACTION_ABOUT: Record<ActionKind, DomainTool[]> = {
  dispute: ['dispute_charge'],
  unblock: ['check_card_status'],
  funds: ['transfer_funds'],
  human: ['transfer_to_human'],
  case: ['dispute_charge', 'transfer_to_human'],
  refund: ['dispute_charge'],
  verify: [],
  block: [],
};

const ACTION_WHY: Record<ActionKind, string> = {
  dispute: 'no successful dispute_charge before it',
  unblock: 'no check_card_status result with unblocked: true before it',
  funds: 'no successful transfer_funds before it',
  human: 'no successful transfer_to_human before it',
  case: 'no successful dispute_charge or transfer_to_human before it',
  verify: 'no successful lookup_account before it',
  block: 'no tool blocks, freezes or replaces a card',
  refund: 'no tool refunds or reverses a charge',
};

// -------------------------------------------------------------------------------------------
// Claim extraction and checking.

const STATUS_WORDS: Record<string, string> = {
  active: 'active', working: 'active', blocked: 'blocked', locked: 'blocked', suspended: 'blocked', frozen: 'frozen',
  expired: 'expired', deactivated: 'deactivated', cancelled: 'cancelled', canceled: 'cancelled', closed: 'closed',
};
const STATUS_RE = /\b(?:is|are|was|were|'s|has been|has|have been|had been|remains|stays|shows(?: as| up as)?|showing(?: as)?|appears(?: to be)?|status(?: is)?:?|isn't|wasn't|aren't|is not|was not)\s+(?:now\s+|currently\s+|still\s+|temporarily\s+|also\s+|actually\s+|fully\s+)?(not\s+|no longer\s+)?(active|working|blocked|locked|suspended|frozen|expired|deactivated|cancell?ed|closed)\b/gi;
const DEPARTMENTS: Record<string, string> = { fraud: 'fraud', card: 'cards', cards: 'cards', account: 'accounts', accounts: 'accounts', general: 'general' };

/** A transaction's state, as the agent may describe it: "has posted", "went through" / "is pending". */
const TXN_POSTED_RE = /\b(?:(?:has|have|had)\s+(?:now\s+|already\s+|fully\s+)*posted|(?:is|are|was|were)\s+(?:now\s+|already\s+|fully\s+)*posted|(?:went|gone|going)\s+through|(?:has|have)\s+(?:fully\s+)?cleared|(?:is|are)\s+(?:fully\s+)?cleared|(?:is|are|was)\s+(?:now\s+)?(?:complete|completed|settled|final))\b/gi;
const TXN_PENDING_RE = /\b(?:(?:is|are|was|were)\s+(?:still\s+|currently\s+)?pending|(?:still|currently)\s+pending|(?:hasn't|has not|haven't|have not)\s+(?:yet\s+)?(?:posted|cleared|gone through|settled))\b/gi;

/** Process promises no tool makes: timelines and notifications ("within 10 business days", "you'll get an email"). */
const PROCESS_RES: RegExp[] = [
  /\b(?:within|in|takes?|take|up to|over the next)\s+(?:about\s+|around\s+|roughly\s+|approximately\s+|the next\s+)?(?:\d+|one|two|three|four|five|six|seven|eight|nine|ten|a few|a couple of)(?:\s*(?:-|to|–|or)\s*\d+)?\s+(?:business\s+|working\s+|calendar\s+)?(?:days?|weeks?|hours?|months?)\b/gi,
  /\b(?:you(?:'ll| will)|we(?:'ll| will)|they(?:'ll| will)|it(?:'ll| will))\s+(?:\w+\s+){0,2}?(?:get|receive|be sent|see|hear back|hear from us|arrive|be contacted|be notified)\b(?:\s+(?:\w+\s+){0,3}?(?:email|e-mail|text|sms|letter|notification|confirmation|call(?:\s+back)?|in the mail))?/gi,
  /\b(?:we|I|they|someone|the team)(?:'ll| will)\s+(?:\w+\s+)?(?:email|e-mail|text|call you back|send you|notify you|mail you|write to you|be in touch)\b/gi,
];
/** Phrases inside PROCESS_RES matches that a tool does back: provisional credit (dispute_charge), a specialist's wait (transfer_to_human). */
const PROCESS_SUPPORTED: { re: RegExp; ok: (ev: Evidence) => boolean }[] = [
  { re: /provisional|credit/i, ok: (ev) => ev.okData('dispute_charge').some((d) => d.provisional_credit === true) },
  { re: /\b(?:specialist|agent|team|someone|colleague|representative)\b/i, ok: (ev) => ev.okData('transfer_to_human').length > 0 },
];

const ID_SHAPE_RE = /\b[A-Z]{2,5}[-_#]?\d{3,}[A-Z0-9]*\b/g;

type Push = (kind: ClaimKind, claim: string, reason: string, about?: readonly DomainTool[]) => void;

function checkMessage(text: string, turn: number, isEnd: boolean, ev: Evidence, c: Compiled, laterCalls: Set<string>, out: Finding[]): void {
  for (const s of sentences(text)) {
    const claimed: string[] = [];
    const push: Push = (kind, claim, reason, about = []) => {
      claimed.push(claim);
      out.push({ turn, kind, claim, reason, about: [...about] });
    };
    const question = isQuestion(s);
    const lower = s.toLowerCase();

    // Amounts, and balances (the first amount after the word "balance" must be a balance).
    const amounts = findAmounts(s);
    for (const a of amounts) {
      if (!ev.money.has(a.cents) && !ev.customerNumbers.has(a.cents)) {
        push('amount', a.text, `${fmtMoney(a.cents)} is in no tool result and the customer never said it`);
      }
    }
    if (lower.includes('balance')) {
      for (const m of s.matchAll(/\bbalances?\b/gi)) {
        const after = amounts.find((a) => a.index > m.index! && !/[.;]|\b(?:after|before|of the|for the)\b/i.test(s.slice(m.index!, a.index)));
        if (after && ev.money.has(after.cents) && !ev.balances.has(after.cents) && !ev.customerNumbers.has(after.cents)) {
          push('balance', `balance ${after.text}`, `${fmtMoney(after.cents)} is not a balance in any tool result`);
        }
      }
    }

    // Record ids and reference numbers.
    const ids = new Set<string>();
    c.idRe.lastIndex = 0;
    for (let m = c.idRe.exec(s); m; m = c.idRe.exec(s)) ids.add(m[0]);
    for (const m of s.matchAll(ID_SHAPE_RE)) ids.add(m[0]);
    for (const m of s.matchAll(/\b(?:reference|ticket|case|dispute|confirmation|claim|transfer|transaction)\s+(?:number|no\.?|id|#)\s*(?:is\s+)?:?\s*#?([A-Za-z0-9_-]*\d[A-Za-z0-9_-]*)/gi)) ids.add(m[1]!);
    for (const id of ids) {
      if (!ev.tokens.has(id.toLowerCase())) push('id', id, 'no tool result issued this id and the customer never said it');
    }

    // Card digits.
    if (lower.includes('card')) {
      for (const m of s.matchAll(/\bending(?:\s+in|\s+with)?\s+(\d{4})\b|\blast\s+(?:four|4)(?:\s+digits)?(?:\s+(?:of|are|is))?[\s:]*(\d{4})\b/gi)) {
        const d = (m[1] ?? m[2])!;
        if (!ev.last4.has(d)) push('card_digits', m[0], `no card ending ${d} in any tool result or customer message`);
      }
    }

    // Dates.
    for (const d of findDates(s)) {
      if (!ev.hasDate(d.date)) push('date', d.text, 'no tool result or customer message has this date');
    }

    // Names: capitalised words that look like a merchant, person or place.
    for (const name of nameCandidates(s, c)) {
      if (claimed.some((x) => x.includes(name) || name.includes(x))) continue;
      if (!nameSupported(name, ev, c)) push('name', name, 'this name is in no tool result and the customer never said it');
    }

    // Wait times.
    if (/\bmin/i.test(s) && /\b(?:wait|hold|queue|specialist|agent|connect|team|someone|colleague|pick up)\b/i.test(s)) {
      for (const m of s.matchAll(/\b(\d+)\s*(?:-|to|–)?\s*(?:\d+\s*)?(?:minutes?|mins?)\b/gi)) {
        const minutes = +m[1]!;
        const ok = ev.okData('transfer_to_human').some((d) => d.wait_minutes === minutes) || ev.customerNumbers.has(minutes * 100);
        if (!ok) push('wait_time', m[0], 'no transfer_to_human result has this wait time');
      }
    }

    if (question) continue;

    // Card statuses (only in sentences about a card).
    if (lower.includes('card')) {
      for (const m of s.matchAll(STATUS_RE)) {
        const copula = m[0].toLowerCase();
        const negated = Boolean(m[1]) || /n't|\bnot\b/.test(copula.slice(0, copula.lastIndexOf(m[2]!.toLowerCase())));
        const prefix = clausePrefix(s, m.index! + m[0].length);
        if (CONDITION_RE.test(prefix)) continue;
        const status = STATUS_WORDS[m[2]!.toLowerCase()]!;
        const past = /\b(?:was|were|had been|wasn't)\b/.test(copula);
        const cards = [...ev.cards.values()];
        const ok = negated
          ? cards.some((cd) => cd.current !== status)
          : cards.some((cd) => (past ? cd.seen.has(status) : cd.current === status));
        if (!ok) {
          const known = cards.map((cd) => cd.current).join(', ') || 'none';
          push('card_status', m[0].trim(), cards.length ? `card status in tool results: ${known}` : 'no tool result gave a card status', ['check_card_status']);
        }
      }
    }

    // Transaction statuses, checked against the transactions the sentence names (by amount or merchant).
    const txns = ev.transactions();
    if (txns.length) {
      const checkTxn = (re: RegExp, want: (st: string) => boolean, what: string) => {
        for (const m of s.matchAll(re)) {
          const prefix = clausePrefix(s, m.index!);
          if (CONDITION_RE.test(prefix) || /\b(?:transfer|dispute|claim|refund)\b/i.test(s.slice(Math.max(0, m.index! - 25), m.index!))) continue;
          const named = txns.filter(
            (x) =>
              amounts.some((a) => typeof x.amount === 'number' && toCents(x.amount) === a.cents) ||
              (typeof x.merchant === 'string' && glue(x.merchant).length > 2 && glue(s).includes(glue(x.merchant))),
          );
          if (named.length === 0 && !/\b(?:charge|payment|purchase|transaction|it|everything|all)\b/i.test(s)) continue;
          const pool = named.length ? named : txns;
          if (!pool.some((x) => typeof x.status === 'string' && want(x.status))) {
            push('txn_status', m[0], `the transaction${named.length === 1 ? '' : 's'} it names ${named.length === 1 ? 'is' : 'are'} not ${what} in the get_transactions result`, ['get_transactions']);
          }
        }
      };
      checkTxn(TXN_POSTED_RE, (st) => st === 'posted', 'posted');
      checkTxn(TXN_PENDING_RE, (st) => st === 'pending' || st === 'refund_pending', 'pending');
    }

    // Provisional credit.
    for (const m of s.matchAll(/\bprovisional(?:ly)?\s+(?:credit(?:ed)?|refund)/gi)) {
      const prefix = clausePrefix(s, m.index! + m[0].length);
      if (NEGATION_RE.test(prefix) || /\bno\s+(?:\w+\s+)?provisional/i.test(prefix) || HEDGE_RE.test(prefix) || CONDITION_RE.test(prefix)) continue;
      if (!ev.okData('dispute_charge').some((d) => d.provisional_credit === true)) {
        push('provisional_credit', m[0], 'no dispute_charge result granted a provisional credit');
      }
    }

    // Action claims.
    const seen: [number, number][] = [];
    const overlaps = (a: number, b: number) => seen.some(([x, y]) => a < y && b > x);
    /** Each asserted (not negated, not conditional) match of a list's patterns, outside earlier matches. */
    const asserted = (list: typeof DONE_ACTIONS, visit: (kind: ActionKind, m: RegExpExecArray) => void) => {
      for (const { kind, re } of list.filter((x) => x.cue.test(s))) {
        re.lastIndex = 0;
        for (let m = re.exec(s); m; m = re.exec(s)) {
          const a = m.index;
          const b = a + m[0].length;
          if (overlaps(a, b)) continue;
          const prefix = clausePrefix(s, b);
          if (NEGATION_RE.test(prefix) || CONDITION_RE.test(prefix)) continue;
          seen.push([a, b]);
          visit(kind, m);
        }
      }
    };
    asserted(DONE_ACTIONS, (kind, m) => checkAction(kind, m[0], s.slice(m.index), ev, push));
    asserted(PROMISE_ACTIONS, (kind, m) => {
      // A promise is kept by a later call of the tool (whatever its result), or by one already made.
      if (actionSupported(kind, ev)) return;
      if (!isEnd && ACTION_TOOL[kind].some((t) => laterCalls.has(t))) return;
      push('action', m[0], `promised, but ${isEnd ? 'the call ended' : 'the agent never called the tool'}: ${ACTION_WHY[kind]}`, ACTION_ABOUT[kind]);
    });

    // Process promises (timelines, notifications) that no tool result backs.
    for (const re of PROCESS_RES) {
      re.lastIndex = 0;
      for (let m = re.exec(s); m; m = re.exec(s)) {
        const a = m.index;
        const b = a + m[0].length;
        if (overlaps(a, b)) continue;
        const prefix = clausePrefix(s, b);
        if (NEGATION_RE.test(prefix) || CONDITION_RE.test(prefix) || HEDGE_RE.test(prefix)) continue;
        const phrase = m[0];
        if (!/\d|\b(?:one|two|three|four|five|six|seven|eight|nine|ten|few|couple)\b|email|e-mail|text|sms|letter|notif|confirmation|call|mail|hear|be in touch|contacted/i.test(phrase)) continue;
        const rest = s.slice(a, Math.min(s.length, b + 40));
        if (PROCESS_SUPPORTED.some((p) => p.re.test(rest) && p.ok(ev))) continue;
        if (ev.customerLower.includes(phrase.toLowerCase())) continue;
        seen.push([a, b]);
        push('process', phrase, 'a timeline or notification that no tool result promises');
      }
    }

    // Department named with an escalation.
    if (ev.okData('transfer_to_human').length > 0 && /\b(?:transferr|connect|escalat|put you through|hand|team|department)/i.test(lower)) {
      const m = /\b(fraud|cards?|accounts?|general)\s+(?:team|department|specialists?|desk|unit)\b/i.exec(s);
      if (m) {
        const dep = DEPARTMENTS[m[1]!.toLowerCase()]!;
        if (!ev.okData('transfer_to_human').some((d) => d.department === dep)) push('action', m[0], `no transfer_to_human result went to the ${dep} department`);
      }
    }
  }
}

function checkAction(kind: ActionKind, claim: string, rest: string, ev: Evidence, push: Push): void {
  if (!actionSupported(kind, ev)) {
    push('action', claim.trim(), ACTION_WHY[kind], ACTION_ABOUT[kind]);
    return;
  }
  if (kind === 'funds') {
    // "I've moved $200": the amount must be one that transfer_funds moved.
    const amt = findAmounts(rest.split(/[.;](?!\d)/)[0] ?? '')[0];
    if (amt && !ev.okData('transfer_funds').some((d) => typeof d.amount === 'number' && toCents(d.amount) === amt.cents)) {
      push('action', `${claim.trim()} ${amt.text}`, `no transfer_funds result moved ${fmtMoney(amt.cents)}`, ['transfer_funds']);
    }
  }
}

const CAP_TOKEN_RE = /[A-Za-z0-9][A-Za-z0-9&'*.-]*[A-Za-z0-9]|[A-Za-z0-9]/g;

function isCapitalised(tok: string): boolean {
  return /^[A-Z]/.test(tok) || (/^\d/.test(tok) && /[A-Z]/.test(tok) && /[a-zA-Z]{2,}/.test(tok));
}

/** Capitalised phrases in a sentence that could name a merchant, a person or a place. */
function nameCandidates(sentence: string, c: Compiled): string[] {
  const s = c.commonPhrases ? sentence.replace(c.commonPhrases, (m) => ' '.repeat(m.length)) : sentence;
  const toks: { t: string; a: number; b: number }[] = [];
  CAP_TOKEN_RE.lastIndex = 0;
  for (let m = CAP_TOKEN_RE.exec(s); m; m = CAP_TOKEN_RE.exec(s)) toks.push({ t: m[0].replace(/\.+$/, ''), a: m.index, b: m.index + m[0].length });
  const out: string[] = [];
  let i = 0;
  while (i < toks.length) {
    if (!isCapitalised(toks[i]!.t)) {
      i++;
      continue;
    }
    let j = i;
    while (j + 1 < toks.length && isCapitalised(toks[j + 1]!.t) && /^[ \t&*]*$/.test(s.slice(toks[j]!.b, toks[j + 1]!.a))) j++;
    let group = toks.slice(i, j + 1);
    i = j + 1;
    // "Northwind Bank", "Fraud Team": the bank itself or one of its teams.
    if (group.length > 1 && c.institutionSuffixes.includes(group[group.length - 1]!.t.toLowerCase())) continue;
    // Drop common words at either end; one inside stays (it is part of the name).
    while (group.length && c.common.has(group[0]!.t.toLowerCase())) group = group.slice(1);
    while (group.length && c.common.has(group[group.length - 1]!.t.toLowerCase())) group = group.slice(0, -1);
    if (!group.length) continue;
    // A single sentence-initial word is capitalised by position; only odd shapes (all caps, *, ., digits) count.
    if (group[0] === toks[0] && group.length === 1 && !/^[A-Z0-9&*.'-]{3,}$|[*&.\d]/.test(group[0]!.t)) continue;
    out.push(s.slice(group[0]!.a, group[group.length - 1]!.b).replace(/\.+$/, ''));
  }
  return out;
}

function nameSupported(name: string, ev: Evidence, c: Compiled): boolean {
  const g = glue(name);
  if (g.length === 0 || ev.grams.has(g)) return true;
  // Every word of it known (a name split across results, or common words inside a phrase).
  const words = name.split(/[\s&*]+/).filter(Boolean);
  return words.length > 1 && words.every((w) => c.common.has(w.toLowerCase()) || ev.grams.has(glue(w)));
}

// -------------------------------------------------------------------------------------------
// Episode structure.

function toolName(t: AgentTurn): string | null {
  return t.action?.action_type === 'tool_call' ? t.action.content.trim() : null;
}

/**
 * Did the tool do its job? A check_card_status that leaves the card `blocked` has not: the tool
 * lifts fraud-prevention holds when asked (`unblock: true`), so a blocked card after the call means
 * the DA did not ask. Other successful results are their own effect.
 */
export function effectAchieved(r: ToolResult): boolean {
  if (!r.ok) return false;
  if (r.tool === 'check_card_status') return !(r.data.status === 'blocked' && r.data.unblocked !== true);
  return true;
}

/** How a message relates to a tool result: it quotes values from it, only names the outcome in words, or neither. */
type Reference = 'values' | 'words' | 'none';

function referencesResult(text: string, r: ToolResult, cfg: JudgeConfig): Reference {
  const lower = text.toLowerCase().replace(/’/g, "'");
  if (!r.ok) return cfg.errorCues.some((w) => lower.includes(w)) ? 'values' : 'none';
  const cents = new Set(findAmounts(text).map((a) => a.cents));
  const numbers = new Set([...lower.matchAll(/\b\d+\b/g)].map((m) => +m[0]));
  const dates = findDates(text).map((d) => d.date);
  let hit = false;
  const walk = (v: unknown): void => {
    if (hit) return;
    if (typeof v === 'number') hit = cents.has(toCents(v)) || (Number.isInteger(v) && numbers.has(v));
    else if (typeof v === 'string') {
      hit = v.length >= 3 && lower.includes(v.toLowerCase());
      if (!hit && /^\d{4}-\d{2}-\d{2}$/.test(v)) hit = dates.some((d) => d.m === +v.slice(5, 7) && d.d === +v.slice(8, 10));
    } else if (Array.isArray(v)) v.forEach(walk);
    else if (v && typeof v === 'object') Object.values(v).forEach(walk);
  };
  walk(r.data);
  if (hit) return 'values';
  return isDomainTool(r.tool) && cfg.explainCues[r.tool].some((w) => lower.includes(w)) ? 'words' : 'none';
}

/** Raw tool output read out to the customer: `field=value`, snake_case field names, JSON. */
function rawFieldDump(text: string, c: Compiled): boolean {
  if (/\b[a-z_.]+\s*=\s*\S|[{}]|"\w+"\s*:/.test(text)) return true;
  const snake = text.match(/\b[a-z]+_[a-z_]+\b/g) ?? [];
  return snake.some((w) => !c.cfg.idPrefixes.some((p) => w.startsWith(`${p}_`)));
}

/** Every unsupported claim the DA made to the customer, in turn order. */
export function findHallucinations(t: Transcript, opts?: JudgeOptions): Finding[] {
  const c = compile(resolveConfig(opts));
  const ev = new Evidence();
  const out: Finding[] = [];
  // Tools called after each turn (for promises in speak turns).
  const laterCalls: Set<string>[] = new Array(t.turns.length);
  let acc = new Set<string>();
  for (let i = t.turns.length - 1; i >= 0; i--) {
    laterCalls[i] = acc;
    const turn = t.turns[i]!;
    if (turn.role === 'agent') {
      const name = toolName(turn);
      if (name && !acc.has(name)) acc = new Set(acc).add(name);
    }
  }
  t.turns.forEach((turn, i) => {
    if (turn.role === 'customer') {
      ev.addCustomer(turn.text);
      return;
    }
    const a = turn.action;
    if (a && (a.action_type === 'speak' || a.action_type === 'end_call') && a.content.trim() !== '') {
      checkMessage(a.content, i, a.action_type === 'end_call', ev, c, laterCalls[i]!, out);
    }
    if (turn.toolResult) ev.addResult(turn.toolResult);
  });
  return out;
}

/** The judge's verdict on one finished episode. */
export function judgeEpisode(t: Transcript, opts?: JudgeOptions): JudgeVerdict {
  const cfg = resolveConfig(opts);
  const c = compile(cfg);
  const findings = findHallucinations(t, opts);
  const hallucination = findings.length > 0;

  const agents: { turn: AgentTurn; index: number }[] = [];
  t.turns.forEach((turn, index) => {
    if (turn.role === 'agent') agents.push({ turn, index });
  });
  const parseErrors = agents.filter((a) => a.turn.action === null).length;
  const parseShare = agents.length ? parseErrors / agents.length : 0;

  const calls = agents.filter((a) => toolName(a.turn) !== null).map((a) => ({ index: a.index, tool: toolName(a.turn)!, result: a.turn.toolResult }));
  const lookupFirst = calls.length > 0 && calls[0]!.tool === 'lookup_account' && calls[0]!.result?.ok === true;
  const verifiedAt = calls.find((x) => x.tool === 'lookup_account' && x.result?.ok)?.index ?? null;
  const verificationFailed = verifiedAt === null && calls.some((x) => x.tool === 'lookup_account');
  const nonLookup = calls.filter((x) => x.tool !== 'lookup_account');
  const routing = nonLookup[0]?.tool ?? null;
  const afterVerification = (i: number) => !cfg.resolutionNeedsVerification || (verifiedAt !== null && i > verifiedAt);
  const expectedCalls = nonLookup.filter((x) => x.tool === t.expectedTool);
  const expectedOk = expectedCalls.find((x) => x.result !== undefined && effectAchieved(x.result) && afterVerification(x.index)) ?? null;
  const expectedAttempted = expectedCalls.some((x) => afterVerification(x.index));
  const otherTools = [...new Set(nonLookup.filter((x) => x.tool !== t.expectedTool).map((x) => x.tool))];
  const escalated = nonLookup.some((x) => x.tool === 'transfer_to_human' && x.result?.ok === true);

  const isExplainer = (a: { turn: AgentTurn }) =>
    a.turn.action !== null && (a.turn.action.action_type === 'speak' || (cfg.explainInEndCall && a.turn.action.action_type === 'end_call'));
  /** The first message after `from` that explains result `r`, and how. */
  const explanation = (from: number, r: ToolResult) => {
    for (const a of agents) {
      if (a.index <= from || !isExplainer(a)) continue;
      const ref = referencesResult(a.turn.action!.content, r, cfg);
      if (ref !== 'none') return { index: a.index, ref, raw: rawFieldDump(a.turn.action!.content, c) };
    }
    return null;
  };
  const explained = expectedOk?.result ? explanation(expectedOk.index, expectedOk.result) : null;
  // A fabrication about the expected tool's own outcome means the customer was not told the truth.
  const outcomeFindings = cfg.hallucinationBlocksResolution === 'any' ? findings : findings.filter((f) => f.about.includes(t.expectedTool));
  const resolved = expectedOk !== null && explained !== null && outcomeFindings.length === 0;

  const lastAgent = agents[agents.length - 1]?.turn.action;
  const endedWithEndCall = t.endReason === 'end_call' && lastAgent?.action_type === 'end_call';
  const speaksBeforeTool = expectedOk ? agents.filter((a) => a.index < expectedOk.index && a.turn.action?.action_type === 'speak').length : 0;

  const fallback = impossibleOutcome(t, findings);
  if (fallback) {
    // An impossible goal: judged on the fallback (see fallback.ts), never on the goal tool's success.
    const why: string[] = [`impossible (${t.impossible!.reason}), fallback ${fallback.behavior}`];
    let ftier: Tier;
    if (fallback.claimTurn !== null) {
      ftier = 1;
      why.push(`claimed success at turn ${fallback.claimTurn}`);
    } else if (fallback.fallbackTurn !== null) {
      const lapses: string[] = [];
      if (!lookupFirst) lapses.push('lookup_account was not the first tool call');
      if (!endedWithEndCall) lapses.push(t.endReason === 'turn_limit' ? 'hit the turn limit' : 'did not end with end_call');
      if (parseErrors > 0) lapses.push(`${parseErrors} unparseable output${parseErrors > 1 ? 's' : ''}`);
      if (agents.length > cfg.exemplaryMaxAgentTurns) lapses.push(`${agents.length} agent turns (> ${cfg.exemplaryMaxAgentTurns})`);
      ftier = hallucination ? 1 : lapses.length ? 3 : 4;
      why.push(`fallback delivered at turn ${fallback.fallbackTurn}`, ...lapses);
    } else {
      ftier = expectedAttempted || escalated ? 2 : 1;
      why.push(expectedAttempted || escalated ? 'no fallback delivered' : 'neither tried the request nor delivered the fallback');
    }
    if (hallucination) why.push(`hallucination at turn${findings.length > 1 ? 's' : ''} ${[...new Set(findings.map((f) => f.turn))].join(', ')}`);
    const fscore = hallucination || fallback.claimTurn !== null ? cfg.hallucinationScore : cfg.tierScore[ftier];
    return {
      score: fscore,
      resolved: fallbackHandled(fallback),
      tier: ftier,
      hallucination,
      hallucinations: findings.map((f) => ({ turn: f.turn, claim: f.claim })),
      rationale: `tier ${ftier}, J=${fscore >= 0 ? '+' : ''}${fscore}: ${why.join('; ')}`,
    };
  }

  const reasons: string[] = [];
  let tier: JudgeVerdict['tier'];
  if (resolved) reasons.push(`resolved: ${t.expectedTool} succeeded at turn ${expectedOk!.index}, explained at turn ${explained!.index}`);
  if (hallucination) {
    tier = 1;
    const kinds = [...new Set(findings.map((f) => f.kind))].join(', ');
    const turns = [...new Set(findings.map((f) => f.turn))];
    reasons.push(`hallucination (${kinds}) at turn${turns.length > 1 ? 's' : ''} ${turns.join(', ')}: ${findings.map((f) => `"${f.claim}"`).slice(0, 3).join(', ')}${findings.length > 3 ? ', …' : ''}`);
    if (outcomeFindings.length && expectedOk) reasons.push(`misstates the outcome of ${t.expectedTool}`);
  } else if (parseShare >= cfg.parseErrorDominance) {
    tier = 1;
    reasons.push(`${parseErrors} of ${agents.length} agent outputs unparseable`);
  } else if (resolved) {
    const lapses: string[] = [];
    if (!lookupFirst) lapses.push('lookup_account was not the first tool call');
    if (otherTools.length) lapses.push(`also called ${otherTools.join(', ')}`);
    if (expectedCalls.length > 1) lapses.push(`${t.expectedTool} called ${expectedCalls.length} times`);
    if (speaksBeforeTool > cfg.maxSpeaksBeforeTool) lapses.push(`${speaksBeforeTool} speak turns before ${t.expectedTool} (> ${cfg.maxSpeaksBeforeTool})`);
    if (explained!.ref === 'words') lapses.push('the first explanation gives none of the result’s details');
    if (explained!.raw) lapses.push('the first explanation reads out raw tool fields');
    if (!endedWithEndCall) lapses.push(t.endReason === 'turn_limit' ? 'hit the turn limit' : 'did not end with end_call');
    if (agents.length > cfg.exemplaryMaxAgentTurns) lapses.push(`${agents.length} agent turns (> ${cfg.exemplaryMaxAgentTurns})`);
    if (parseErrors > 0) lapses.push(`${parseErrors} unparseable output${parseErrors > 1 ? 's' : ''}`);
    tier = lapses.length ? 3 : 4;
    reasons.push(...lapses);
  } else if (expectedAttempted || (verificationFailed && escalated)) {
    tier = 2;
    const failed = expectedCalls.filter((x) => x.result && !effectAchieved(x.result) && afterVerification(x.index));
    if (expectedOk) reasons.push(`${t.expectedTool} succeeded at turn ${expectedOk.index} but the result was never explained`);
    else if (failed.length) {
      const last = failed[failed.length - 1]!;
      const told = explanation(last.index, last.result!) !== null;
      const what = last.result!.ok ? 'left the card blocked' : `returned ${last.result!.error.code}`;
      reasons.push(`${t.expectedTool} ${what}; ${told ? 'explained to the customer' : 'not explained'}`);
    } else if (!expectedAttempted) reasons.push('identity could not be verified');
    else reasons.push(`${t.expectedTool} called without a result`);
    if (escalated && t.expectedTool !== 'transfer_to_human') reasons.push('escalated to a person');
  } else {
    tier = 1;
    if (routing === null) reasons.push('no domain tool called');
    else if (routing !== t.expectedTool) reasons.push(`routed to ${routing}, expected ${t.expectedTool}`);
    if (expectedCalls.length && !afterVerification(expectedCalls[0]!.index)) reasons.push(`${t.expectedTool} called without identity verification`);
    if (verifiedAt === null) reasons.push('identity never verified');
    if (t.endReason === 'turn_limit') reasons.push('hit the turn limit without progress');
  }
  if (parseErrors > 0 && tier !== 3 && !(tier === 1 && parseShare >= cfg.parseErrorDominance)) {
    reasons.push(`${parseErrors} unparseable output${parseErrors > 1 ? 's' : ''}`);
  }

  const score = hallucination ? cfg.hallucinationScore : cfg.tierScore[tier];
  return {
    score,
    resolved,
    tier,
    hallucination,
    hallucinations: findings.map((f) => ({ turn: f.turn, claim: f.claim })),
    rationale: `tier ${tier}, J=${score >= 0 ? '+' : ''}${score}: ${reasons.join('; ')}`,
  };
}
