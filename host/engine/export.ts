/**
 * Episode export: JSONL in the OpenAI chat fine-tuning format with tool calls (one episode a
 * line, from the DA's point of view), and CSV with one row per episode and every reward term.
 */
import { complexityOf, TOOL_NAMES } from '../../core/domain/types';
import type { Complexity, ImpossibleSpec, Persona, Scenario, TaskSpec, ToolName } from '../../core/domain/types';
import { transcriptOfEpisode, validateTranscript } from '../../core/validators/validators';
import type { AdversityFiring } from '../../core/world/adversities';
import { CA_TERMS, DA_TERMS } from '../../core/rewards/terms';
import type { EpisodeRecord, EpisodeSummary } from '../../core/store/port';
import { parseDaOutput } from '../../core/wire';

export interface ChatToolCall {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
}

export type ChatMessage =
  | { role: 'system'; content: string }
  | { role: 'user'; content: string }
  | { role: 'assistant'; content: string; tool_calls?: undefined }
  | { role: 'assistant'; content: null; tool_calls: ChatToolCall[] }
  | { role: 'tool'; tool_call_id: string; content: string };

export interface ChatTool {
  type: 'function';
  function: { name: string; description: string; parameters: Record<string, unknown> };
}

/** One JSONL line. `metadata` carries what the DA never saw (intent, outcome, rewards). */
export interface ChatExample {
  messages: ChatMessage[];
  tools: ChatTool[];
  metadata: {
    episodeId: string;
    matchId: string;
    scenarioId: string;
    intent: string;
    expectedTool: string;
    routedTool: string | null;
    winner: 'DA' | 'CA';
    endReason: string;
    rDa: number;
    rCa: number;
    judgeScore: number;
    judgeResolved: boolean;
    /** The DA's `thinking` per assistant message, in order (null where the output did not parse). */
    thinking: (string | null)[];
    /** MADS scenario metadata, when the scenario is known: complexity, task, persona, fallback, the adversities that fired. */
    scenario?: {
      complexity: Complexity;
      task?: TaskSpec;
      persona?: Persona;
      impossible?: ImpossibleSpec;
      adversities: AdversityFiring[];
    };
    /** The validators' verdicts (all passed for a `--validated` export). */
    validators?: { validator: string; ok: boolean; reason: string }[];
  };
}

const str = { type: 'string' } as const;
const num = { type: 'number' } as const;
const TOOL_SPECS: Record<ToolName, { description: string; properties: Record<string, unknown>; required: string[] }> = {
  lookup_account: {
    description: "Verify the caller by caller-ID phone number; returns the customer's accounts and cards.",
    properties: { phone: str },
    required: ['phone'],
  },
  get_transactions: { description: 'Recent transactions of an account (at most 5).', properties: { account_id: str, limit: num }, required: ['account_id'] },
  dispute_charge: {
    description: 'Open a dispute on one transaction, by id or by merchant and/or amount.',
    properties: {
      account_id: str,
      transaction_id: str,
      merchant: str,
      amount: num,
      reason: { type: 'string', enum: ['unrecognized', 'duplicate', 'refund_missing', 'not_received', 'other'] },
    },
    required: ['account_id', 'reason'],
  },
  check_card_status: {
    description: 'Status of a card; optionally lift a fraud-prevention block.',
    properties: { card_id: str, unblock: { type: 'boolean' } },
    required: ['card_id'],
  },
  transfer_funds: {
    description: "Move money between the customer's own accounts.",
    properties: { from_account_id: str, to_account_id: str, amount: num },
    required: ['from_account_id', 'to_account_id', 'amount'],
  },
  transfer_to_human: {
    description: 'Hand the call to a human department.',
    properties: { reason: str, department: { type: 'string', enum: ['fraud', 'cards', 'accounts', 'general'] } },
    required: ['reason'],
  },
};

export const CHAT_TOOLS: ChatTool[] = TOOL_NAMES.map((name) => ({
  type: 'function',
  function: {
    name,
    description: TOOL_SPECS[name].description,
    parameters: { type: 'object', properties: TOOL_SPECS[name].properties, required: TOOL_SPECS[name].required },
  },
}));

export const SYSTEM_PROMPT =
  'You are a customer-support agent for a bank. Verify the caller with lookup_account first, call the one ' +
  'domain tool their problem needs, explain the result to them, then end the call. Never ask the customer ' +
  'to name their problem category; infer it from what they say.';

/**
 * A validated episode as a chat example with its scenario's metadata and the validators'
 * verdicts, or null when any validator (syntax, faithfulness, role confusion, task success) fails.
 */
export function validatedChat(e: EpisodeRecord, scenario: Scenario | undefined): ChatExample | null {
  const verdicts = validateTranscript(transcriptOfEpisode(e, scenario), scenario);
  if (!verdicts.every((v) => v.ok)) return null;
  const chat = episodeToChat(e, scenario);
  chat.metadata.validators = verdicts.map((v) => ({ validator: v.validator, ok: v.ok, reason: v.reason }));
  return chat;
}

/** One episode as a chat example: customer turns are `user`, the DA is `assistant`. */
export function episodeToChat(e: EpisodeRecord, scenario?: Scenario): ChatExample {
  const phone = e.turns.find((t) => t.tool === 'lookup_account' && typeof t.toolArgs?.phone === 'string')?.toolArgs?.phone as string | undefined;
  const messages: ChatMessage[] = [{ role: 'system', content: phone ? `${SYSTEM_PROMPT}\nCaller ID: ${phone}` : SYSTEM_PROMPT }];
  const thinking: (string | null)[] = [];
  for (const t of e.turns) {
    if (t.role === 'customer') {
      messages.push({ role: 'user', content: t.text });
      continue;
    }
    const parsed = parseDaOutput(t.text);
    thinking.push(parsed.ok ? parsed.action.thinking : null);
    if (t.actionType === 'tool_call' && t.tool) {
      const callId = `call_${e.index}_${t.index}`;
      messages.push({
        role: 'assistant',
        content: null,
        tool_calls: [{ id: callId, type: 'function', function: { name: t.tool, arguments: JSON.stringify(t.toolArgs ?? {}) } }],
      });
      messages.push({ role: 'tool', tool_call_id: callId, content: JSON.stringify(t.toolResult ?? null) });
    } else {
      // speak / end_call carry the words said; an unparseable output is kept as it was produced.
      messages.push({ role: 'assistant', content: parsed.ok ? parsed.action.content : t.text });
    }
  }
  return {
    messages,
    tools: CHAT_TOOLS,
    metadata: {
      episodeId: e.id,
      matchId: e.matchId,
      scenarioId: e.scenarioId,
      intent: e.intent,
      expectedTool: e.expectedTool,
      routedTool: e.routedTool,
      winner: e.winner,
      endReason: e.endReason,
      rDa: e.rDa,
      rCa: e.rCa,
      judgeScore: e.judge.score,
      judgeResolved: e.judge.resolved,
      thinking,
      ...(scenario
        ? {
            scenario: {
              complexity: complexityOf(scenario),
              ...(scenario.task ? { task: scenario.task } : {}),
              ...(scenario.persona ? { persona: scenario.persona } : {}),
              ...(scenario.impossible ? { impossible: scenario.impossible } : {}),
              adversities: e.adversities ?? [],
            },
          }
        : {}),
    },
  };
}

export const CSV_COLUMNS = [
  'episode_id',
  'match_id',
  'index',
  'scenario_id',
  'fraud_reference',
  'seed',
  'intent',
  'expected_tool',
  'routed_tool',
  'winner',
  'end_reason',
  'r_da',
  'r_ca',
  ...DA_TERMS.map((t) => `da_${t}`),
  ...CA_TERMS.map((t) => `ca_${t}`),
  'judge_score',
  'judge_resolved',
  'judge_tier',
  'judge_hallucination',
  'judge_rationale',
] as const;

/** One CSV row (no line ending), RFC 4180 quoting. */
export function episodeCsvRow(e: EpisodeSummary): string {
  const cells: (string | number | boolean | null)[] = [
    e.id,
    e.matchId,
    e.index,
    e.scenarioId,
    e.fraudReference,
    e.seed,
    e.intent,
    e.expectedTool,
    e.routedTool,
    e.winner,
    e.endReason,
    e.rDa,
    e.rCa,
    ...DA_TERMS.map((t) => e.daTerms[t]),
    ...CA_TERMS.map((t) => e.caTerms[t]),
    e.judge.score,
    e.judge.resolved,
    e.judge.tier,
    e.judge.hallucination,
    e.judge.rationale,
  ];
  return cells.map(csvCell).join(',');
}

export function csvCell(v: string | number | boolean | null): string {
  if (v === null) return '';
  const s = String(v);
  return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}
