/**
 * The JSON Schema subset of tool arguments, results and scenario parameters (`JsonSchemaNode`):
 * a validator that reports every problem with its path, and a resolver of result field paths
 * (`cards[].status`) for the judge's claim-check map.
 */
import type { JsonSchemaNode } from './schema';

/** One problem of a value against a schema: where (`amount`, `items[2].id`) and what was expected. */
export interface ValueProblem {
  path: string;
  expected: string;
}

function typeOf(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'number') return Number.isInteger(v) ? 'integer' : 'number';
  return typeof v;
}

function typeMatches(want: string, v: unknown): boolean {
  const t = typeOf(v);
  return want === t || (want === 'number' && t === 'integer');
}

const join = (path: string, key: string | number) => (typeof key === 'number' ? `${path}[${key}]` : path ? `${path}.${key}` : key);

/** Every way `value` breaks `schema` (empty when it conforms). */
export function checkValue(schema: JsonSchemaNode, value: unknown, path = ''): ValueProblem[] {
  const out: ValueProblem[] = [];
  const at = path || '(value)';
  if (schema.anyOf) {
    if (!schema.anyOf.some((s) => checkValue(s, value, path).length === 0)) out.push({ path: at, expected: 'a value matching one of anyOf' });
    return out;
  }
  if (schema.type !== undefined) {
    const types = Array.isArray(schema.type) ? schema.type : [schema.type];
    if (!types.some((t) => typeMatches(t, value))) return [{ path: at, expected: `${types.join(' or ')}, got ${typeOf(value)}` }];
  }
  if (schema.const !== undefined && value !== schema.const) out.push({ path: at, expected: `the constant ${JSON.stringify(schema.const)}` });
  if (schema.enum && !schema.enum.includes(value as never)) out.push({ path: at, expected: `one of ${schema.enum.map((e) => JSON.stringify(e)).join(', ')}` });
  if (typeof value === 'number') {
    if (schema.minimum !== undefined && value < schema.minimum) out.push({ path: at, expected: `a number ≥ ${schema.minimum}` });
    if (schema.maximum !== undefined && value > schema.maximum) out.push({ path: at, expected: `a number ≤ ${schema.maximum}` });
    if (schema.exclusiveMinimum !== undefined && value <= schema.exclusiveMinimum) out.push({ path: at, expected: `a number > ${schema.exclusiveMinimum}` });
    if (schema.exclusiveMaximum !== undefined && value >= schema.exclusiveMaximum) out.push({ path: at, expected: `a number < ${schema.exclusiveMaximum}` });
    const d = schema['x-maxDecimals'];
    if (d !== undefined) {
      const scaled = value * 10 ** d;
      if (Math.abs(scaled - Math.round(scaled)) >= 1e-6) out.push({ path: at, expected: `at most ${d} decimals` });
    }
  }
  if (typeof value === 'string') {
    if (schema.minLength !== undefined && value.length < schema.minLength)
      out.push({ path: at, expected: `a string of at least ${schema.minLength} characters` });
    if (schema.maxLength !== undefined && value.length > schema.maxLength)
      out.push({ path: at, expected: `a string of at most ${schema.maxLength} characters` });
    if (schema.pattern !== undefined && !new RegExp(schema.pattern, 'u').test(value)) out.push({ path: at, expected: `a string matching /${schema.pattern}/` });
  }
  if (Array.isArray(value) && schema.items) value.forEach((x, i) => out.push(...checkValue(schema.items!, x, join(path, i))));
  if (typeOf(value) === 'object') {
    const obj = value as Record<string, unknown>;
    for (const k of schema.required ?? []) if (!(k in obj)) out.push({ path: join(path, k), expected: 'a required field' });
    for (const [k, v] of Object.entries(obj)) {
      const prop = schema.properties?.[k];
      if (prop) out.push(...checkValue(prop, v, join(path, k)));
      else if (schema.additionalProperties === false)
        out.push({ path: join(path, k), expected: `no field "${k}" (known: ${Object.keys(schema.properties ?? {}).join(', ') || 'none'})` });
      else if (typeof schema.additionalProperties === 'object') out.push(...checkValue(schema.additionalProperties, v, join(path, k)));
    }
  }
  return out;
}

/**
 * The schema of a field inside a result (`transactions[].status`, `balances.*`), or null when the
 * path names no field. `[]` steps into an array's items; `*` into additionalProperties.
 */
export function resolveFieldPath(schema: JsonSchemaNode, path: string): JsonSchemaNode | null {
  let node: JsonSchemaNode | undefined = schema;
  for (const raw of path.split('.')) {
    if (!node) return null;
    const m = /^([A-Za-z0-9_*]+)((?:\[\])*)$/.exec(raw);
    if (!m) return null;
    const key = m[1]!;
    if (key === '*') node = typeof node.additionalProperties === 'object' ? node.additionalProperties : undefined;
    else node = node.properties?.[key] ?? (node.anyOf ?? []).map((a) => a.properties?.[key]).find((x) => x !== undefined);
    for (let i = 0; i < m[2]!.length / 2; i++) {
      if (!node) return null;
      node = node.items ?? (node.anyOf ?? []).map((a) => a.items).find((x) => x !== undefined);
    }
  }
  return node ?? null;
}
