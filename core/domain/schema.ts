/**
 * Validation of the domain files in `assets/domains/<name>/`. Errors name the file, the field
 * path and what was expected, so a person editing the JSON by hand can find the problem.
 */
import { z } from 'zod';
import { COMPLEXITIES, DETAIL_SLOTS, DOMAIN_TOOLS, EXECUTION_ADVERSITIES, FALLBACK_BEHAVIORS, SITUATIONS, SLOT_NAMES, TOOL_NAMES } from './types';
import type { Domain, Scenario, TaxonomyEntry, UtteranceBank } from './types';
import { issueRule } from '../issue-text';

const domainTool = z.enum(DOMAIN_TOOLS);
const nonEmpty = z.string().trim().min(1, 'expected a non-empty string');

export const taxonomyFileSchema = z.strictObject({
  version: z.literal(1),
  intents: z.array(
    z.strictObject({
      intent: nonEmpty,
      tool: domainTool,
      source: z.enum(['banking77', 'synthetic']),
      core: z.boolean(),
      rationale: nonEmpty,
      reveals: z.array(nonEmpty),
    }),
  ),
});

const slotText = nonEmpty.refine((s) => [...s.matchAll(/\{([a-z_0-9]+)\}/g)].every((m) => (SLOT_NAMES as readonly string[]).includes(m[1]!)), {
  message: `unknown {slot}; known slots: ${SLOT_NAMES.join(', ')}`,
});

export const utteranceFileSchema = z.strictObject({
  version: z.literal(1),
  utterances: z.array(z.strictObject({ intent: nonEmpty, style: z.enum(['direct', 'indirect', 'vague']), text: slotText })),
  decoys: z.strictObject(
    Object.fromEntries(DOMAIN_TOOLS.map((t) => [t, z.array(slotText).min(1)])) as Record<(typeof DOMAIN_TOOLS)[number], z.ZodArray<typeof slotText>>,
  ),
  hedges: z.array(nonEmpty).min(1),
  detailReplies: z.array(slotText).min(1),
  acknowledgements: z.array(nonEmpty).min(1),
  tones: z.strictObject({
    neutral: z.array(z.string()).min(1),
    frustrated: z.array(nonEmpty).min(1),
    anxious: z.array(nonEmpty).min(1),
  }),
});

const rate = z.number().min(0).max(1).optional();
const slotValues = z.record(nonEmpty, z.union([z.string(), z.number(), z.boolean()]));

/** MADS adversities; see `AdversitySpec` for what each field means. */
export const adversitySchema = z.discriminatedUnion('kind', [
  z.strictObject({ kind: z.literal('partial_information'), slot: z.enum(DETAIL_SLOTS), rate }),
  z.strictObject({ kind: z.literal('incremental_constraints'), reveals: z.array(slotText).min(1), rate }),
  z.strictObject({
    kind: z.literal('goal_revision'),
    from: nonEmpty,
    turn: z.number().int().min(2, 'the goal can change from the second customer turn on'),
    rate,
  }),
  z.strictObject({ kind: z.literal('adversarial_tone'), rate }),
  ...EXECUTION_ADVERSITIES.map((kind) =>
    z
      .strictObject({
        kind: z.literal(kind),
        tool: z.enum(TOOL_NAMES).optional(),
        rate,
        turn: z.number().int().min(1).optional(),
        message: nonEmpty.optional(),
      })
      .refine((a) => a.rate === undefined || a.turn === undefined, { message: 'give a rate or a turn, not both', path: ['turn'] }),
  ),
]);

export const scenarioSchema = z
  .strictObject({
    id: z.string().regex(/^[a-z0-9][a-z0-9-]*$/, 'expected a kebab-case id'),
    title: nonEmpty,
    fraudReference: z.boolean(),
    ambiguity: z.enum(['clear', 'ambiguous']),
    intents: z.array(nonEmpty).min(1),
    expectedTool: domainTool,
    account: z.strictObject({
      situation: z.enum(SITUATIONS),
      merchant: nonEmpty.optional(),
      amount: z.number().positive().optional(),
      daysAgo: z.number().int().min(0).max(60).optional(),
      cardStatus: z.enum(['active', 'blocked', 'frozen', 'expired']).optional(),
    }),
    description: nonEmpty,
    complexity: z.enum(COMPLEXITIES).optional(),
    task: z
      .strictObject({ objective: nonEmpty, hardConstraints: slotValues, softPreferences: slotValues, successCriteria: z.array(nonEmpty).min(1) })
      .optional(),
    persona: z.strictObject({ name: nonEmpty, style: nonEmpty, sampleMessages: z.array(nonEmpty).min(1) }).optional(),
    adversities: z.array(adversitySchema).optional(),
    impossible: z.strictObject({ fallback_behavior: z.enum(FALLBACK_BEHAVIORS), reason: nonEmpty }).optional(),
    referenceActions: z
      .array(
        z.strictObject({
          action_type: z.enum(['speak', 'tool_call', 'end_call']),
          content: z.string(),
          tool_args: z.record(z.string(), z.unknown()).optional(),
        }),
      )
      .min(1)
      .optional(),
  })
  .refine((s) => (s.complexity === 'impossible') === (s.impossible !== undefined) || s.complexity === undefined, {
    message: "complexity 'impossible' and the impossible block go together",
    path: ['complexity'],
  });

export const scenarioFileSchema = z.strictObject({
  version: z.literal(1),
  set: z.enum(['arena', 'heldout', 'robustness']),
  scenarios: z.array(scenarioSchema).min(1),
});

/** A problem in a domain file: which file, where in it, and what was expected. */
export class DomainFileError extends Error {
  constructor(
    readonly file: string,
    readonly where: string,
    readonly problem: string,
  ) {
    super(`${file}: ${where ? `${where}: ` : ''}${problem}`);
    this.name = 'DomainFileError';
  }
}

/** A zod issue path as people write it: `adversities[0].rate`. */
export function pathOf(path: readonly PropertyKey[]): string {
  return path
    .map((p) => (typeof p === 'number' ? `[${p}]` : `.${String(p)}`))
    .join('')
    .replace(/^\./, '');
}

/** Parse JSON text and validate it, throwing DomainFileError naming the first problem. */
export function parseDomainFile<T>(file: string, text: string, schema: z.ZodType<T>): T {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    throw new DomainFileError(file, '', `not valid JSON (${(e as Error).message})`);
  }
  const r = schema.safeParse(value);
  if (!r.success) {
    const issue = r.error.issues[0]!;
    throw new DomainFileError(file, pathOf(issue.path), issueRule(issue));
  }
  return r.data;
}

/** The raw texts of a domain folder, read by a host (core does no I/O). */
export interface DomainFiles {
  name: string;
  taxonomy: { file: string; text: string };
  utterances: { file: string; text: string };
  scenarios: { file: string; text: string }[];
}

/**
 * Validate and cross-check a domain: every scenario intent and utterance intent is in the
 * taxonomy, scenario intents route to the scenario's expected tool, ids are unique.
 */
export function loadDomain(files: DomainFiles): Domain {
  const tax = parseDomainFile(files.taxonomy.file, files.taxonomy.text, taxonomyFileSchema);
  const byIntent = new Map<string, TaxonomyEntry>();
  tax.intents.forEach((e, i) => {
    if (byIntent.has(e.intent)) throw new DomainFileError(files.taxonomy.file, `intents[${i}].intent`, `duplicate intent "${e.intent}"`);
    byIntent.set(e.intent, e);
  });

  const bank: UtteranceBank = parseDomainFile(files.utterances.file, files.utterances.text, utteranceFileSchema);
  bank.utterances.forEach((u, i) => {
    if (!byIntent.has(u.intent)) {
      throw new DomainFileError(files.utterances.file, `utterances[${i}].intent`, `intent "${u.intent}" is not in the taxonomy`);
    }
  });

  const scenarios: Scenario[] = [];
  const ids = new Set<string>();
  for (const f of files.scenarios) {
    const parsed = parseDomainFile(f.file, f.text, scenarioFileSchema);
    parsed.scenarios.forEach((s, i) => {
      if (ids.has(s.id)) throw new DomainFileError(f.file, `scenarios[${i}].id`, `duplicate scenario id "${s.id}"`);
      ids.add(s.id);
      const problem = taxonomyProblems(s, byIntent)[0];
      if (problem) throw new DomainFileError(f.file, `scenarios[${i}].${problem.field}`, problem.message);
      scenarios.push({ ...s, set: parsed.set });
    });
  }
  return { name: files.name, taxonomy: tax.intents, bank, scenarios };
}

/** One problem with a scenario: the field (`adversities[0].rate`) and what was expected. */
export interface FieldProblem {
  field: string;
  message: string;
}

/** A scenario as written, before it joins a set (a custom scenario, or one entry of a scenario file). */
export type ScenarioDraft = Omit<Scenario, 'set'>;

/**
 * Scenario intents must be in the taxonomy and route to its expected tool; goal revision starts
 * from a known intent. Reads whatever of a draft is readable (the schema may have failed
 * elsewhere), so one check reports the taxonomy's problems beside the schema's.
 */
function taxonomyProblems(value: unknown, byIntent: ReadonlyMap<string, TaxonomyEntry>): FieldProblem[] {
  const out: FieldProblem[] = [];
  if (typeof value !== 'object' || value === null) return out;
  const s = value as { intents?: unknown; expectedTool?: unknown; adversities?: unknown };
  const expected = typeof s.expectedTool === 'string' ? s.expectedTool : null;
  if (Array.isArray(s.intents)) {
    s.intents.forEach((intent: unknown, j) => {
      if (typeof intent !== 'string') return;
      const entry = byIntent.get(intent);
      if (!entry) out.push({ field: `intents[${j}]`, message: `intent "${intent}" is not in the taxonomy` });
      else if (expected !== null && entry.tool !== expected) {
        out.push({ field: `intents[${j}]`, message: `intent "${intent}" routes to ${entry.tool}, but the scenario expects ${expected}` });
      }
    });
  }
  if (Array.isArray(s.adversities)) {
    s.adversities.forEach((a: unknown, j) => {
      const x = a as { kind?: unknown; from?: unknown } | null;
      if (x?.kind === 'goal_revision' && typeof x.from === 'string' && !byIntent.has(x.from))
        out.push({ field: `adversities[${j}].from`, message: `intent "${x.from}" is not in the taxonomy` });
    });
  }
  return out;
}

/**
 * Check a scenario someone wrote (the app's editor, `sparring scenarios add`) against the same
 * schema and taxonomy cross-checks as the domain files, reporting every problem by field.
 */
export function checkScenario(
  value: unknown,
  taxonomy: readonly TaxonomyEntry[],
): { ok: true; scenario: ScenarioDraft } | { ok: false; problems: FieldProblem[] } {
  const r = scenarioSchema.safeParse(value);
  // Every problem at once: the schema's and the taxonomy's, so fixing one never reveals another round.
  const schema = r.success ? [] : r.error.issues.map((i) => ({ field: pathOf(i.path), message: issueRule(i) }));
  const taxonomyOnes = taxonomyProblems(value, new Map(taxonomy.map((e) => [e.intent, e]))).filter((p) => !schema.some((q) => q.field === p.field));
  const problems = [...schema, ...taxonomyOnes];
  return problems.length || !r.success ? { ok: false, problems } : { ok: true, scenario: r.data };
}
