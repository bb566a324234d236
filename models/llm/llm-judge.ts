/**
 * A judge played by an LLM (RL-ADA §3.1: NeutralJudge, a fixed 7B scorer): the finished
 * conversation goes in as one user message, numbered by turn index, with the tool each call made
 * and its result; the reply must be one JSON object (J, resolution, tier, hallucination, the
 * claims, a rationale), asked for with a JSON schema and parsed strictly. A reply that does not
 * parse, or parses into an impossible verdict, is an infrastructure failure
 * (`ChatBackendError`, kind `bad_response`): the match fails as one transaction, as it does when
 * an LLM DA's endpoint fails; a verdict is never guessed or repaired.
 */
import { z } from 'zod';
import type { TurnContext } from '../../core/agents/policy';
import type { Judge } from '../../core/judge/port';
import type { JudgeVerdict } from '../../core/judge/types';
import type { Transcript } from '../../core/world/transcript';
import { ChatBackendError } from './chat-backend';
import type { CallLedger, ChatBackend, ChatRequest } from './chat-backend';
import { completeThrough } from './ledger';
import { promptText } from './prompts';

export const JUDGE_PROMPT_VERSION = 'judge-system.v1';

/** The reply's JSON schema, sent as `response_format` (grammar-constrained where the server can). */
export const JUDGE_REPLY_SCHEMA: Record<string, unknown> = {
  type: 'object',
  additionalProperties: false,
  required: ['rationale', 'resolved', 'tier', 'hallucination', 'hallucinations', 'score'],
  properties: {
    rationale: { type: 'string' },
    resolved: { type: 'boolean' },
    tier: { type: 'integer', enum: [1, 2, 3, 4] },
    hallucination: { type: 'boolean' },
    hallucinations: {
      type: 'array',
      items: { type: 'object', additionalProperties: false, required: ['turn', 'claim'], properties: { turn: { type: 'integer' }, claim: { type: 'string' } } },
    },
    score: { type: 'number', minimum: -2, maximum: 2 },
  },
};

const replySchema = z
  .strictObject({
    rationale: z.string().min(1),
    resolved: z.boolean(),
    tier: z.union([z.literal(1), z.literal(2), z.literal(3), z.literal(4)]),
    hallucination: z.boolean(),
    hallucinations: z.array(z.strictObject({ turn: z.number().int().min(0), claim: z.string().min(1) })),
    score: z.number().min(-2).max(2),
  })
  .superRefine((r, ctx) => {
    if (r.hallucination !== r.hallucinations.length > 0)
      ctx.addIssue({
        code: 'custom',
        path: ['hallucinations'],
        message: `hallucination is ${r.hallucination} but ${r.hallucinations.length} claims are listed`,
      });
    if (r.hallucination && r.tier !== 1) ctx.addIssue({ code: 'custom', path: ['tier'], message: 'a hallucination is tier 1' });
  });

/** The conversation as the judge reads it: one line per turn, `[index] role: …`. */
export function renderTranscript(t: Transcript): string {
  const lines = [
    `Customer's actual need: ${t.expectedTool} (${t.intent.replaceAll('_', ' ')}). The conversation ended by ${t.endReason === 'end_call' ? 'the agent ending the call' : 'reaching the turn limit'}.`,
    '',
  ];
  t.turns.forEach((turn, i) => {
    if (turn.role === 'customer') lines.push(`[${i}] customer: ${turn.text}`);
    else if (turn.action === null) lines.push(`[${i}] agent (unparseable output): ${turn.raw}`);
    else if (turn.action.action_type === 'tool_call') {
      lines.push(`[${i}] agent calls ${turn.action.content.trim()} ${JSON.stringify(turn.action.tool_args)}`);
      if (turn.toolResult) lines.push(`    result: ${JSON.stringify(turn.toolResult.ok ? turn.toolResult.data : { error: turn.toolResult.error })}`);
    } else lines.push(`[${i}] agent (${turn.action.action_type}): ${turn.action.content}`);
  });
  return lines.join('\n');
}

/** Parse a judge reply strictly; the problem, naming the field, otherwise. */
export function parseJudgeReply(text: string, turns: number): { ok: true; verdict: JudgeVerdict } | { ok: false; error: string } {
  let value: unknown;
  try {
    value = JSON.parse(text.trim());
  } catch (e) {
    return { ok: false, error: `not JSON (${(e as Error).message})` };
  }
  const r = replySchema.safeParse(value);
  if (!r.success) {
    const i = r.error.issues[0]!;
    return { ok: false, error: `field ${i.path.join('.') || '(root)'}: ${i.message}` };
  }
  const bad = r.data.hallucinations.find((h) => h.turn >= turns);
  if (bad) return { ok: false, error: `field hallucinations: turn ${bad.turn} is past the last turn (${turns - 1})` };
  const { rationale, resolved, tier, hallucination, hallucinations, score } = r.data;
  return { ok: true, verdict: { score, resolved, tier, hallucination, hallucinations, rationale } };
}

export interface LlmJudgeOptions {
  name?: string;
  ledger?: CallLedger | null;
  maxTokens?: number;
}

export class LlmJudge implements Judge {
  readonly name: string;
  private readonly ledger: CallLedger | null;
  private readonly maxTokens: number;

  constructor(
    readonly backend: ChatBackend,
    opts: LlmJudgeOptions = {},
  ) {
    this.name = opts.name ?? backend.id;
    this.ledger = opts.ledger ?? null;
    this.maxTokens = opts.maxTokens ?? 512;
  }

  /** Greedy and seeded: a fixed scorer gives the same transcript the same verdict (and a re-run hits the cache). */
  request(t: Transcript): ChatRequest {
    return {
      messages: [
        { role: 'system', content: promptText(JUDGE_PROMPT_VERSION).trimEnd() },
        { role: 'user', content: renderTranscript(t) },
      ],
      temperature: 0,
      max_tokens: this.maxTokens,
      seed: 0,
      responseSchema: JUDGE_REPLY_SCHEMA,
    };
  }

  /** `ctx`: the stored episode judged, which the call record links to (role `judge`); absent for a gym rollout or a labelled set. */
  async judge(t: Transcript, ctx?: TurnContext): Promise<JudgeVerdict> {
    const site = { episodeId: ctx?.episodeId ?? null, turn: ctx?.turn ?? null, role: 'judge' as const };
    const reply = await completeThrough(this.backend, this.ledger, this.request(t), site);
    const parsed = parseJudgeReply(reply.text, t.turns.length);
    if (!parsed.ok) throw new ChatBackendError(this.backend.id, 'bad_response', `judge reply (${JUDGE_PROMPT_VERSION}): ${parsed.error}`, 1);
    return parsed.verdict;
  }
}
