/** Reads a domain folder from disk into the texts `loadDomain` validates (core does no I/O). */
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadDomain } from '../core/domain/schema';
import type { DomainFiles } from '../core/domain/schema';
import type { Domain } from '../core/domain/types';

export const ASSETS_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', 'assets');

export function readDomainFiles(dir: string, name = path.basename(dir)): DomainFiles {
  const read = (file: string) => ({ file: path.relative(process.cwd(), file) || file, text: readFileSync(file, 'utf8') });
  const scenarioDir = path.join(dir, 'scenarios');
  return {
    name,
    taxonomy: read(path.join(dir, 'taxonomy.json')),
    utterances: read(path.join(dir, 'utterances.json')),
    scenarios: readdirSync(scenarioDir)
      .filter((f) => f.endsWith('.json'))
      .sort()
      .map((f) => read(path.join(scenarioDir, f))),
  };
}

let cached: Domain | undefined;
/** The shipped banking domain, validated once per process. */
export function bankingDomain(): Domain {
  cached ??= loadDomain(readDomainFiles(path.join(ASSETS_DIR, 'domains', 'banking'), 'banking'));
  return cached;
}
