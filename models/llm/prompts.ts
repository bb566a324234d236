/**
 * Prompts of the LLM policies: versioned data files in `assets/prompts/` (see its README), filled
 * by name. A placeholder without a value, or a value without a placeholder, is an error naming the
 * file, so a prompt and its filler cannot drift apart silently.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const PROMPTS_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', 'assets', 'prompts');

/** The prompt versions the policies use (file names without `.txt`); stored with each call's parameters. */
export const PROMPT_VERSIONS = {
  daText: 'da-system.v1',
  daNative: 'da-system-native.v2',
  ca: 'ca-system.v1',
  caNative: 'ca-system-native.v1',
} as const;

const cache = new Map<string, string>();

export function promptText(version: string): string {
  let text = cache.get(version);
  if (text === undefined) {
    text = readFileSync(path.join(PROMPTS_DIR, `${version}.txt`), 'utf8');
    cache.set(version, text);
  }
  return text;
}

/** The prompt with every `{{name}}` replaced; throws naming the file and the placeholder on a mismatch. */
export function fillPrompt(version: string, values: Record<string, string | number>): string {
  const text = promptText(version);
  const used = new Set<string>();
  const out = text.replace(/\{\{(\w+)\}\}/g, (_, name: string) => {
    const v = values[name];
    if (v === undefined) throw new Error(`assets/prompts/${version}.txt: placeholder {{${name}}} has no value`);
    used.add(name);
    return String(v);
  });
  const unused = Object.keys(values).filter((k) => !used.has(k));
  if (unused.length) throw new Error(`assets/prompts/${version}.txt: no placeholder {{${unused[0]}}}`);
  return out.trimEnd();
}

/**
 * The values a filled prompt was filled with (the inverse of `fillPrompt`): the file's text with
 * each `{{name}}` matched lazily, anchored at both ends. Null when the text is not this prompt.
 * A value that itself contains the literal text following its placeholder is cut there; the
 * prompts keep their placeholders apart by words no filled value contains.
 */
export function unfillPrompt(version: string, filled: string): Record<string, string> | null {
  const text = promptText(version).trimEnd();
  const names: string[] = [];
  const escaped = text.split(/(\{\{\w+\}\})/).map((part) => {
    const m = /^\{\{(\w+)\}\}$/.exec(part);
    if (!m) return part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    names.push(m[1]!);
    return '([\\s\\S]*?)';
  });
  const m = new RegExp(`^${escaped.join('')}$`).exec(filled);
  if (!m) return null;
  return Object.fromEntries(names.map((n, i) => [n, m[i + 1]!]));
}
