/** Reads domain pack folders from disk for `validatePack` (core does no I/O), and lists the shipped ones. */
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { PackError, validatePack } from '../../core/domain-pack/validate';
import type { DomainPack } from '../../core/domain-pack/schema';

/** The repository's domains/ folder: one folder per shipped pack, and schema/ with the format's JSON Schemas. */
export const DOMAINS_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', 'domains');

/** Every .json file of a pack folder (top level and scenarios/), by path relative to it. */
export function readPackTexts(dir: string): Map<string, string> {
  if (!existsSync(dir) || !statSync(dir).isDirectory()) throw new PackError([{ file: dir, path: '', expected: 'a domain pack folder' }]);
  const out = new Map<string, string>();
  const walk = (rel: string) => {
    for (const entry of readdirSync(path.join(dir, rel), { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      const r = rel ? `${rel}/${entry.name}` : entry.name;
      if (entry.isDirectory() && rel === '') walk(r);
      else if (entry.isFile() && entry.name.endsWith('.json')) out.set(r, readFileSync(path.join(dir, r), 'utf8'));
    }
  };
  walk('');
  return out;
}

/** A pack folder, validated; throws PackError listing every problem (file paths relative to the working directory). */
export function loadPack(dir: string): DomainPack {
  const r = validatePack(readPackTexts(dir));
  if (r.ok) return r.pack;
  const shown = path.relative(process.cwd(), dir) || '.';
  throw new PackError(r.problems.map((p) => ({ ...p, file: path.join(shown, p.file) })));
}

/** The packs in domains/ (folders holding a pack.json), by name. */
export function listPackDirs(root = DOMAINS_DIR): { name: string; dir: string }[] {
  if (!existsSync(root)) return [];
  return readdirSync(root, { withFileTypes: true })
    .filter((e) => e.isDirectory() && existsSync(path.join(root, e.name, 'pack.json')))
    .map((e) => ({ name: e.name, dir: path.join(root, e.name) }))
    .sort((a, b) => a.name.localeCompare(b.name));
}

/** A pack by name (a folder of domains/) or by folder path. */
export function resolvePackDir(nameOrDir: string, root = DOMAINS_DIR): string {
  if (/^[a-z][a-z0-9-]*$/.test(nameOrDir) && existsSync(path.join(root, nameOrDir, 'pack.json'))) return path.join(root, nameOrDir);
  return path.resolve(nameOrDir);
}
