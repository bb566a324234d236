/**
 * Argument schemas of every request in the contract, checked at the engine's boundary before a
 * handler runs. The map is typed by request name, so a request without a schema (or a schema
 * whose output drifts from the contract's argument type) does not compile.
 */
import { z } from 'zod';
import type { ArgsOf, RequestName, ScenarioDraft } from '../../core/contract/contract';
import { VALIDATORS } from '../../core/validators/validators';

/** Largest page `episodes/list` serves; a client pages instead of asking for everything. */
export const MAX_EPISODE_PAGE = 500;

/** Requests that take no arguments accept nothing, null or `{}` (what JSON makes of "no args"). */
const none = z.union([z.undefined(), z.null(), z.strictObject({})]).transform(() => undefined);
const id = z.string().trim().min(1, 'must not be empty').max(200);
/** A bank slice of a run that a CA speaks: its train slice or its validation slice (an arena-only estimate's, `matches/play`'s). */
const bankSlice = z.enum(['train', 'validation']);
const seed = z
  .number()
  .int('must be an integer')
  .min(-(2 ** 31))
  .max(2 ** 31 - 1);

type Schemas = { [N in RequestName]: z.ZodType<ArgsOf<N>, unknown> };

const pos = z.number().int('must be an integer').min(0);
const tacticLabel = z.string().trim().min(1, 'must not be empty').max(60);
const auditValue = z.strictObject({
  resolved: z.boolean(),
  tier: z.union([z.literal(1), z.literal(2), z.literal(3), z.literal(4)], { error: 'expected a tier: 1, 2, 3 or 4' }),
  hallucination: z.boolean(),
});
const LABEL_SCHEMAS = {
  'labels/create-queue': z.strictObject({
    kind: z.enum(['tactic', 'audit']),
    matchIds: z.array(id).min(1).max(1000).optional(),
    perMatch: z.number().int('must be an integer').min(1).max(10_000).optional(),
    seed: seed.optional(),
    labels: z
      .array(tacticLabel)
      .min(2, 'needs at least two labels')
      .max(9, 'at most nine labels (hotkeys 1–9)')
      .refine((l) => new Set(l).size === l.length, 'labels must be distinct')
      .optional(),
  }),
  'labels/add-annotator': z.strictObject({ name: z.string().max(200) }),
  'labels/put': z.strictObject({
    queueId: id,
    pos,
    annotator: id,
    value: z.union([tacticLabel, auditValue, z.null()], {
      error: 'expected a tactic label (text), an audit verdict {resolved, tier: 1–4, hallucination} or null (skipped)',
    }),
    note: z.string().max(2000, 'at most 2000 characters').optional(),
    msSpent: z.number().min(0).max(86_400_000, 'at most a day'),
    baseRevision: z.number().int('must be an integer').min(0).optional(),
  }),
  'labels/undo': z.strictObject({ queueId: id, annotator: id }),
  'labels/export': z.strictObject({ queueId: id.optional(), format: z.enum(['json', 'csv']) }),
  'labels/queues': none,
  'labels/annotators': none,
  'labels/item': z.strictObject({ queueId: id, annotator: id, pos: pos.optional() }),
  'labels/tactic-report': z.strictObject({ queueId: id }),
  'labels/audit-report': z.strictObject({ queueId: id, judge: z.string().min(1).max(200).optional() }),
} satisfies { [N in Extract<RequestName, `labels/${string}`>]: z.ZodType<ArgsOf<N>, unknown> };
// Human play: shapes only; the play session checks message content (empty, too long) and tool
// arguments (the tool's schema) and names the field.
const seat = z.enum(['customer', 'agent']);
const player = z.string().trim().min(1, 'must not be empty').max(60, 'at most 60 characters');
const text = z.string().max(100_000);
const thinking = text.optional();
const PLAY_SCHEMAS = {
  'play/start': z.strictObject({ seat, player, opponent: id, scenarioId: id.optional(), seed: seed.optional() }),
  'play/fork': z.strictObject({ episodeId: id, turn: z.number().int('must be an integer').min(0), seat, player, opponent: id.optional() }),
  'play/act': z.strictObject({
    sessionId: id,
    action: z.discriminatedUnion('kind', [
      z.strictObject({ kind: z.literal('say'), text }),
      z.strictObject({ kind: z.literal('speak'), text, thinking }),
      z.strictObject({ kind: z.literal('tool_call'), tool: z.string().max(100), args: z.record(z.string(), z.unknown()), thinking }),
      z.strictObject({ kind: z.literal('end_call'), text: text.optional(), thinking }),
    ]),
  }),
  'play/resume': z.strictObject({ sessionId: id }),
  'play/discard': z.strictObject({ sessionId: id }),
  'play/setup': none,
  'play/sessions': none,
  'play/episodes': none,
} satisfies Partial<Schemas>;

export const ARG_SCHEMAS: Schemas = {
  'runs/start': z.strictObject({
    preset: id,
    configJson: z.string().max(1_000_000).optional(),
    seed: seed.optional(),
    arenaOnly: z.boolean().optional(),
  }),
  'runs/pause': z.strictObject({ runId: id }),
  'runs/resume': z.strictObject({ runId: id }),
  'runs/stop': z.strictObject({ runId: id }),
  'runs/note': z.strictObject({ runId: id, note: z.string().max(2_000, 'at most 2000 characters') }),
  'studies/start': z.strictObject({
    preset: id,
    seeds: z.number().int('must be an integer').min(1).max(1000),
    // Shipped arms; none when custom arms are given (parseArms refuses a study of no arm at all).
    arms: z.array(id).max(20),
    workers: z.number().int('must be an integer').min(1).max(64).optional(),
    customArms: z
      .array(z.strictObject({ name: z.string().min(1).max(40), overlay: z.string().max(100_000) }))
      .max(20)
      .optional(),
    estimate: bankSlice.optional(),
    arenaOnly: z.boolean().optional(),
  }),
  'studies/resume': z.strictObject({ studyId: id, estimate: bankSlice.optional() }),
  'studies/estimate': z.strictObject({ studyId: id, speak: bankSlice, scenarios: z.enum(['arena', 'other-intents']).optional() }),
  'knobs/set': z.strictObject({
    runId: id,
    knob: id,
    value: z.number(),
    reason: z.string().trim().min(1, 'a write needs a reason').max(500),
    by: z.string().max(100).optional(),
  }),
  'knobs/revert': z.strictObject({ runId: id, writeId: pos, reason: z.string().max(500).optional(), by: z.string().max(100).optional() }),
  'knobs/accept': z.strictObject({ runId: id, proposalId: pos, value: z.number().optional() }),
  'knobs/dismiss': z.strictObject({ runId: id, proposalId: pos }),
  'knobs/console': z.strictObject({ runId: id }),
  'knobs/history': z.strictObject({ knob: id }),
  'studies/list': none,
  'labs/merge': z.strictObject({ file: z.string().trim().min(1, 'must not be empty').max(4096), dryRun: z.boolean().optional() }),
  'studies/get': z.strictObject({ studyId: id, heldout: z.boolean().optional() }),
  'studies/arms': none,
  'matches/play': z
    .strictObject({
      da: id,
      ca: id,
      episodesPerScenario: z.number().int('must be an integer').min(1).max(1000),
      scenarios: z.enum(['arena', 'heldout', 'fraud', 'all', 'robustness']),
      seed,
      run: id.optional(),
      speak: bankSlice.optional(),
    })
    .refine((a) => a.speak === undefined || a.run !== undefined, { message: "needs run (the slices are a run's)", path: ['speak'] }),
  'export/episodes': z.strictObject({ matchId: id.optional(), format: z.enum(['jsonl', 'csv']) }),
  'results/tables': z.strictObject({ id, arenaOnly: z.boolean().optional() }),
  'export/table': z.strictObject({ id, table: id, format: z.enum(['csv', 'json']), arenaOnly: z.boolean().optional() }),

  'engine/info': none,
  'presets/list': none,
  'runs/list': none,
  'runs/get': z.strictObject({ runId: id }),
  'matches/list': z.union([z.undefined(), z.null(), z.strictObject({ runId: id.optional() })]).transform((a) => a ?? {}),
  'episodes/list': z.strictObject({
    matchId: id.optional(),
    scenarioId: id.optional(),
    winner: z.enum(['DA', 'CA']).optional(),
    offset: z.number().int('must be an integer').min(0).optional(),
    limit: z.number().int('must be an integer').min(1).max(MAX_EPISODE_PAGE).optional(),
    resolved: z.boolean().optional(),
    hallucination: z.boolean().optional(),
    validatorFailed: z.enum(['any', ...VALIDATORS]).optional(),
  }),
  'episodes/get': z.strictObject({ id }),
  'checkpoints/list': none,
  'metrics/series': z.strictObject({ runId: id, keys: z.array(z.string().min(1).max(100)).max(64) }),
  ...LABEL_SCHEMAS,
  ...PLAY_SCHEMAS,
  'evaluation/crossplay': z.strictObject({
    das: z.array(id).min(1, 'name at least one DA').max(12),
    cas: z.array(id).min(1, 'name at least one CA').max(12),
    episodesPerScenario: z.number().int('must be an integer').min(1).max(50),
    seed,
  }),
  'episodes/diff': z.strictObject({ role: z.enum(['DA', 'CA']), a: id, b: id, opponent: id, scenarioId: id, seed }),
  'episodes/validate': z.strictObject({ id }),
  'scenarios/list': none,
  'matches/bestResponse': z.strictObject({ matchId: id }),
  'runs/caPolicy': z.strictObject({ runId: id }),
  'studies/caPolicy': z.strictObject({ studyId: id, arm: id.optional() }),
  'eval/mads': z.strictObject({ da: id, ca: id, episodesPerScenario: z.number().int('must be an integer').min(1).max(100), seed }),
  // The scenario itself is checked by the scenario schema in the handler, which answers with every problem by field.
  'scenarios/save': z.strictObject({
    scenario: z.custom<ScenarioDraft>((v) => typeof v === 'object' && v !== null && !Array.isArray(v), 'expected a scenario object'),
    replaces: id.optional(),
  }),
  'scenarios/remove': z.strictObject({ id }),
  // Each field's rules (name, URL, variable name, range) are checkEndpointConfig's, which names the field.
  'models/add': z.strictObject({
    name: id,
    baseUrl: id,
    model: id,
    apiKeyEnv: z
      .string()
      .trim()
      .max(200)
      .optional()
      .transform((v) => (v === '' ? undefined : v)),
    toolCalls: z.enum(['native', 'text']),
    maxConcurrency: z.number().int('must be an integer').min(1).max(1024),
  }),
  // The settings' rules are checkGgufConfig's, which names the field; the file is read when it is saved.
  'models/add-gguf': z.strictObject({
    name: id,
    file: id,
    gpu: z.enum(['auto', 'cpu', 'cuda', 'vulkan', 'metal']).optional(),
    contextSize: z.number().int('must be an integer').optional(),
    threads: z.number().int('must be an integer').optional(),
    sequences: z.number().int('must be an integer').optional(),
  }),
  'models/remove': z.strictObject({ name: id }),
  'models/test': z.strictObject({ name: id }),
  'models/list': none,
  'corpora/list': none,
  'models/server-models': z.strictObject({ name: id }),
  'scenarios/get': z.strictObject({ id }),
  'scenarios/vocabulary': none,
  'scenarios/check': z.strictObject({
    scenario: z.custom<ScenarioDraft>((v) => typeof v === 'object' && v !== null && !Array.isArray(v), 'expected a scenario object'),
    replaces: id.optional(),
  }),
};

/** A request whose arguments failed validation; the message names the request and the field. */
export class ArgsError extends Error {
  override name = 'ArgsError';
}

/** Check `args` of request `name`, returning the parsed value or throwing an ArgsError. */
export function parseArgs<N extends RequestName>(name: N, args: unknown): ArgsOf<N> {
  const schema = ARG_SCHEMAS[name] as z.ZodType<ArgsOf<N>, unknown>;
  const r = schema.safeParse(args);
  if (r.success) return r.data;
  throw new ArgsError(`${name}: ${r.error.issues.map(describeIssue).join('; ')}`);
}

function describeIssue(issue: z.core.$ZodIssue): string {
  const field = issue.path.map(String).join('.');
  if (issue.code === 'unrecognized_keys') {
    const keys = issue.keys.map((k) => `"${field ? `${field}.` : ''}${k}"`).join(', ');
    return `unknown field${issue.keys.length > 1 ? 's' : ''} ${keys}`;
  }
  return field ? `field "${field}": ${issue.message}` : `arguments: ${issue.message}`;
}
