/**
 * Judge reliability (RL-ADA §3.1, Table 1): the builtin judge against conversations labelled by
 * people. The labelled set is a JSON file:
 *
 * ```json
 * {"version": 1, "conversations": [
 *   {"id": "…", "note": "…", "transcript": {…}, "labels": {"resolved": true, "tier": 4, "hallucination": false}}
 * ]}
 * ```
 *
 * with each transcript as `core/world/transcript.ts` records it (an impossible request carries its
 * `impossible` block, `{"fallback_behavior": "explain", "reason": "…"}`, so a correct refusal can be
 * labelled resolved). Labels may list the agent's claims one by one, `"claims": [{"turn": 3,
 * "kind": "amount", "claim": "$89.00", "hallucination": false}, …]`: every false claim of the
 * conversation, and true ones worth checking; `judge-eval` then says per kind of claim which were
 * caught, missed or wrongly flagged. Validation errors name the conversation (index and id), the
 * field and what was expected.
 */
import { z } from 'zod';
import { ACTION_TYPES, parseDaOutput } from '../wire';
import { DOMAIN_TOOLS, FALLBACK_BEHAVIORS } from '../domain/types';
import type { Transcript } from '../world/transcript';
import { CLAIM_KINDS } from './config';
import { findHallucinations } from './claims';
import { judgeEpisode } from './judge';
import type { JudgeOptions } from './judge';
import type { JudgeVerdict } from './types';
import type { Judge } from './port';
import { binaryF1, confusionSummary, spearman } from './metrics';
import type { BinaryConfusion, BinaryScores, ConfusionSummary } from './metrics';

// -------------------------------------------------------------------------------------------
// Schema.

const TOOL_ERROR_CODES = [
  'UNKNOWN_TOOL',
  'INVALID_ARGUMENTS',
  'NOT_VERIFIED',
  'NOT_FOUND',
  'AMBIGUOUS',
  'INSUFFICIENT_FUNDS',
  'NOT_ALLOWED',
  'BACKEND_ERROR',
  'TIMEOUT',
  'POLICY',
] as const;

const daActionSchema = z.strictObject({
  thinking: z.string(),
  action_type: z.enum(ACTION_TYPES),
  content: z.string(),
  tool_args: z.record(z.string(), z.unknown()),
});

/**
 * Kinds a person may give a labelled claim: the claim checks' own kinds, and kinds no check covers
 * yet, so that a miss of such a claim is counted under its name rather than lost.
 */
export const LABEL_CLAIM_KINDS = [...CLAIM_KINDS, 'other'] as const;
export type LabelClaimKind = (typeof LABEL_CLAIM_KINDS)[number];

/** One claim the agent made, labelled true or false by a person. */
export const claimLabelSchema = z.strictObject({
  /** Index of the agent's turn in `transcript.turns`. */
  turn: z.number().int().min(0),
  kind: z.enum(LABEL_CLAIM_KINDS),
  /** The words of the claim, as the agent said them (found in that turn's text). */
  claim: z.string().min(1),
  /** True when nothing the agent had (tool results, the customer's words) supports it. */
  hallucination: z.boolean(),
  note: z.string().optional(),
});
export type ClaimLabel = z.infer<typeof claimLabelSchema>;

export const judgeLabelsSchema = z.strictObject({
  resolved: z.boolean(),
  tier: z.union([z.literal(1), z.literal(2), z.literal(3), z.literal(4)], { error: 'expected a tier: 1, 2, 3 or 4' }),
  hallucination: z.boolean(),
  /** The fabricated claim, quoted, where `hallucination` is true (for people; not scored). */
  claim: z.string().min(1).optional(),
  /** The conversation's claims one by one: every false one, and true ones worth checking. */
  claims: z.array(claimLabelSchema).optional(),
});

/** Lower-case, single-spaced: how a claim's words are found in a turn and matched to a judge's flag. */
const norm = (s: string) => s.toLowerCase().replace(/[’‘]/g, "'").replace(/\s+/g, ' ').trim();

/**
 * The vocabulary a labelled set's transcripts are checked against: the goal tools an `expectedTool`
 * may name and the error codes a tool result may carry. Banking's by default; a domain pack's for
 * its own sets (`judge-eval --domain`).
 */
export interface SetVocabulary {
  goalTools: readonly [string, ...string[]];
  errorCodes: readonly [string, ...string[]];
}

export const BANKING_VOCABULARY: SetVocabulary = { goalTools: DOMAIN_TOOLS, errorCodes: TOOL_ERROR_CODES };

/** The schemas of a labelled set for one vocabulary. */
export function judgeSetSchemas(vocabulary: SetVocabulary) {
  const toolResultSchema = z.discriminatedUnion('ok', [
    z.strictObject({ ok: z.literal(true), tool: z.string().min(1), data: z.record(z.string(), z.unknown()) }),
    z.strictObject({
      ok: z.literal(false),
      tool: z.string(),
      error: z.strictObject({ code: z.enum(vocabulary.errorCodes), message: z.string() }),
    }),
  ]);

  const customerTurnSchema = z.strictObject({ role: z.literal('customer'), text: z.string() });

  const agentTurnSchema = z
    .strictObject({
      role: z.literal('agent'),
      raw: z.string(),
      action: daActionSchema.nullable(),
      parseError: z.string().min(1).optional(),
      toolResult: toolResultSchema.optional(),
    })
    .superRefine((t, ctx) => {
      if (t.action === null) {
        if (t.parseError === undefined)
          ctx.addIssue({ code: 'custom', path: ['parseError'], message: 'an unparseable output (action: null) needs its parseError' });
        if (t.toolResult !== undefined) ctx.addIssue({ code: 'custom', path: ['toolResult'], message: 'an unparseable output cannot have a tool result' });
        const parsed = parseDaOutput(t.raw);
        if (parsed.ok) ctx.addIssue({ code: 'custom', path: ['action'], message: 'raw parses as a valid action, but action is null' });
        return;
      }
      if (t.parseError !== undefined) ctx.addIssue({ code: 'custom', path: ['parseError'], message: 'a parsed action cannot have a parseError' });
      const parsed = parseDaOutput(t.raw);
      if (!parsed.ok) ctx.addIssue({ code: 'custom', path: ['raw'], message: `raw does not parse (${parsed.error}), but an action is recorded` });
      else if (JSON.stringify(parsed.action) !== JSON.stringify(t.action)) {
        ctx.addIssue({ code: 'custom', path: ['action'], message: 'the recorded action differs from what raw parses to' });
      }
      if (t.action.action_type === 'tool_call') {
        if (t.toolResult === undefined) ctx.addIssue({ code: 'custom', path: ['toolResult'], message: 'a tool_call needs its toolResult' });
        else if (t.toolResult.tool !== t.action.content.trim()) {
          ctx.addIssue({ code: 'custom', path: ['toolResult', 'tool'], message: `expected "${t.action.content.trim()}", the tool the action called` });
        }
      } else if (t.toolResult !== undefined) {
        ctx.addIssue({ code: 'custom', path: ['toolResult'], message: `a ${t.action.action_type} action cannot have a tool result` });
      }
    });

  const turnSchema = z.discriminatedUnion('role', [customerTurnSchema, agentTurnSchema]);

  /** A transcript as core/world/transcript.ts defines it, with its turns cross-checked. */
  const transcriptSchema = z
    .strictObject({
      scenarioId: z.string().min(1),
      expectedTool: z.enum(vocabulary.goalTools),
      intent: z.string().min(1),
      turns: z.array(turnSchema).min(1, 'expected at least one turn'),
      endReason: z.enum(['end_call', 'turn_limit']),
      /** The scenario's goal is unattainable (MADS): what the agent should do instead. */
      impossible: z.strictObject({ fallback_behavior: z.enum(FALLBACK_BEHAVIORS), reason: z.string().min(1) }).optional(),
    })
    .superRefine((t, ctx) => {
      const endAt = t.turns.findIndex((x) => x.role === 'agent' && x.action?.action_type === 'end_call');
      if (endAt >= 0 && endAt !== t.turns.length - 1) {
        ctx.addIssue({ code: 'custom', path: ['turns', endAt + 1], message: 'no turn may follow an end_call' });
      }
      if (t.endReason === 'end_call' && endAt < 0) {
        ctx.addIssue({ code: 'custom', path: ['endReason'], message: 'endReason is "end_call" but no agent turn ends the call' });
      }
      if (t.endReason === 'turn_limit' && endAt >= 0) {
        ctx.addIssue({ code: 'custom', path: ['endReason'], message: 'endReason is "turn_limit" but the agent ended the call' });
      }
    });

  const labelledConversationSchema = z
    .strictObject({
      id: z.string().min(1),
      note: z.string(),
      transcript: transcriptSchema,
      labels: judgeLabelsSchema,
    })
    .superRefine((c, ctx) => {
      const claims = c.labels.claims;
      if (!claims) return;
      claims.forEach((l, i) => {
        const turn = c.transcript.turns[l.turn];
        const said = turn?.role === 'agent' && turn.action && turn.action.action_type !== 'tool_call' ? turn.action.content : null;
        if (said === null) {
          ctx.addIssue({
            code: 'custom',
            path: ['labels', 'claims', i, 'turn'],
            message: `expected the index of an agent turn that speaks or ends the call (turn ${l.turn} is not)`,
          });
        } else if (!norm(said).includes(norm(l.claim))) {
          ctx.addIssue({
            code: 'custom',
            path: ['labels', 'claims', i, 'claim'],
            message: `expected words of turn ${l.turn}, which does not say "${l.claim}"`,
          });
        }
      });
      const anyFalse = claims.some((l) => l.hallucination);
      if (anyFalse !== c.labels.hallucination) {
        ctx.addIssue({
          code: 'custom',
          path: ['labels', 'hallucination'],
          message: anyFalse
            ? `expected true: claims[${claims.findIndex((l) => l.hallucination)}] is labelled a hallucination`
            : 'expected false, or the false claim listed in claims (claims lists every false claim of the conversation)',
        });
      }
    });

  const judgeSetSchema = z
    .strictObject({
      version: z.literal(1),
      /** How and when the set was written (for people; not scored). */
      about: z.string().optional(),
      conversations: z.array(labelledConversationSchema).min(1, 'expected at least one conversation'),
    })
    .superRefine((s, ctx) => {
      const seen = new Map<string, number>();
      s.conversations.forEach((c, i) => {
        const prev = seen.get(c.id);
        if (prev !== undefined) ctx.addIssue({ code: 'custom', path: ['conversations', i, 'id'], message: `duplicate id (also conversations[${prev}])` });
        else seen.set(c.id, i);
      });
    });

  return { transcriptSchema, labelledConversationSchema, judgeSetSchema };
}

const BANKING_SCHEMAS = judgeSetSchemas(BANKING_VOCABULARY);
/** A banking transcript, checked (see judgeSetSchemas for another vocabulary). */
export const transcriptSchema = BANKING_SCHEMAS.transcriptSchema;
export const labelledConversationSchema = BANKING_SCHEMAS.labelledConversationSchema;
export const judgeSetSchema = BANKING_SCHEMAS.judgeSetSchema;

export type JudgeLabels = z.infer<typeof judgeLabelsSchema>;
export interface LabelledConversation {
  id: string;
  note: string;
  transcript: Transcript;
  labels: JudgeLabels;
}
export interface JudgeSet {
  version: 1;
  about?: string;
  conversations: LabelledConversation[];
}

/** One problem in a labelled set: which conversation, which field, what was expected. */
export interface JudgeSetIssue {
  /** Index into `conversations`, when the problem is inside one. */
  index: number | null;
  /** That conversation's id, when it has a readable one. */
  id: string | null;
  /** Path of the field inside the conversation (or inside the file, when index is null). */
  field: string;
  problem: string;
}

export class JudgeSetError extends Error {
  constructor(
    readonly file: string,
    readonly issues: JudgeSetIssue[],
  ) {
    const shown = issues.slice(0, 5).map(formatIssue);
    const more = issues.length > 5 ? `\n  … and ${issues.length - 5} more` : '';
    super(`${file}: ${issues.length === 1 ? shown[0] : `${issues.length} problems:\n  ${shown.join('\n  ')}${more}`}`);
    this.name = 'JudgeSetError';
  }
}

function formatIssue(i: JudgeSetIssue): string {
  const where = i.index === null ? '' : `conversations[${i.index}]${i.id !== null ? ` (id "${i.id}")` : ''}`;
  const field = i.field ? (where ? `, field ${i.field}` : `field ${i.field}`) : '';
  return `${where}${field}${where || field ? ': ' : ''}${i.problem}`;
}

function pathOf(path: readonly PropertyKey[]): string {
  return path
    .map((p) => (typeof p === 'number' ? `[${p}]` : `.${String(p)}`))
    .join('')
    .replace(/^\./, '');
}

/** Validate an already-parsed value as a labelled set. */
export function validateJudgeSet(value: unknown, file = 'labelled set', vocabulary?: SetVocabulary): JudgeSet {
  const r = (vocabulary ? judgeSetSchemas(vocabulary).judgeSetSchema : judgeSetSchema).safeParse(value);
  // A pack's goal tools are strings beyond banking's DomainTool; the judge reads them as names.
  if (r.success) return r.data as JudgeSet;
  const convs = (value as { conversations?: unknown })?.conversations;
  const issues = r.error.issues.map((issue): JudgeSetIssue => {
    const p = issue.path;
    if (p[0] === 'conversations' && typeof p[1] === 'number') {
      const raw = Array.isArray(convs) ? (convs[p[1]] as { id?: unknown } | undefined) : undefined;
      const id = typeof raw?.id === 'string' ? raw.id : null;
      return { index: p[1], id, field: pathOf(p.slice(2)), problem: issue.message };
    }
    return { index: null, id: null, field: pathOf(p), problem: issue.message };
  });
  throw new JudgeSetError(file, issues);
}

/** Parse the text of a labelled-set file (core does no I/O: a host reads the file). */
export function parseJudgeSet(text: string, file = 'labelled set', vocabulary?: SetVocabulary): JudgeSet {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    throw new JudgeSetError(file, [{ index: null, id: null, field: '', problem: `not valid JSON (${(e as Error).message})` }]);
  }
  return validateJudgeSet(value, file, vocabulary);
}

// -------------------------------------------------------------------------------------------
// Evaluation.

export type LabelField = 'resolved' | 'tier' | 'hallucination';

export interface Disagreement {
  id: string;
  field: LabelField;
  label: boolean | number;
  judged: boolean | number;
  /** The judge's rationale, to see why. */
  rationale: string;
}

/**
 * One kind of claim across a set: false claims the judge caught or missed, true ones it flagged.
 * `unspecified` counts conversations labelled hallucinated without their claims listed;
 * `unclassified`, a judge's flag that neither matches a labelled claim nor a claim check's finding.
 */
export interface ClaimKindConfusion {
  kind: LabelClaimKind | 'unspecified' | 'unclassified';
  /** False claims labelled of this kind. */
  labelledFalse: number;
  caught: number;
  missed: number;
  /** True claims labelled of this kind. */
  labelledTrue: number;
  /** Flags of true claims: labelled true ones, and flags that match no false claim of a conversation whose claims are listed or which is labelled clean. */
  wronglyFlagged: number;
}

export interface JudgeEvalReport {
  n: number;
  /** Per kind of claim, so that a regression names its cause (kinds with no count are left out). */
  claimKinds: ClaimKindConfusion[];
  resolution: BinaryScores & { confusion: BinaryConfusion };
  /** Spearman ρ between labelled and judged tiers (ties share average ranks); NaN when undefined. */
  tierSpearman: number;
  tierConfusion: ConfusionSummary<number>;
  hallucination: BinaryScores & { confusion: BinaryConfusion };
  disagreements: Disagreement[];
  /** The judge's verdict per conversation, in the set's order. */
  verdicts: { id: string; verdict: JudgeVerdict }[];
}

/**
 * Any judge behind the port against the set. Conversations are judged one at a time, in order (an
 * LLM judge's endpoint limits its own concurrency; a re-run is answered from the lab's cache).
 */
export async function evaluateJudgeWith(set: JudgeSet, judge: Judge): Promise<JudgeEvalReport> {
  const verdicts: { id: string; verdict: JudgeVerdict }[] = [];
  for (const c of set.conversations) verdicts.push({ id: c.id, verdict: await judge.judge(c.transcript) });
  return report(set, verdicts);
}

/** The builtin rule judge against the set (synchronous). */
export function evaluateJudge(set: JudgeSet, opts?: JudgeOptions): JudgeEvalReport {
  return report(
    set,
    set.conversations.map((c) => ({ id: c.id, verdict: judgeEpisode(c.transcript, opts) })),
    opts,
  );
}

function report(set: JudgeSet, verdicts: { id: string; verdict: JudgeVerdict }[], opts?: JudgeOptions): JudgeEvalReport {
  const compared = compareWithLabels(set.conversations.map((c, i) => ({ id: c.id, labels: c.labels, verdict: verdicts[i]!.verdict })));
  const claimKinds = claimKindConfusion(
    set.conversations.map((c, i) => ({ transcript: c.transcript, labels: c.labels, flags: verdicts[i]!.verdict.hallucinations })),
    opts,
  );
  return { ...compared, claimKinds, verdicts };
}

/**
 * Per kind of claim: which labelled false claims the judge's flags caught or missed, and which
 * true claims it flagged. A flag matches a labelled claim in the same turn when the words of one
 * contain the other's; a flag's own kind is the claim check's that found the same words in the
 * same turn (any judge: an LLM judge's flags are classified by the rule checks' findings).
 */
export function claimKindConfusion(
  items: readonly { transcript: Transcript; labels: JudgeLabels; flags: readonly { turn: number; claim: string }[] }[],
  opts?: JudgeOptions,
): ClaimKindConfusion[] {
  const rows = new Map<ClaimKindConfusion['kind'], ClaimKindConfusion>();
  const row = (kind: ClaimKindConfusion['kind']) => {
    let r = rows.get(kind);
    if (!r) rows.set(kind, (r = { kind, labelledFalse: 0, caught: 0, missed: 0, labelledTrue: 0, wronglyFlagged: 0 }));
    return r;
  };
  const matches = (a: { turn: number; claim: string }, b: { turn: number; claim: string }) => {
    if (a.turn !== b.turn) return false;
    const [x, y] = [norm(a.claim), norm(b.claim)];
    return x.includes(y) || y.includes(x);
  };
  for (const { transcript, labels, flags } of items) {
    const findings = flags.length ? findHallucinations(transcript, opts) : [];
    const kindOf = (f: { turn: number; claim: string }) => findings.find((x) => x.turn === f.turn && norm(x.claim) === norm(f.claim))?.kind ?? 'unclassified';
    const claims = labels.claims;
    if (!claims) {
      if (labels.hallucination) {
        const r = row('unspecified');
        r.labelledFalse++;
        if (flags.length) r.caught++;
        else r.missed++;
      } else for (const f of flags) row(kindOf(f)).wronglyFlagged++;
      continue;
    }
    for (const l of claims) {
      const r = row(l.kind);
      const flagged = flags.some((f) => matches(f, l));
      if (l.hallucination) {
        r.labelledFalse++;
        if (flagged) r.caught++;
        else r.missed++;
      } else {
        r.labelledTrue++;
        if (flagged) r.wronglyFlagged++;
      }
    }
    for (const f of flags) if (!claims.some((l) => matches(f, l))) row(kindOf(f)).wronglyFlagged++;
  }
  const order: ClaimKindConfusion['kind'][] = [...LABEL_CLAIM_KINDS, 'unspecified', 'unclassified'];
  return [...rows.values()].sort((a, b) => order.indexOf(a.kind) - order.indexOf(b.kind));
}

/**
 * The judge's verdicts against people's labels, item by item: Table 1's scores and every field
 * they disagree on. evaluateJudge runs the judge first; the judge audit compares verdicts stored
 * with the episodes.
 */
export function compareWithLabels(
  items: readonly { id: string; labels: JudgeLabels; verdict: JudgeVerdict }[],
): Omit<JudgeEvalReport, 'verdicts' | 'claimKinds'> {
  const labels = items.map((c) => c.labels);
  const judged = items.map((c) => c.verdict);
  const disagreements: Disagreement[] = [];
  for (const c of items) {
    for (const field of ['resolved', 'tier', 'hallucination'] as const) {
      if (c.labels[field] !== c.verdict[field])
        disagreements.push({ id: c.id, field, label: c.labels[field], judged: c.verdict[field], rationale: c.verdict.rationale });
    }
  }
  return {
    n: items.length,
    resolution: binaryF1(
      labels.map((l) => l.resolved),
      judged.map((v) => v.resolved),
    ),
    tierSpearman: spearman(
      labels.map((l) => l.tier),
      judged.map((v) => v.tier),
    ),
    tierConfusion: confusionSummary(
      labels.map((l) => l.tier as number),
      judged.map((v) => v.tier as number),
      [1, 2, 3, 4],
    ),
    hallucination: binaryF1(
      labels.map((l) => l.hallucination),
      judged.map((v) => v.hallucination),
    ),
    disagreements,
  };
}
