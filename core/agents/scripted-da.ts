/**
 * The keyword-routing DA: a baseline and a test fixture. It follows the call sequence of the DA
 * system prompt (lookup_account → one domain tool → speak the result → end_call), routes by
 * keyword scores over everything the customer has said, and asks for the charge's details when a
 * dispute or transfer needs them. It is deliberately easy to fool with decoys and vague openings.
 */
import type { DomainTool } from '../domain/types';
import type { Rng } from '../random';
import type { DaObservation } from '../world/environment';
import type { LookupAccountResult } from '../world/tool-types';
import type { AgentTurn } from '../world/transcript';
import { formatDaAction } from '../wire';
import type { DaAction } from '../wire';
import type { DaPolicy } from './policy';
import { CLARIFY_QUESTION, GOODBYE, OPEN_QUESTION, explainResult } from './speech';

/** Substring cues per tool, with weights; fraud cues outweigh everything (escalate). */
export const ROUTING_CUES: Record<DomainTool, [string, number][]> = {
  dispute_charge: [
    ["don't recognize", 1.5], ["don't recognise", 1.5], ['not recognize', 1.5], ["didn't make", 1.5], ['did not make', 1.5],
    ['not mine', 1.2], ['never made', 1.2], ['twice', 1.5], ['two times', 1.2], ['double', 1.2], ['duplicate', 1.5],
    ['same charge', 1.2], ['refund', 1.2], ['money back', 1.0], ['returned', 0.8], ['dispute', 1.5], ['overcharged', 1.0],
    ['wrong amount', 1.0], ['charged me', 0.6], ['never arrived', 0.8], ['never got', 0.6], ['charge', 0.3],
  ],
  get_transactions: [
    ['what is this', 1.0], ["what's this", 1.0], ['no idea what', 1.0], ['never heard of', 1.2], ['statement', 0.8],
    ['recent', 0.8], ['history', 0.8], ['transactions', 0.8], ['pending', 0.8], ['balance', 0.6], ['activity', 0.8],
    ['strange name', 1.2], ['weird name', 1.2], ['who is', 0.8], ['what was', 0.6], ['spent', 0.6], ['went out', 0.6],
  ],
  check_card_status: [
    ['declined', 1.5], ['decline', 1.2], ['not working', 1.2], ["isn't working", 1.2], ["doesn't work", 1.2],
    ["won't work", 1.2], ['rejected', 1.2], ['blocked', 1.2], ['frozen', 1.0], ["didn't go through", 1.2],
    ["won't go through", 1.2], ['pin', 0.6], ['activate', 1.0], ['expired', 1.0], ['card', 0.3],
  ],
  transfer_funds: [
    ['move', 1.0], ['transfer', 0.8], ['savings', 0.8], ['into my checking', 1.2], ['between my accounts', 1.5],
    ['top up', 0.8], ['put some money', 1.0], ['shift', 0.6],
  ],
  transfer_to_human: [
    ['hacked', 3.0], ['someone else', 2.0], ['stolen', 2.5], ['compromised', 3.0], ['fraud', 3.0], ['scam', 2.0],
    ['close my account', 2.0], ['speak to a person', 2.0], ['real person', 2.0], ['human', 1.5], ['manager', 1.5],
    ['identity', 1.2], ['lost my', 1.2], ['without my permission', 2.0], ["didn't authori", 2.0],
  ],
};

export function routingScores(text: string): Record<DomainTool, number> {
  const lower = text.toLowerCase().replace(/’/g, "'");
  const out = {} as Record<DomainTool, number>;
  for (const [tool, cues] of Object.entries(ROUTING_CUES) as [DomainTool, [string, number][]][]) {
    out[tool] = cues.reduce((s, [cue, w]) => (lower.includes(cue) ? s + w : s), 0);
  }
  return out;
}

const AMOUNT = /\$\s?(\d{1,3}(?:,\d{3})*(?:\.\d{1,2})?|\d+(?:\.\d{1,2})?)|\b(\d+(?:\.\d{1,2})?)\s?(?:dollars|bucks|usd)\b/i;

export function extractAmount(text: string): number | undefined {
  const m = AMOUNT.exec(text);
  const v = m ? (m[1] ?? m[2]) : undefined;
  return v === undefined ? undefined : Number(v.replace(/,/g, ''));
}

function act(thinking: string, action_type: DaAction['action_type'], content: string, tool_args: Record<string, unknown> = {}): string {
  return formatDaAction({ thinking, action_type, content, tool_args });
}

export class ScriptedDa implements DaPolicy {
  readonly name = 'scripted';
  /** How many clarifying questions it asks before routing on what it has. */
  constructor(private readonly maxQuestions = 2) {}

  act(obs: DaObservation, _rng: Rng): string {
    const agent = obs.turns.filter((t): t is AgentTurn => t.role === 'agent');
    const customerText = obs.turns.flatMap((t) => (t.role === 'customer' ? [t.text] : [])).join(' ');
    const lookup = agent.find((t) => t.action?.content === 'lookup_account' && t.toolResult?.ok);
    if (!lookup) {
      return act('[LAST ACTION: none][HAVE: caller id] -> Next: verify identity', 'tool_call', 'lookup_account', { phone: obs.caller.phone });
    }
    const account = (lookup.toolResult as { data: unknown }).data as LookupAccountResult;
    const domainCall = agent.find((t) => t.action?.action_type === 'tool_call' && t.action.content !== 'lookup_account');
    const questions = agent.filter((t) => t.action?.action_type === 'speak').length;

    if (!domainCall) {
      const scores = routingScores(customerText);
      const ranked = (Object.entries(scores) as [DomainTool, number][]).sort((a, b) => b[1] - a[1]);
      const [top, topScore] = ranked[0]!;
      const hyp = ranked.slice(0, 2).map(([t, s]) => `${t} ${s.toFixed(1)}`).join(', ');
      const amount = extractAmount(customerText);
      if (topScore === 0 && questions < this.maxQuestions) {
        return act(`[HAVE: verified; no cue yet] -> Next: ask (hypotheses: ${hyp})`, 'speak', OPEN_QUESTION);
      }
      const tool: DomainTool = topScore === 0 ? 'transfer_to_human' : top;
      const checking = account.accounts.find((a) => a.type === 'checking') ?? account.accounts[0]!;
      const savings = account.accounts.find((a) => a.type === 'savings') ?? account.accounts[1] ?? checking;
      if ((tool === 'dispute_charge' || tool === 'transfer_funds') && amount === undefined && questions < this.maxQuestions) {
        return act(`[HAVE: verified; leaning ${tool}] -> Next: ask for the details (hypotheses: ${hyp})`, 'speak', CLARIFY_QUESTION);
      }
      const thinking = `[HAVE: verified] -> Next: ${tool} (hypotheses: ${hyp})`;
      const lower = customerText.toLowerCase();
      switch (tool) {
        case 'dispute_charge': {
          const reason = /twice|double|duplicate|two times|same charge/.test(lower) ? 'duplicate' : /refund|money back|returned/.test(lower) ? 'refund_missing' : 'unrecognized';
          return act(thinking, 'tool_call', tool, { account_id: checking.account_id, ...(amount !== undefined ? { amount } : {}), reason });
        }
        case 'get_transactions':
          return act(thinking, 'tool_call', tool, { account_id: checking.account_id, limit: 5 });
        case 'check_card_status':
          return act(thinking, 'tool_call', tool, { card_id: account.cards[0]!.card_id, unblock: true });
        case 'transfer_funds': {
          const fromSavings = /from (my )?savings|into (my )?checking/.test(lower);
          const [from, to] = fromSavings ? [savings, checking] : [checking, savings];
          return act(thinking, 'tool_call', tool, { from_account_id: from.account_id, to_account_id: to.account_id, amount: amount ?? 100 });
        }
        case 'transfer_to_human': {
          const fraud = scores.transfer_to_human >= 2;
          return act(thinking, 'tool_call', tool, { reason: customerText.slice(0, 200) || 'customer request', department: fraud ? 'fraud' : 'general' });
        }
      }
    }

    const explainedAfter = agent.slice(agent.indexOf(domainCall!) + 1).some((t) => t.action?.action_type === 'speak');
    if (!explainedAfter && domainCall!.toolResult) {
      return act(`[LAST ACTION: ${domainCall!.action!.content}] -> Next: explain the result`, 'speak', explainResult(domainCall!.toolResult));
    }
    return act('[HAVE: verified, tool called, explained] -> Next: end the call', 'end_call', GOODBYE);
  }
}
