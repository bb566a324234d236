/** Facts about a finished transcript that rewards, the judge and the arena all need. */
import { isDomainTool } from '../domain/types';
import type { Transcript } from '../world/transcript';

/** The first non-lookup tool the DA called (existing or not): its routing decision. */
export function routedTool(t: Transcript): string | null {
  for (const turn of t.turns) {
    if (turn.role === 'agent' && turn.action?.action_type === 'tool_call') {
      const name = turn.action.content.trim();
      if (name !== 'lookup_account') return name;
    }
  }
  return null;
}

/**
 * The DA wins an arena episode when its routing decision — the first domain tool it calls — is
 * the tool the customer's hidden intent needs. Anything else (a wrong tool, a tool that does not
 * exist, or no domain tool at all) is a CA win: the CA's goal is to cause misroutes.
 */
export function daWins(t: Transcript): boolean {
  return routedTool(t) === t.expectedTool;
}

/** Was lookup_account the DA's first tool call? */
export function lookupFirst(t: Transcript): boolean {
  for (const turn of t.turns) {
    if (turn.role === 'agent' && turn.action?.action_type === 'tool_call') return turn.action.content.trim() === 'lookup_account';
  }
  return false;
}

export function calledDomainToolOk(t: Transcript): boolean {
  return t.turns.some((turn) => turn.role === 'agent' && turn.toolResult?.ok === true && isDomainTool(turn.toolResult.tool));
}
