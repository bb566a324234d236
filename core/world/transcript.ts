/**
 * A conversation as the environment records it and as the judge, the rewards and the store read
 * it. Only plain data: transcripts cross process boundaries and go into SQLite as they are.
 */
import type { AdversityKind, DomainTool, ImpossibleSpec } from '../domain/types';
import type { DaAction } from '../wire';

/** One adversity that fired: which, at which turn of the transcript, and what it did. */
export interface AdversityFiring {
  kind: AdversityKind;
  /** Index of the turn it shaped: the customer utterance, or the agent tool call it answered. */
  turn: number;
  detail: string;
}

/** Error codes a tool returns instead of a result. */
export type ToolErrorCode =
  | 'UNKNOWN_TOOL'
  | 'INVALID_ARGUMENTS'
  | 'NOT_VERIFIED'
  | 'NOT_FOUND'
  | 'AMBIGUOUS'
  | 'INSUFFICIENT_FUNDS'
  | 'NOT_ALLOWED'
  /** Injected by an execution adversity (`adversities.ts`): the service failed, timed out, or policy refused. */
  | 'BACKEND_ERROR'
  | 'TIMEOUT'
  | 'POLICY';

export type ToolResult =
  { ok: true; tool: string; data: Record<string, unknown> } | { ok: false; tool: string; error: { code: ToolErrorCode; message: string } };

export interface CustomerTurn {
  role: 'customer';
  text: string;
}

export interface AgentTurn {
  role: 'agent';
  /** Exactly what the DA backend produced. */
  raw: string;
  /** The parsed action, or null when `raw` was unparseable. */
  action: DaAction | null;
  /** Why `raw` did not parse. */
  parseError?: string;
  /** The tools backend's answer, for tool_call actions. */
  toolResult?: ToolResult;
}

export type Turn = CustomerTurn | AgentTurn;

/** Why an episode ended. */
export type EndReason = 'end_call' | 'turn_limit';

export interface Transcript {
  scenarioId: string;
  /** Ground truth of the world, hidden from the DA: the tool the customer's intent needs. */
  expectedTool: DomainTool;
  /** The customer's hidden intent. */
  intent: string;
  turns: Turn[];
  endReason: EndReason;
  /** The adversities that fired, in turn order; absent when none did. */
  adversities?: AdversityFiring[];
  /** Set when the scenario's goal is unattainable: what the agent should do instead. */
  impossible?: ImpossibleSpec;
}

export function agentTurns(turns: readonly Turn[]): AgentTurn[] {
  return turns.filter((t): t is AgentTurn => t.role === 'agent');
}
