/** Writing a pack's files: two-space JSON with a final newline, so exported packs diff cleanly. */
import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/** A pack file's text. */
export const packJson = (value: unknown) => `${JSON.stringify(value, null, 2)}\n`;

/** Write `files` (paths relative to `dir`) under `dir`; returns the paths written. */
export function writePackFiles(dir: string, files: ReadonlyMap<string, string>): string[] {
  const out: string[] = [];
  for (const [rel, text] of files) {
    const file = path.join(dir, rel);
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, text);
    out.push(file);
  }
  return out;
}

/** Is `dir` absent or an empty folder? */
export function isFreeFolder(dir: string): boolean {
  return !existsSync(dir) || readdirSync(dir).length === 0;
}
