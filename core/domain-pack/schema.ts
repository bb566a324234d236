/**
 * The domain pack format: a world (entities, seeded state, tools, intents, the customer's words,
 * scenarios and what the judge may check) as a folder of JSON files, so that a support domain is
 * data rather than code. One zod schema per file; `scripts/export-banking-pack.ts` writes the
 * draft 2020-12 JSON Schema of each to `domains/schema/`, and `validate.ts` adds the checks
 * across files (an intent's goal tool exists, a slot names an entity field, …).
 *
 * Files of a pack folder (docs/domain-packs.md describes every field):
 *   pack.json          manifest: name, title, the world's fixed "today", verification and escalation
 *   world.json         entity types, pools and generators of the seeded state, situations, slots
 *   tools.json         tools: argument and result schemas, reads/changes, preconditions, typed errors
 *   intents.json       intent → goal tool, rationale, `reveals` phrases (r_conceal)
 *   utterances.json    the utterance bank by directness style, decoys, hedges, detail replies, tones
 *   customer.json      how the customer states details (detail kinds, frames, vague fill-ins)
 *   adversities.json   MADS adversity defaults: hostile lines, injected messages, the default profile
 *   judge.json         the claim-check map: which tool-result fields back which kinds of claims
 *   scenarios/*.json   arena, held-out and robustness scenarios (MADS task specs, personas, …)
 */
import { z } from 'zod';

/** The pack format's version; a pack states it in pack.json. */
export const PACK_FORMAT = 1;

/** The files of a pack, in the order `validate` reads them. */
export const PACK_FILES = [
  'pack.json',
  'world.json',
  'tools.json',
  'intents.json',
  'utterances.json',
  'customer.json',
  'adversities.json',
  'judge.json',
] as const;
export type PackFileName = (typeof PACK_FILES)[number];
/** The scenario sets, one file each under scenarios/. */
export const SCENARIO_SETS = ['arena', 'heldout', 'robustness'] as const;

const text = z.string().trim().min(1, 'expected a non-empty string');
const name = z.string().regex(/^[A-Za-z][A-Za-z0-9_]*$/, 'expected an identifier (letters, digits, _; starting with a letter)');
const packName = z.string().regex(/^[a-z][a-z0-9-]*$/, 'expected a lower-case pack name (a–z, 0–9, -)');
const code = z.string().regex(/^[A-Z][A-Z0-9_]*$/, 'expected an UPPER_CASE error code');
const schemaRef = z.string().optional().describe('editor hint: where the JSON Schema of this file lives');
/** A regular expression as data: its source and flags (JavaScript syntax). */
const regex = z.strictObject({
  pattern: text,
  flags: z
    .string()
    .regex(/^[dgimsuy]*$/, 'expected JavaScript regex flags')
    .default(''),
});
const probability = z.number().min(0).max(1);

// ------------------------------------------------------------------------------- JSON Schema subset

/**
 * The JSON Schema subset tool arguments and results are written in (draft 2020-12 keywords, plus
 * `x-maxDecimals` for amounts given to the cent). Enough for every banking tool; a form for Play
 * and a validator for tool calls can be built from it without a general JSON Schema engine.
 */
export type JsonSchemaNode = {
  type?:
    'object' | 'array' | 'string' | 'number' | 'integer' | 'boolean' | 'null' | ('object' | 'array' | 'string' | 'number' | 'integer' | 'boolean' | 'null')[];
  description?: string;
  properties?: Record<string, JsonSchemaNode>;
  required?: string[];
  additionalProperties?: boolean | JsonSchemaNode;
  items?: JsonSchemaNode;
  enum?: (string | number | boolean | null)[];
  const?: string | number | boolean | null;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  exclusiveMaximum?: number;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  anyOf?: JsonSchemaNode[];
  'x-maxDecimals'?: number;
};
const JSON_TYPES = ['object', 'array', 'string', 'number', 'integer', 'boolean', 'null'] as const;
export const jsonSchemaNode: z.ZodType<JsonSchemaNode> = z.lazy(() =>
  z.strictObject({
    type: z.union([z.enum(JSON_TYPES), z.array(z.enum(JSON_TYPES)).min(1)]).optional(),
    description: z.string().optional(),
    properties: z.record(z.string(), jsonSchemaNode).optional(),
    required: z.array(z.string()).optional(),
    additionalProperties: z.union([z.boolean(), jsonSchemaNode]).optional(),
    items: jsonSchemaNode.optional(),
    enum: z
      .array(z.union([z.string(), z.number(), z.boolean(), z.null()]))
      .min(1)
      .optional(),
    const: z.union([z.string(), z.number(), z.boolean(), z.null()]).optional(),
    minimum: z.number().optional(),
    maximum: z.number().optional(),
    exclusiveMinimum: z.number().optional(),
    exclusiveMaximum: z.number().optional(),
    minLength: z.number().int().min(0).optional(),
    maxLength: z.number().int().min(0).optional(),
    pattern: z.string().optional(),
    anyOf: z.array(jsonSchemaNode).min(1).optional(),
    'x-maxDecimals': z.number().int().min(0).optional(),
  }),
);

// ------------------------------------------------------------------------------- pack.json

export const packManifestSchema = z.strictObject({
  $schema: schemaRef,
  format: z.literal(PACK_FORMAT),
  name: packName,
  title: text,
  description: text,
  /** Where the words came from: a pack ships only text written for it. */
  provenance: text,
  /** The world's fixed "today" (ISO date), so dates in transcripts are reproducible. */
  today: z.string().regex(/^\d{4}-\d{2}-\d{2}$/, 'expected an ISO date YYYY-MM-DD'),
  /** Currency symbol money slots and claims are written with. */
  currency: text,
  /**
   * Identity verification: the DA sees the caller's `callerField` (caller ID), `tool` called with
   * it verifies the customer and sets `flag`; tools whose preconditions require the flag refuse
   * before it. null: a world without verification.
   */
  verification: z.strictObject({ tool: name, argument: name, callerField: z.string().min(1), flag: name }).nullable(),
  /** The tool that hands the customer to a person (always allowed, the fallback of impossible requests), or null. */
  escalationTool: name.nullable(),
});

// ------------------------------------------------------------------------------- world.json

const intRange = z.strictObject({ kind: z.literal('int'), min: z.number().int(), max: z.number().int() });
/** Generators that draw a value (every one but `ref`). */
const drawGenerators = [
  /** An integer in [min, max]. */
  intRange,
  /** An amount in [min, max] (whole cents: drawn as an integer number of cents). */
  z.strictObject({ kind: z.literal('money'), min: z.number(), max: z.number() }),
  /** One item of a pool (world.json `pools`), optionally never the value of another field. */
  z.strictObject({ kind: z.literal('pick'), pool: name, excluding: z.string().optional() }),
  /** A fake person's name or place (the faker method, seeded from the stream). */
  z.strictObject({ kind: z.literal('faker'), method: z.enum(['person.fullName', 'location.city']) }),
  /** A fresh identifier: `prefix_` and a base-36 number. */
  z.strictObject({ kind: z.literal('id'), prefix: z.string().regex(/^[a-z]+$/, 'expected a lower-case id prefix') }),
  /** A text with `{n}` holes, each filled from `parts[n]`. */
  z.strictObject({ kind: z.literal('format'), template: text, parts: z.array(intRange).min(1) }),
  /** An ISO date `min`–`max` days before the world's today; with `step`, copy i (from 0) of a record is i × step days earlier still. */
  z.strictObject({ kind: z.literal('daysAgo'), min: z.number().int().min(0), max: z.number().int().min(0), step: z.number().int().min(0).optional() }),
  /** A fixed value. */
  z.strictObject({ kind: z.literal('const'), value: z.union([z.string(), z.number(), z.boolean(), z.null()]) }),
] as const;
/** How a value of the seeded state is drawn; every draw comes from the episode's seeded stream, in listing order. */
export const generatorSchema = z.discriminatedUnion('kind', [
  ...drawGenerators,
  /**
   * The value of another record's field (drawn earlier, or earlier in this record), a scenario
   * parameter (`setup.amount`) or the persona's (`persona.name`); when it has none, drawn by
   * `fallback` (else null).
   */
  z.strictObject({
    kind: z.literal('ref'),
    ref: z.string().min(1),
    /**
     * How the referenced value is written (a fallback's value is used as drawn):
     * date-phrase: an ISO date (or a number of days ago) as a customer says it ("yesterday", "last Tuesday", "on March 3");
     * last4: the last four digits; days-ago: a number of days before the world's today, as an ISO date.
     */
    format: z.enum(['date-phrase', 'last4', 'days-ago']).optional(),
    fallback: z.discriminatedUnion('kind', [...drawGenerators]).optional(),
    /** Draw the fallback even when the reference has a value, then prefer the value (keeps later draws in step: banking's fake name). */
    drawAlways: z.boolean().optional(),
  }),
]);
export type Generator = z.infer<typeof generatorSchema>;

const FIELD_TYPES = ['id', 'string', 'number', 'integer', 'money', 'boolean', 'date', 'enum', 'list', 'ref', 'object'] as const;
export const fieldSchema = z.strictObject({
  type: z.enum(FIELD_TYPES),
  description: z.string().optional(),
  /** enum: the values. */
  values: z.array(z.string().min(1)).min(1).optional(),
  /** list / ref: the entity type it holds or points at. */
  entity: name.optional(),
  nullable: z.boolean().optional(),
});
export type FieldSpec = z.infer<typeof fieldSchema>;

/** A value a situation writes: a literal, a scenario parameter, another field, or a choice on a parameter. */
export const effectValueSchema = z.union([
  z.string(),
  z.number(),
  z.boolean(),
  z.null(),
  z.strictObject({ param: name, default: z.union([z.string(), z.number(), z.boolean()]).optional() }),
  z.strictObject({ ref: z.string().min(1) }),
  z.strictObject({ record: name }),
  z.strictObject({
    switch: z.string().min(1),
    cases: z.record(z.string(), z.union([z.string(), z.number(), z.boolean(), z.null()])),
    default: z.union([z.string(), z.number(), z.boolean(), z.null()]),
  }),
  /** An ISO date: n days before today, a parameter's days (plus some), or `plus` days before a drawn date (`focal.date`). */
  z.strictObject({
    daysAgo: z.union([
      z.number().int(),
      z.strictObject({ param: name, plus: z.number().int().optional() }),
      z.strictObject({ ref: z.string().min(1), plus: z.number().int().optional() }),
    ]),
  }),
]);

/**
 * One step of building an episode's world, in order (the order of the seeded draws):
 * draw a record's fields, place a drawn record in a list, set a field, sort a list, or seed the
 * fake-name generator from the stream.
 */
export const effectSchema = z.discriminatedUnion('op', [
  /** Draw a record (world.json `records`): each field by its generator, in listing order, `count` times. */
  z.strictObject({ op: z.literal('draw'), record: name }),
  /** Append the drawn record to a list; `fresh` fields are drawn anew here, `set` fields take new values. */
  z.strictObject({
    op: z.literal('add'),
    to: z.string().min(1),
    record: name,
    fresh: z.array(z.string()).optional(),
    set: z.record(z.string(), effectValueSchema).optional(),
  }),
  /** Set a field of the state (creating objects on the way); a `{param}` the scenario does not give, with no default, leaves it as it is. */
  z.strictObject({ op: z.literal('set'), path: z.string().min(1), value: effectValueSchema }),
  /** Sort a list by a field (stable: equal values keep their order). */
  z.strictObject({ op: z.literal('sort'), path: z.string().min(1), by: name, order: z.enum(['asc', 'desc']) }),
  /** Seed the fake-name generator (faker) with one draw from the world's stream. */
  z.strictObject({ op: z.literal('seed-faker') }),
]);

export const worldFileSchema = z.strictObject({
  $schema: schemaRef,
  /** Entity types: their fields, and how the seeded world draws them. */
  entities: z.record(name, z.strictObject({ description: text, fields: z.record(name, fieldSchema) })),
  /**
   * The state of one episode: named collections of entities, and flags tools set (`verified`). A
   * generated world lists them in this order, lists empty and flags false until a step changes
   * them, and every entity in it lists its fields in the entity's declaration order.
   */
  state: z.record(
    name,
    z.union([
      z.strictObject({ entity: name, count: z.number().int().min(0).optional(), list: z.boolean().optional(), description: z.string().optional() }),
      z.strictObject({ flag: z.literal(true), description: z.string().optional() }),
    ]),
  ),
  /** Named lists values are picked from. */
  pools: z.record(name, z.array(z.union([z.string().min(1), z.number()])).min(1)),
  /** Records of one episode's world: what a `draw` step draws, field by field in listing order (`count` times). */
  records: z.record(
    name,
    z.strictObject({ entity: name, description: text, count: z.number().int().min(1).optional(), fields: z.record(name, generatorSchema) }),
  ),
  /** Parameters a scenario's setup may give (merchant, amount, days ago, card status), as JSON Schema. */
  setupParams: z.record(name, jsonSchemaNode),
  /** Steps every world takes before its situation's (the customer, their accounts, background activity). */
  initial: z.array(effectSchema),
  /** Steps every world takes after its situation's. */
  final: z.array(effectSchema),
  /**
   * What happened before the call, set up by a scenario: a description, generators that replace
   * a record's field generators in this situation, and its steps (between `initial` and `final`).
   */
  situations: z
    .array(
      z.strictObject({
        name,
        description: text,
        recordOverrides: z.record(name, z.record(name, generatorSchema)).optional(),
        effects: z.array(effectSchema),
      }),
    )
    .min(1),
  /**
   * The `{slot}`s the customer's words may use, each filled from a field of the state
   * (`entity.field` of the episode's entities) and written in a format.
   */
  slots: z
    .array(
      z.strictObject({
        name,
        source: z.string().regex(/^[A-Za-z][A-Za-z0-9_]*\.[A-Za-z][A-Za-z0-9_]*$/, 'expected entity.field'),
        format: z.enum(['text', 'money', 'date-phrase', 'digits']),
        description: text,
      }),
    )
    .min(1),
});

// ------------------------------------------------------------------------------- tools.json

/**
 * One step of a tool's program (core/domain-pack/tool-program.ts runs it; expressions are
 * core/domain-pack/expr.ts'): bind a value, find a record or fail, fail when a condition holds, set
 * a field of the state, append to a state list, branch, or return the result.
 */
export type ProgramStep =
  | { op: 'let'; name: string; value: string }
  | { op: 'find'; name: string; in: string; where: string; error: string; message: string }
  | { op: 'fail'; if?: string; error: string; message: string }
  | { op: 'set'; path: string; value: string }
  | { op: 'append'; to: string; value: string }
  | { op: 'when'; if: string; then: ProgramStep[]; else?: ProgramStep[] }
  | { op: 'return'; value: string };
const expression = z.string().trim().min(1, 'expected an expression');
export const programStepSchema: z.ZodType<ProgramStep> = z.lazy(() =>
  z.discriminatedUnion('op', [
    /** Bind `name` to the expression's value (a later `let` of the same name replaces it). */
    z.strictObject({ op: z.literal('let'), name, value: expression }),
    /** Bind `name` to the first item of the list `in` for which `where` (with `name` as the item) is true; none: fail with `error` and the `message` template. */
    z.strictObject({ op: z.literal('find'), name, in: expression, where: expression, error: code, message: text }),
    /** Fail with `error` and the `message` template (`{expression}` holes) when `if` is true (always, without `if`). */
    z.strictObject({ op: z.literal('fail'), if: expression.optional(), error: code, message: text }),
    /** Set a field of the state: `path` is a name followed by `.field` or `[expression]` steps. */
    z.strictObject({ op: z.literal('set'), path: expression, value: expression }),
    /** Append the value to the state list `to`. */
    z.strictObject({ op: z.literal('append'), to: expression, value: expression }),
    /** Run `then` when `if` is true, else `else`. */
    z.strictObject({ op: z.literal('when'), if: expression, then: z.array(programStepSchema).min(1), else: z.array(programStepSchema).min(1).optional() }),
    /** The tool's result (an object). */
    z.strictObject({ op: z.literal('return'), value: expression }),
  ]),
);

export const toolSchema = z.strictObject({
  name,
  description: text,
  /** verification: establishes identity; goal: an intent may route to it; escalation: hands over to a person (also a goal). */
  role: z.enum(['verification', 'goal', 'escalation', 'support']),
  /** Intents route to goal tools only (the DA's routing targets, the decoys' keys). */
  goal: z.boolean(),
  arguments: jsonSchemaNode,
  result: jsonSchemaNode,
  /** State the tool reads and changes (`accounts[].transactions`, `disputes`, `verified`). */
  reads: z.array(z.string().min(1)),
  changes: z.array(z.string().min(1)),
  /** Conditions checked before the tool runs (after its arguments): a state flag it requires. */
  preconditions: z.array(z.strictObject({ requires: name, error: code, message: text })),
  /** Errors the tool itself returns, each with when. */
  errors: z.array(z.strictObject({ code, when: text })),
  /** Numbers and words the tool's behaviour depends on (provisional credit limit, wait minutes by department). */
  parameters: z.record(name, z.union([z.number(), z.string(), z.boolean(), z.record(z.string(), z.union([z.number(), z.string()]))])).optional(),
  /**
   * What the tool does, as steps run after its arguments and preconditions passed: the names
   * `args` (the validated arguments), `state` (the episode's world) and `params` (`parameters`)
   * are in scope. Absent: the pack describes the tool but cannot run it.
   */
  program: z.array(programStepSchema).min(1).optional(),
});
export type PackTool = z.infer<typeof toolSchema>;

export const toolsFileSchema = z.strictObject({
  $schema: schemaRef,
  tools: z.array(toolSchema).min(1),
  /** Every error code a tool call may get, and what it means; `injected` ones come from execution adversities only. */
  errorCodes: z.array(z.strictObject({ code, meaning: text, injected: z.boolean() })).min(1),
});

// ------------------------------------------------------------------------------- intents.json

export const intentSchema = z.strictObject({
  name: z.string().regex(/^[A-Za-z][A-Za-z0-9_?]*$/, 'expected an intent name (letters, digits, _)'),
  /** The goal tool a correct DA calls for this intent (after verification). */
  goalTool: name,
  /** Where the intent's name comes from (a public taxonomy's label, or written for the pack). */
  source: text,
  /** Arena intents are the ones arena scenarios use (at least 20 utterances each; others at least 8). */
  arena: z.boolean(),
  rationale: text,
  /** Phrases that name the intent outright; a customer who says one is penalised by r_conceal. */
  reveals: z.array(text),
});
export type PackIntent = z.infer<typeof intentSchema>;

export const intentsFileSchema = z.strictObject({ $schema: schemaRef, intents: z.array(intentSchema).min(1) });

// ------------------------------------------------------------------------------- utterances.json

export const DIRECTNESS = ['direct', 'indirect', 'vague'] as const;
export const TONES = ['neutral', 'frustrated', 'anxious'] as const;

export const utterancesFileSchema = z.strictObject({
  $schema: schemaRef,
  utterances: z.array(z.strictObject({ intent: z.string().min(1), style: z.enum(DIRECTNESS), text })).min(1),
  /** Cue sentences pointing at another goal tool's domain, keyed by that tool (the CA's decoys). */
  decoys: z.record(name, z.array(text).min(1)),
  hedges: z.array(text).min(1),
  /** Answers to a clarifying question with concrete detail (slots). */
  detailReplies: z.array(text).min(1),
  acknowledgements: z.array(text).min(1),
  /** Tone prefixes; neutral may hold '' (a plain start). */
  tones: z.strictObject({ neutral: z.array(z.string()).min(1), frustrated: z.array(text).min(1), anxious: z.array(text).min(1) }),
});

// ------------------------------------------------------------------------------- customer.json

export const customerFileSchema = z.strictObject({
  $schema: schemaRef,
  /**
   * The kinds of concrete detail a customer states, in order: the slots that state each, what in
   * an agent's question asks for it, how a detail frame says it, and what is said instead while
   * it is withheld (partial information).
   */
  detailKinds: z
    .array(
      z.strictObject({
        name,
        slots: z.array(name).min(1),
        asked: regex,
        phrases: z.array(z.strictObject({ text, position: z.enum(['before', 'after']) })).min(1),
        vague: z.record(name, text),
      }),
    )
    .min(1),
  /** Detail frames: `{lead} the {before…} {noun} {after…}.` for every lead, noun and phrase choice. */
  detailFrames: z.strictObject({ leads: z.array(text).min(1), nouns: z.array(text).min(1) }),
  /** Said when a goal revision drops the earlier request. */
  reviseLine: text,
});

// ------------------------------------------------------------------------------- adversities.json

export const EXECUTION_KINDS = ['backend_failure', 'empty_results', 'timeout', 'policy_constraint'] as const;
export const CONVERSATIONAL_KINDS = ['partial_information', 'incremental_constraints', 'goal_revision', 'adversarial_tone'] as const;

const rate = probability.optional();
export const adversitySchema = z.discriminatedUnion('kind', [
  z.strictObject({ kind: z.literal('partial_information'), slot: name, rate }),
  z.strictObject({ kind: z.literal('incremental_constraints'), reveals: z.array(text).min(1), rate }),
  z.strictObject({
    kind: z.literal('goal_revision'),
    from: z.string().min(1),
    turn: z.number().int().min(2, 'the goal can change from the second customer turn on'),
    rate,
  }),
  z.strictObject({ kind: z.literal('adversarial_tone'), rate }),
  ...EXECUTION_KINDS.map((kind) =>
    z.strictObject({ kind: z.literal(kind), tool: name.optional(), rate, turn: z.number().int().min(1).optional(), message: text.optional() }),
  ),
]);

export const adversitiesFileSchema = z.strictObject({
  $schema: schemaRef,
  /** Hostile lines of adversarial tone for a persona without sample messages. */
  hostileLines: z.array(text).min(1),
  /** The message of each injected execution failure when a scenario gives none. */
  messages: z.strictObject({ backend_failure: text, empty_results: text, timeout: text, policy_constraint: text }),
  /** `empty_results` on these tools answers an empty list (`result` fields) instead of NOT_FOUND. */
  emptyResults: z.array(z.strictObject({ tool: name, keep: z.array(name), empty: name })),
  /** What a run with adversities on gives every scenario that declares none. */
  defaultProfile: z.array(adversitySchema).min(1),
});

// ------------------------------------------------------------------------------- judge.json

/** A field of a tool's result: `tool` (or "*" for every tool) and a path in its result (`cards[].status`). */
const fieldRef = z.strictObject({ tool: z.string().min(1), path: z.string().min(1) });
/** Fields picked by their key (every tool's result, walked): keys matching `keyPattern`. */
const keyRule = z.strictObject({ keyPattern: regex });

export const judgeFileSchema = z.strictObject({
  $schema: schemaRef,
  /** Prefixes of the record ids tools issue (`dsp_…`); `prefix_xxx` in agent speech is an id claim. */
  idPrefixes: z.array(z.string().regex(/^[a-z]+$/)).min(1),
  /** Capitalised words that are never name claims (compared lower-case). */
  commonCapitalised: z.array(z.string().min(1)),
  /** Multi-word phrases removed before looking for names. */
  commonPhrases: z.array(text),
  /** A capitalised phrase ending in one of these names the company or a team. */
  institutionSuffixes: z.array(text),
  /** Words showing a speak turn tells a goal tool's outcome without quoting it, by goal tool. */
  explainCues: z.record(name, z.array(text)),
  /** Words showing a speak turn tells the customer a tool call failed. */
  errorCues: z.array(text).min(1),
  /**
   * The claim-check map: for each kind of claim the agent can make, the tool-result fields that
   * back it. A claim with none of these behind it (and not said by the customer) is a hallucination.
   */
  claims: z.strictObject({
    /** Amounts: numbers under keys naming an amount (and balances); the customer's own numbers count too. */
    amounts: z.strictObject({ keys: keyRule, balanceKeys: keyRule, customerNumbers: z.boolean() }),
    /** Dates: string values of this shape in any result, and dates the customer said. */
    dates: z.strictObject({ valuePattern: regex, customerDates: z.boolean() }),
    /** Names and ids: any string of a successful result, and the customer's words. */
    namesAndIds: z.strictObject({
      anyResultString: z.boolean(),
      customerWords: z.boolean(),
      /** Descriptor → brand normalisation: a lower-case token of a card descriptor ("amzn") → the brand's plain words ("Amazon"). */
      brands: z.record(z.string(), z.string()).optional(),
    }),
    /** Short digit strings (a card's last four) under these keys, and ones the customer said, cued by a word. */
    digits: z.array(z.strictObject({ key: name, cue: text, length: z.number().int().min(1) })),
    /**
     * Statuses of an entity: the fields that give them (with the entity's id field), the words
     * that name each status, and the cue word that says a sentence is about the entity.
     */
    statuses: z.array(
      z.strictObject({
        entity: name,
        cue: text,
        fields: z.array(z.strictObject({ tool: z.string().min(1), status: z.string().min(1), id: z.string().min(1) })).min(1),
        words: z.record(z.string(), z.string()),
        /** Claim phrases (posted / pending …) and the field values that make each true. */
        phrases: z.array(z.strictObject({ name, pattern: regex, values: z.array(z.string()).min(1) })).optional(),
        finding: name,
      }),
    ),
    /** Boolean outcomes (a provisional credit): a phrase, and the result field that must be true. */
    flags: z.array(z.strictObject({ finding: name, phrase: regex, backedBy: fieldRef, equals: z.union([z.boolean(), z.string(), z.number()]) })),
    /** Timelines: wait times must be this field's; process promises are backed by these results. */
    timelines: z.strictObject({
      waitMinutes: fieldRef.nullable(),
      processBackedBy: z.array(
        z.strictObject({ cue: regex, tool: name, field: z.string().optional(), equals: z.union([z.boolean(), z.string(), z.number()]).optional() }),
      ),
    }),
    /**
     * Actions the agent says it took or will take: each kind, the tools whose successful result
     * backs it (optionally a field value), which goal tools' outcome it misstates when unbacked,
     * why it fails, a cue, and the phrases that claim it (done) or promise it.
     */
    actions: z.array(
      z.strictObject({
        kind: name,
        backedBy: z.array(z.strictObject({ tool: name, field: z.string().optional(), equals: z.union([z.boolean(), z.string(), z.number()]).optional() })),
        about: z.array(name),
        why: text,
        cue: regex,
        done: z.array(regex),
        promised: z.array(regex),
      }),
    ),
    /** A team named with an escalation must be the one the escalation went to: words → that field's values. */
    departments: z.strictObject({ backedBy: fieldRef, words: z.record(z.string(), z.string()) }).nullable(),
  }),
});

// ------------------------------------------------------------------------------- scenarios/*.json

export const packScenarioSchema = z.strictObject({
  id: z.string().regex(/^[a-z0-9][a-z0-9-]*$/, 'expected a kebab-case id'),
  title: text,
  /** A non-negotiable reference (banking: fraud escalation): tracked apart from W_DA, never CA-winnable. */
  nonNegotiable: z.boolean(),
  ambiguity: z.enum(['clear', 'ambiguous']),
  /** The customer's hidden intents (one drawn per episode); all route to `expectedTool`. */
  intents: z.array(z.string().min(1)).min(1),
  expectedTool: name,
  /** The world before the call: a situation (world.json) and its parameters (world.json `setupParams`). */
  setup: z.record(z.string(), z.union([z.string(), z.number(), z.boolean()])),
  description: text,
  complexity: z.enum(['normal', 'unhappy', 'impossible']).optional(),
  /** MADS task specification. */
  task: z
    .strictObject({
      objective: text,
      hardConstraints: z.record(z.string().min(1), z.union([z.string(), z.number(), z.boolean()])),
      softPreferences: z.record(z.string().min(1), z.union([z.string(), z.number(), z.boolean()])),
      successCriteria: z.array(text).min(1),
    })
    .optional(),
  persona: z.strictObject({ name: text, style: text, sampleMessages: z.array(text).min(1) }).optional(),
  adversities: z.array(adversitySchema).optional(),
  /** An unattainable goal and what the agent must do instead. */
  impossible: z.strictObject({ fallback_behavior: z.enum(['decline', 'explain', 'offer_alternative']), reason: text }).optional(),
  referenceActions: z
    .array(
      z.strictObject({ action_type: z.enum(['speak', 'tool_call', 'end_call']), content: z.string(), tool_args: z.record(z.string(), z.unknown()).optional() }),
    )
    .min(1)
    .optional(),
});
export type PackScenario = z.infer<typeof packScenarioSchema>;

export const scenarioFileSchema = z.strictObject({ $schema: schemaRef, set: z.enum(SCENARIO_SETS), scenarios: z.array(packScenarioSchema).min(1) });

/** Each file's schema, by file name (scenario files share one). */
export const PACK_FILE_SCHEMAS = {
  'pack.json': packManifestSchema,
  'world.json': worldFileSchema,
  'tools.json': toolsFileSchema,
  'intents.json': intentsFileSchema,
  'utterances.json': utterancesFileSchema,
  'customer.json': customerFileSchema,
  'adversities.json': adversitiesFileSchema,
  'judge.json': judgeFileSchema,
  'scenarios.json': scenarioFileSchema,
} as const;

export type PackManifest = z.infer<typeof packManifestSchema>;
export type WorldFile = z.infer<typeof worldFileSchema>;
export type ToolsFile = z.infer<typeof toolsFileSchema>;
export type IntentsFile = z.infer<typeof intentsFileSchema>;
export type UtterancesFile = z.infer<typeof utterancesFileSchema>;
export type CustomerFile = z.infer<typeof customerFileSchema>;
export type AdversitiesFile = z.infer<typeof adversitiesFileSchema>;
export type JudgeFile = z.infer<typeof judgeFileSchema>;
export type ScenarioFile = z.infer<typeof scenarioFileSchema>;

/** A whole pack, parsed. */
export interface DomainPack {
  manifest: PackManifest;
  world: WorldFile;
  tools: ToolsFile;
  intents: IntentsFile;
  utterances: UtterancesFile;
  customer: CustomerFile;
  adversities: AdversitiesFile;
  judge: JudgeFile;
  scenarios: ScenarioFile[];
}
