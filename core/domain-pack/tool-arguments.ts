/**
 * A tool's argument check from its JSON Schema (tools.json `arguments`), worded as the engine words
 * every argument error: the schema is turned into the zod schema it stands for, keyword by keyword
 * in a fixed order, and the first issue is said by `issueRule` — so a pack tool refuses exactly the
 * calls, with exactly the messages, that a tool whose zod schema was written by hand does
 * (banking's `toolArgSchemas`: `amount: z.number().positive().max(1_000_000).refine(…, 'at most 2 decimals')`
 * is `{ type: number, exclusiveMinimum: 0, maximum: 1000000, x-maxDecimals: 2 }`).
 */
import { z } from 'zod';
import { issueRule } from '../issue-text';
import type { JsonSchemaNode } from './schema';

/** Keywords an argument schema may use (the rest of the subset is for results). */
const ARGUMENT_KEYWORDS = new Set([
  'type',
  'description',
  'properties',
  'required',
  'additionalProperties',
  'items',
  'enum',
  'const',
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'minLength',
  'maxLength',
  'pattern',
  'anyOf',
  'x-maxDecimals',
]);

/** Problems that keep an argument schema from being turned into a check (path inside the schema, what was expected). */
export function argumentSchemaProblems(schema: JsonSchemaNode, path = ''): { path: string; expected: string }[] {
  const out: { path: string; expected: string }[] = [];
  const at = (k: string) => (path ? `${path}.${k}` : k);
  for (const k of Object.keys(schema))
    if (!ARGUMENT_KEYWORDS.has(k)) out.push({ path: at(k), expected: `an argument keyword (${[...ARGUMENT_KEYWORDS].join(', ')})` });
  if (Array.isArray(schema.type) && schema.anyOf) out.push({ path: at('type'), expected: 'a single type beside anyOf' });
  if (schema.pattern !== undefined) {
    try {
      new RegExp(schema.pattern, 'u');
    } catch (e) {
      out.push({ path: at('pattern'), expected: `a valid regular expression (${(e as Error).message})` });
    }
  }
  if (schema.enum && schema.enum.some((v) => typeof v !== 'string') && schema.enum.some((v) => typeof v === 'string'))
    out.push({ path: at('enum'), expected: 'values of one kind (all text, or no text)' });
  for (const [k, p] of Object.entries(schema.properties ?? {})) out.push(...argumentSchemaProblems(p, at(`properties.${k}`)));
  if (typeof schema.additionalProperties === 'object') out.push(...argumentSchemaProblems(schema.additionalProperties, at('additionalProperties')));
  if (schema.items) out.push(...argumentSchemaProblems(schema.items, at('items')));
  schema.anyOf?.forEach((s, i) => out.push(...argumentSchemaProblems(s, at(`anyOf[${i}]`))));
  for (const r of schema.required ?? []) if (!schema.properties?.[r]) out.push({ path: at('required'), expected: `names of declared properties, got "${r}"` });
  return out;
}

function literal(v: string | number | boolean | null): z.ZodType {
  return z.literal(v as never);
}

function typed(type: NonNullable<JsonSchemaNode['type']>, s: JsonSchemaNode): z.ZodType {
  if (Array.isArray(type)) {
    const [a, b, ...rest] = type.map((t) => typed(t, s));
    return b === undefined ? a! : z.union([a!, b, ...rest]);
  }
  switch (type) {
    case 'string': {
      let x = z.string();
      if (s.minLength !== undefined) x = x.min(s.minLength);
      if (s.maxLength !== undefined) x = x.max(s.maxLength);
      if (s.pattern !== undefined) x = x.regex(new RegExp(s.pattern, 'u'));
      return x;
    }
    case 'number':
    case 'integer': {
      let x = type === 'integer' ? z.number().int() : z.number();
      if (s.minimum !== undefined) x = x.min(s.minimum);
      if (s.exclusiveMinimum !== undefined) x = x.gt(s.exclusiveMinimum);
      if (s.maximum !== undefined) x = x.max(s.maximum);
      if (s.exclusiveMaximum !== undefined) x = x.lt(s.exclusiveMaximum);
      const d = s['x-maxDecimals'];
      if (d === undefined) return x;
      const f = 10 ** d;
      return x.refine((v) => Math.abs(v * f - Math.round(v * f)) < 1e-6, `at most ${d} decimal${d === 1 ? '' : 's'}`);
    }
    case 'boolean':
      return z.boolean();
    case 'null':
      return z.null();
    case 'array': {
      return z.array(s.items ? toZod(s.items) : z.unknown());
    }
    case 'object': {
      const required = new Set(s.required ?? []);
      const shape: Record<string, z.ZodType> = {};
      for (const [k, p] of Object.entries(s.properties ?? {})) shape[k] = required.has(k) ? toZod(p) : toZod(p).optional();
      if (s.additionalProperties === false) return z.strictObject(shape);
      if (typeof s.additionalProperties === 'object') return z.object(shape).catchall(toZod(s.additionalProperties));
      return z.looseObject(shape);
    }
  }
}

/** The zod schema a JSON Schema argument node stands for. */
function toZod(s: JsonSchemaNode): z.ZodType {
  if (s.anyOf) {
    const [a, b, ...rest] = s.anyOf.map(toZod);
    return b === undefined ? a! : z.union([a!, b, ...rest]);
  }
  if (s.const !== undefined) return literal(s.const);
  if (s.enum) {
    if (s.enum.every((v) => typeof v === 'string')) return z.enum(s.enum as [string, ...string[]]);
    const [a, b, ...rest] = s.enum.map(literal);
    return b === undefined ? a! : z.union([a!, b, ...rest]);
  }
  if (s.type === undefined) return z.unknown();
  return typed(s.type, s);
}

/** The error of a call whose arguments break the schema: `INVALID_ARGUMENTS` with `field: rule`, or null. */
export type ArgumentCheck = (args: unknown) => { ok: true; data: Record<string, unknown> } | { ok: false; message: string };

/** A check of arguments against a tool's `arguments` schema (see the file's comment); throws on a schema `argumentSchemaProblems` refuses. */
export function argumentCheck(schema: JsonSchemaNode): ArgumentCheck {
  const problems = argumentSchemaProblems(schema);
  if (problems.length) throw new Error(`argument schema: ${problems.map((p) => `${p.path}: ${p.expected}`).join('; ')}`);
  const zod = toZod(schema);
  return (args) => {
    const parsed = zod.safeParse(args);
    if (parsed.success) return { ok: true, data: parsed.data as Record<string, unknown> };
    const issue = parsed.error.issues[0]!;
    const where = issue.path.length ? issue.path.join('.') : '(arguments)';
    return { ok: false, message: `${where}: ${issueRule(issue)}` };
  };
}
