/**
 * The DA's discrete choices and how a choice becomes a wire-format action. Scripted and builtin
 * DAs pick a choice; this module fills in tool arguments from the dialogue (caller ID, what
 * lookup_account returned, amounts the customer said) and speech from templates grounded in tool
 * results, so every backend's output goes through the same parser, rewards and judge.
 */
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

/**
 * The merchant the customer names after "at", "to" or "from" ("the payment at Delta Air Lines on
 * March 3" → "Delta Air Lines"): the run of name words that follows, up to the first lower-case
 * word or punctuation. Merchants are written as names, places and people are not introduced by
 * these words in the bank, and a wrong guess only makes dispute_charge find no charge.
 */
export function extractMerchant(text: string): string | undefined {
  for (const m of text.matchAll(/\b(?:at|to|from)\s+/g)) {
    const words: string[] = [];
    for (const raw of text.slice(m.index + m[0].length).split(/\s+/)) {
      const w = raw.replace(/[.,;:!?)]+$/, '');
      if (w === '' || w === 'I' || !NAME_WORD.test(w)) break;
      words.push(w);
      if (w !== raw) break; // punctuation ends the name
    }
    if (words.length > 0) return words.join(' ');
  }
  return undefined;
}

/** How customers say a charge went through more than once ("both went through", "two identical payments", "again right underneath"). */
const DUPLICATE_WORDING =
  /twice|double|duplicat|two times|identical|repeat|more than once|too many times|\bagain\b|\bboth\b|back to back|pair of|\bonce\b|\bsecond (\S+ )?(one|payment|charge|line)|two (\S+ )?(lines|payments|charges|transactions)|same (charge|payment|amount)/;

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
      // wording is read broadly: a customer rarely says "duplicate".
      const reason = DUPLICATE_WORDING.test(lower)
        ? 'duplicate'
        : /refund|money back|returned/.test(lower)
          ? 'refund_missing'
          : 'unrecognized';
      // The amount alone identifies a charge more surely than a merchant read from free text; the
      // merchant is the fallback that lets a customer who names the shop but no sum be helped.
      const merchant = amount === undefined ? extractMerchant(s.customerText) : undefined;
      return { account_id: id(checking), ...(amount !== undefined ? { amount } : {}), ...(merchant !== undefined ? { merchant } : {}), reason };
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
