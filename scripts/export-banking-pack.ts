/**
 * Writes domains/banking/ (banking as a domain pack, from the code's constants and the shipped
 * domain files) and domains/schema/ (the format's JSON Schemas). Run after changing either:
 *   npx tsx scripts/export-banking-pack.ts
 * test/domain-packs.test.ts fails while the committed files differ from what this writes.
 */
import path from 'node:path';
import { bankingPackFiles, packSchemaFiles } from '../host/domain-pack/banking-export';
import { DOMAINS_DIR } from '../host/domain-pack/read';
import { writePackFiles } from '../host/domain-pack/write';

for (const file of [
  ...writePackFiles(path.join(DOMAINS_DIR, 'banking'), bankingPackFiles()),
  ...writePackFiles(path.join(DOMAINS_DIR, 'schema'), packSchemaFiles()),
]) {
  process.stdout.write(`wrote ${path.relative(process.cwd(), file)}\n`);
}
