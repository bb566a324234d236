/**
 * The keyword-routing DA: a baseline and a test fixture. It follows the call sequence of the DA
 * system prompt (lookup_account → one domain tool → speak the result → end_call), routes by
 * keyword scores over everything the customer has said, and asks for the charge's details when a
 * dispute or transfer needs them. It is deliberately easy to fool with decoys and vague openings.
 */
import type { DomainTool } from '../domain/types';
import type { Rng } from '../random';
import type { DaObservation } from '../world/environment';
import type { DaPolicy } from './policy';
import { dialogueState, needsDetail, renderDaChoice } from './da-actions';

/** Substring cues per tool, with weights; fraud cues outweigh everything (escalate). */
export const ROUTING_CUES: Record<DomainTool, [string, number][]> = {
  dispute_charge: [
    ["don't recognize", 1.5],
    ["don't recognise", 1.5],
    ['not recognize', 1.5],
    ["didn't make", 1.5],
    ['did not make', 1.5],
    ['not mine', 1.2],
    ['never made', 1.2],
    ['twice', 1.5],
    ['two times', 1.2],
    ['double', 1.2],
    ['duplicate', 1.5],
    ['same charge', 1.2],
    ['refund', 1.2],
    ['money back', 1.0],
    ['returned', 0.8],
    ['dispute', 1.5],
    ['overcharged', 1.0],
    ['wrong amount', 1.0],
    ['charged me', 0.6],
    ['never arrived', 0.8],
    ['never got', 0.6],
    ['charge', 0.3],
  ],
  get_transactions: [
    ['what is this', 1.0],
    ["what's this", 1.0],
    ['no idea what', 1.0],
    ['never heard of', 1.2],
    ['statement', 0.8],
    ['recent', 0.8],
    ['history', 0.8],
    ['transactions', 0.8],
    ['pending', 0.8],
    ['balance', 0.6],
    ['activity', 0.8],
    ['strange name', 1.2],
    ['weird name', 1.2],
    ['who is', 0.8],
    ['what was', 0.6],
    ['spent', 0.6],
    ['went out', 0.6],
  ],
  check_card_status: [
    ['declined', 1.5],
    ['decline', 1.2],
    ['not working', 1.2],
    ["isn't working", 1.2],
    ["doesn't work", 1.2],
    ["won't work", 1.2],
    ['rejected', 1.2],
    ['blocked', 1.2],
    ['frozen', 1.0],
    ["didn't go through", 1.2],
    ["won't go through", 1.2],
    ['pin', 0.6],
    ['activate', 1.0],
    ['expired', 1.0],
    ['card', 0.3],
  ],
  transfer_funds: [
    ['move', 1.0],
    ['transfer', 0.8],
    ['savings', 0.8],
    ['into my checking', 1.2],
    ['between my accounts', 1.5],
    ['top up', 0.8],
    ['put some money', 1.0],
    ['shift', 0.6],
  ],
  transfer_to_human: [
    ['hacked', 3.0],
    ['someone else', 2.0],
    ['stolen', 2.5],
    ['compromised', 3.0],
    ['fraud', 3.0],
    ['scam', 2.0],
    ['close my account', 2.0],
    ['speak to a person', 2.0],
    ['real person', 2.0],
    ['human', 1.5],
    ['manager', 1.5],
    ['identity', 1.2],
    ['lost my', 1.2],
    ['without my permission', 2.0],
    ["didn't authori", 2.0],
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

export class ScriptedDa implements DaPolicy {
  readonly name = 'scripted';
  /** How many clarifying questions it asks before routing on what it has. */
  constructor(private readonly maxQuestions = 2) {}

  act(obs: DaObservation, _rng: Rng): string {
    const s = dialogueState(obs);
    if (!s.lookup) return renderDaChoice('lookup_account', obs, '[LAST ACTION: none][HAVE: caller id] -> Next: verify identity', s);
    const domainCall = s.domainCalls[0];
    if (!domainCall) {
      const scores = routingScores(s.customerText);
      const ranked = (Object.entries(scores) as [DomainTool, number][]).sort((a, b) => b[1] - a[1]);
      const [top, topScore] = ranked[0]!;
      const hyp = ranked
        .slice(0, 2)
        .map(([t, v]) => `${t} ${v.toFixed(1)}`)
        .join(', ');
      if (topScore === 0 && s.speaks < this.maxQuestions) {
        return renderDaChoice('ask', obs, `[HAVE: verified; no cue yet] -> Next: ask (hypotheses: ${hyp})`, s);
      }
      const tool: DomainTool = topScore === 0 ? 'transfer_to_human' : top;
      if (needsDetail(tool, s) && s.speaks < this.maxQuestions) {
        return renderDaChoice('ask', obs, `[HAVE: verified; leaning ${tool}] -> Next: ask for the details (hypotheses: ${hyp})`, s);
      }
      return renderDaChoice(tool, obs, `[HAVE: verified] -> Next: ${tool} (hypotheses: ${hyp})`, s);
    }
    if (!s.explained) return renderDaChoice('explain', obs, `[LAST ACTION: ${domainCall.action!.content}] -> Next: explain the result`, s);
    return renderDaChoice('end_call', obs, '[HAVE: verified, tool called, explained] -> Next: end the call', s);
  }
}
