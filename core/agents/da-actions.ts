/**
 * The DA's discrete choices and how a choice becomes a wire-format action. Scripted and builtin
 * DAs pick a choice; this module fills in tool arguments from the dialogue (caller ID, what
 * lookup_account returned, amounts the customer said) and speech from templates grounded in tool
 * results, so every backend's output goes through the same parser, rewards and judge.
 */
import { MONTHS, WEEKDAYS } from '../world/calendar-words';
import { TOOL_NAMES } from '../domain/types';
import type { DomainTool, ToolName } from '../domain/types';
import type { DaObservation } from '../world/environment';
import type { LookupAccountResult } from '../world/tool-types';
import type { AgentTurn } from '../world/transcript';
import { formatDaAction } from '../wire';
import { CLARIFY_QUESTION, GOODBYE, OPEN_QUESTION, explainResult } from './speech';

/** ask a clarifying question, call one of the six tools, explain the last result, end the call. */
export const DA_CHOICES = ['ask', ...TOOL_NAMES, 'explain', 'end_call'] as const;
export type DaChoice = (typeof DA_CHOICES)[number];

/** What the DA knows about where the call stands, derived from its own observation only. */
export interface DialogueState {
  customerText: string;
  lookup: LookupAccountResult | null;
  /** The DA's domain tool calls so far, in order. */
  domainCalls: AgentTurn[];
  /** Has the DA spoken since its last domain tool call? */
  explained: boolean;
  /** Speak actions so far. */
  speaks: number;
  /** Agent turns so far. */
  agentTurns: number;
  lastResultOk: boolean | null;
  unparseable: number;
}

export function dialogueState(obs: DaObservation): DialogueState {
  let lookup: LookupAccountResult | null = null;
  const domainCalls: AgentTurn[] = [];
  let explained = false;
  let speaks = 0;
  let agentTurns = 0;
  let lastResultOk: boolean | null = null;
  let unparseable = 0;
  const texts: string[] = [];
  for (const t of obs.turns) {
    if (t.role === 'customer') {
      texts.push(t.text);
      continue;
    }
    agentTurns++;
    if (!t.action) {
      unparseable++;
      continue;
    }
    if (t.action.action_type === 'speak') {
      speaks++;
      if (domainCalls.length > 0) explained = true;
    } else if (t.action.action_type === 'tool_call') {
      lastResultOk = t.toolResult?.ok ?? null;
      const name = t.action.content.trim();
      if (name === 'lookup_account') {
        if (t.toolResult?.ok) lookup = t.toolResult.data as unknown as LookupAccountResult;
      } else {
        domainCalls.push(t);
        explained = false;
      }
    }
  }
  return { customerText: texts.join(' '), lookup, domainCalls, explained, speaks, agentTurns, lastResultOk, unparseable };
}

const AMOUNT = /\$\s?(\d{1,3}(?:,\d{3})+(?:\.\d{1,2})?|\d+(?:\.\d{1,2})?)|\b(\d+(?:\.\d{1,2})?)\s?(?:dollars|bucks|usd)\b/i;

/** The first money amount in a text ("$1,250.50", "40 bucks"). */
export function extractAmount(text: string): number | undefined {
  const m = AMOUNT.exec(text);
  const v = m ? (m[1] ?? m[2]) : undefined;
  return v === undefined ? undefined : Number(v.replace(/,/g, ''));
}

/** A word of a merchant's name: capitalised, a number or a processor prefix ("UBER", "*TRIP", "Joe's", "4471"). */
const NAME_WORD = /^(?:[A-Z0-9*][\w*.'&-]*)$/;

/** Capitalised words that begin no merchant's name: pronouns, articles, months and weekdays. */
const NOT_A_NAME = new Set([
  'i',
  "i'm",
  "i've",
  "i'd",
  "i'll",
  'it',
  "it's",
  'the',
  'a',
  'an',
  'my',
  'this',
  'that',
  'there',
  "there's",
  'they',
  'we',
  'you',
  'he',
  'she',
  'someone',
  'somebody',
  'something',
  'nobody',
  'nothing',
  'money',
  'when',
  'what',
  'where',
  'which',
  'why',
  'how',
  'who',
  ...MONTHS,
  ...WEEKDAYS,
]);

/**
 * Where a merchant's name starts, in the ways customers introduce one: after a preposition or
 * "paid", "called", "says" ("the payment at Delta Air Lines", "I paid Shell"); between a determiner and a payment
 * noun ("that Whole Foods card payment", "the two identical NETFLIX.COM transactions"); and at the
 * start of a sentence before what a merchant does ("Shell charged me twice"). "been to" leads to a
 * place, not a shop.
 */
const NAME_STARTS = [
  /(?<!\bbeen )\b(?:at|to|from|by|for|with|behind|says|paid|called|was)\s+/g,
  /\b(?:[Tt]he|[Aa]|[Mm]y|[Tt]hat|[Tt]his|identical|repeated|pending)\s+(?=(?:[A-Z0-9*][\w*.'&-]*\s+){1,4}(?:card\s+)?(?:payment|one|charge|transaction|transactions|purchase|bill|subscription|order|line|entry|direct debit)\b)/g,
  /(?:^|[.!?:;,]\s+|\b(?:and|but|that|shows|why|money)\s+)(?=(?:[A-Z0-9*][\w*.'&-]*\s+){1,4}(?:charged|double|refunded|insists|told|sent|kept|got|billed|took|takes|added|emailed|says|said|owes|cancelled|refused|rejected|agreed|couldn't|is|has)\b)/g,
];

/** The run of name words at the start of `rest`, up to the first lower-case word or punctuation. */
function nameAt(rest: string): string | undefined {
  const words: string[] = [];
  for (const raw of rest.split(/\s+/)) {
    const w = raw.replace(/[.,;:!?)"]+$/, '');
    if (w === '' || w === 'I' || !NAME_WORD.test(w) || (words.length === 0 && NOT_A_NAME.has(w.toLowerCase()))) break;
    words.push(w);
    if (w !== raw) break; // punctuation ends the name
  }
  return words.length > 0 ? words.join(' ') : undefined;
}

/**
 * The merchant the customer names ("the payment at Delta Air Lines on March 3" → "Delta Air
 * Lines"): the first name, by position, that follows one of `NAME_STARTS`. Merchants are written as
 * names, and a wrong guess only makes dispute_charge find no charge (the DA then asks which it is).
 */
export function extractMerchant(text: string): string | undefined {
  let best: { at: number; name: string } | undefined;
  for (const re of NAME_STARTS) {
    for (const m of text.matchAll(re)) {
      const at = m.index + m[0].length;
      if (best && at >= best.at) break;
      const name = nameAt(text.slice(at));
      if (name !== undefined) {
        best = { at, name };
        break;
      }
    }
  }
  return best?.name;
}

/**
 * The charge's merchant from the customer's turns, the newest first: after a dispute that found
 * no charge, the answer to "which charge is it?" outranks a name read (perhaps wrongly) from the
 * opening.
 */
export function merchantOfTurns(obs: DaObservation): string | undefined {
  for (let i = obs.turns.length - 1; i >= 0; i--) {
    const t = obs.turns[i]!;
    if (t.role !== 'customer') continue;
    const m = extractMerchant(t.text);
    if (m !== undefined) return m;
  }
  return undefined;
}

/** How customers say a charge went through more than once ("both went through", "two identical payments", "again right underneath"). */
const DUPLICATE_WORDING =
  /twice|double|duplicat|two times|identical|repeat|more than once|too many times|\bagain\b|\bboth\b|back to back|pair of|\bonce\b|\bsecond (\S+ )?(one|payment|charge|line)|two (\S+ )?(lines|payments|charges|transactions)|same (charge|payment|amount)/;

/** What a dispute_charge call asked for, to tell a repeat. */
function disputeKey(a: Record<string, unknown>): string {
  return JSON.stringify([a.amount ?? null, a.merchant ?? null, a.reason ?? null]);
}

/** Arguments for a tool, from the caller ID, the lookup result and the customer's words. */
export function toolArgsFor(tool: ToolName, obs: DaObservation, s: DialogueState = dialogueState(obs)): Record<string, unknown> {
  if (tool === 'lookup_account') return { phone: obs.caller.phone };
  const lower = s.customerText.toLowerCase();
  const amount = extractAmount(s.customerText);
  if (tool === 'transfer_to_human') {
    const fraud = /fraud|hack|stolen|compromis|someone else|scam|didn't authori|identity/.test(lower);
    return { reason: s.customerText.slice(0, 200) || 'customer request', department: fraud ? 'fraud' : 'general' };
  }
  // The account tools need ids from lookup_account; without it they are called bare and the
  // backend answers with a typed error (the DA skipped verification).
  const accounts = s.lookup?.accounts ?? [];
  const checking = accounts.find((a) => a.type === 'checking') ?? accounts[0];
  const savings = accounts.find((a) => a.type === 'savings') ?? accounts[1] ?? checking;
  const id = (x: { account_id: string } | undefined) => x?.account_id ?? 'unknown';
  switch (tool) {
    case 'get_transactions':
      return { account_id: id(checking), limit: 5 };
    case 'dispute_charge': {
      // Only a duplicate narrows the backend's match (the later of two identical charges), so the
      // wording is read broadly: a customer rarely says "duplicate". Several charges matching what
      // the customer named is itself a sign of one.
      const ambiguous = s.domainCalls.some((c) => c.toolResult?.ok === false && c.toolResult.error.code === 'AMBIGUOUS');
      const reason = ambiguous || DUPLICATE_WORDING.test(lower) ? 'duplicate' : /refund|money back|returned/.test(lower) ? 'refund_missing' : 'unrecognized';
      // The amount alone identifies a charge more surely than a merchant read from free text; the
      // merchant is the fallback that lets a customer who names the shop but no sum be helped, and
      // both together narrow a match of several. A call that failed is not repeated as it was.
      const merchant = merchantOfTurns(obs);
      const ways: Record<string, unknown>[] = [];
      if (amount !== undefined) ways.push({ amount });
      if (merchant !== undefined) ways.push({ merchant });
      if (amount !== undefined && merchant !== undefined) ways.push({ amount, merchant });
      const tried = new Set(s.domainCalls.filter((c) => c.action?.content.trim() === 'dispute_charge').map((c) => disputeKey(c.action!.tool_args)));
      const args = (way: Record<string, unknown>) => ({ account_id: id(checking), ...way, reason });
      return args(ways.find((w) => !tried.has(disputeKey(args(w)))) ?? ways[0] ?? {});
    }
    case 'check_card_status':
      return { card_id: s.lookup?.cards[0]?.card_id ?? 'unknown', unblock: true };
    case 'transfer_funds': {
      const fromSavings = /from (my )?savings|into (my )?checking/.test(lower);
      const [from, to] = fromSavings ? [savings, checking] : [checking, savings];
      return { from_account_id: id(from), to_account_id: id(to), amount: amount ?? 100 };
    }
  }
}

/** Does routing to this tool need a detail the customer has not given yet (a dispute: the amount or the merchant; a transfer: the amount)? */
export function needsDetail(tool: DomainTool, s: DialogueState): boolean {
  if (tool === 'dispute_charge') return extractAmount(s.customerText) === undefined && extractMerchant(s.customerText) === undefined;
  return tool === 'transfer_funds' && extractAmount(s.customerText) === undefined;
}

/** Render a choice as the DA's wire-format output. */
export function renderDaChoice(choice: DaChoice, obs: DaObservation, thinking: string, s: DialogueState = dialogueState(obs)): string {
  const out = (action_type: 'speak' | 'tool_call' | 'end_call', content: string, tool_args: Record<string, unknown> = {}) =>
    formatDaAction({ thinking, action_type, content, tool_args });
  switch (choice) {
    case 'ask': {
      // After a call that failed and went unexplained, the question is which transaction it is.
      const afterFailure = s.lastResultOk === false && s.domainCalls.length > 0 && !s.explained;
      return out('speak', !afterFailure && (s.customerText.trim() === '' || s.speaks > 0) ? OPEN_QUESTION : CLARIFY_QUESTION);
    }
    case 'explain': {
      const last = s.domainCalls.at(-1)?.toolResult;
      return out('speak', last ? explainResult(last) : OPEN_QUESTION);
    }
    case 'end_call':
      return out('end_call', GOODBYE);
    default:
      return out('tool_call', choice, toolArgsFor(choice, obs, s));
  }
}
