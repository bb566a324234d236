/**
 * Validator issues in plain words. zod's own messages ("Too small: expected string to have >=1
 * characters", "Invalid input: expected number, received undefined") are for programmers; every
 * place that shows a schema's complaint to a person (the engine's argument checks, the run config,
 * domain files, the Play seat's tool arguments, the world's tool errors) words it here, so a screen
 * never prints validator text: "Custom arm 1 › name must not be empty."
 *
 * A schema's own message (`.int('must be an integer')`, a refine's text) is already written for a
 * person and is kept as it is.
 */
import type { z } from 'zod';

type Issue = z.core.$ZodIssue;
type PathKey = PropertyKey;

/** zod's default messages start with these words (zod/v4/locales/en.js); anything else is a schema's own text. */
const DEFAULT_MESSAGE =
  /^(Too small|Too big|Invalid input|Invalid option|Invalid string|Invalid number|Invalid key|Invalid value|Unrecognized key|Invalid [A-Za-z0-9 .-]+$)/;

/** "customArms" → "custom arms", "tool_args" → "tool args". */
function words(key: string): string {
  return key
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/[_-]+/g, ' ')
    .toLowerCase()
    .trim()
    .split(' ')
    .map((w) => ACRONYMS[w] ?? w)
    .join(' ');
}

/** Words that are written in capitals in the app (the papers' DA and CA, URL, …). */
const ACRONYMS: Record<string, string> = { da: 'DA', ca: 'CA', das: 'DAs', cas: 'CAs', url: 'URL', id: 'ID', llm: 'LLM', kl: 'KL', gguf: 'GGUF', gpu: 'GPU' };

/** "custom arms" → "custom arm" (the noun before an index names one of them). */
function singular(w: string): string {
  if (/ies$/.test(w)) return w.replace(/ies$/, 'y');
  if (/(ss|us)$/.test(w)) return w;
  return w.replace(/s$/, '');
}

/**
 * A field path as a person reads it: `customArms.0.name` → "custom arm 1 › name" (indices count
 * from 1 and name the item of the list before them). The empty path is "the input".
 */
export function fieldLabel(path: readonly PathKey[] | string): string {
  const keys: PathKey[] = typeof path === 'string' ? (path === '' ? [] : path.split('.').map((k) => (/^\d+$/.test(k) ? Number(k) : k))) : [...path];
  const parts: string[] = [];
  for (const k of keys) {
    if (typeof k === 'number') {
      const prev = parts.pop();
      parts.push(prev === undefined ? `item ${k + 1}` : `${singular(prev)} ${k + 1}`);
    } else parts.push(words(String(k)));
  }
  return parts.length ? parts.join(' › ') : 'the input';
}

const plural = (n: number | bigint, one: string, many = `${one}s`) => `${String(n)} ${Number(n) === 1 ? one : many}`;

function number(n: number | bigint): string {
  const s = String(n);
  return /^-?\d{5,}$/.test(s) ? s.replace(/\B(?=(\d{3})+(?!\d))/g, ',') : s;
}

const TYPE_NOUN: Record<string, string> = {
  number: 'a number',
  int: 'a whole number',
  string: 'text',
  boolean: 'yes or no (true or false)',
  object: 'a set of fields (an object)',
  array: 'a list',
  bigint: 'a whole number',
  date: 'a date',
};

/** What the value must be, as the end of a sentence: "must not be empty", "must be at most 10,000". */
export function issueRule(issue: Issue): string {
  if (!DEFAULT_MESSAGE.test(issue.message)) return issue.message;
  switch (issue.code) {
    case 'invalid_type': {
      if (/received undefined$/.test(issue.message)) return 'is missing';
      return `must be ${TYPE_NOUN[issue.expected] ?? issue.expected}`;
    }
    case 'too_small': {
      const { origin, minimum, inclusive } = issue;
      const min = Number(minimum);
      if (origin === 'string')
        return min <= 1 && inclusive ? 'must not be empty' : `must be at least ${plural(inclusive ? minimum : min + 1, 'character')} long`;
      if (origin === 'array' || origin === 'set')
        return min <= 1 && inclusive ? 'needs at least one entry' : `needs at least ${plural(inclusive ? minimum : min + 1, 'entry', 'entries')}`;
      return inclusive ? `must be at least ${number(minimum)}` : `must be more than ${number(minimum)}`;
    }
    case 'too_big': {
      const { origin, maximum, inclusive } = issue;
      const max = Number(maximum);
      if (origin === 'string') return `must be at most ${plural(inclusive ? maximum : max - 1, 'character')} long`;
      if (origin === 'array' || origin === 'set') return `may have at most ${plural(inclusive ? maximum : max - 1, 'entry', 'entries')}`;
      return inclusive ? `must be at most ${number(maximum)}` : `must be less than ${number(maximum)}`;
    }
    case 'invalid_value':
      return issue.values.length === 1
        ? `must be ${JSON.stringify(issue.values[0])}`
        : `must be one of ${issue.values.map((v) => JSON.stringify(v)).join(', ')}`;
    case 'invalid_format':
      return issue.format === 'regex' ? 'does not have the required form' : `must be a valid ${issue.format === 'url' ? 'URL' : issue.format}`;
    case 'not_multiple_of':
      return `must be a multiple of ${String(issue.divisor)}`;
    case 'unrecognized_keys':
      return `has unknown field${issue.keys.length > 1 ? 's' : ''} ${issue.keys.map((k) => `"${k}"`).join(', ')}`;
    case 'invalid_union':
      return 'does not match any of the allowed forms';
    default:
      return 'is not valid';
  }
}

/** One sentence naming the field: "Custom arm 1 › name must not be empty." */
export function issueSentence(issue: Issue, path: readonly PathKey[] = issue.path): string {
  const label = fieldLabel(path);
  // A schema's own text may not read on from the field's name ("expected a scenario object").
  const s = DEFAULT_MESSAGE.test(issue.message) ? `${label} ${issueRule(issue)}` : `${label}: ${issue.message}`;
  return `${s.charAt(0).toUpperCase()}${s.slice(1)}${/[.!?]$/.test(s) ? '' : '.'}`;
}

/** The dotted path scripts and tests match on: "customArms.0.name". */
export function issuePath(issue: Issue): string {
  return issue.path.map(String).join('.');
}
