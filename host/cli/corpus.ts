/** `--corpus IMPORT` of `run` and `study`: the imported corpus DA0's SFT adds, as the config names it. */
import { existsSync } from 'node:fs';
import { findCorpusImport, hashedCorpusImports } from '../store/corpus-store';
import { openSqliteStore } from '../store/sqlite-store';
import { UsageError } from './options';

/**
 * The content hash (`bootstrap.sft.corpus`) of the import IMPORT names in the lab: its id, or a
 * source such as `banking77` for the newest import of it. Refused, naming what the lab holds, when
 * it names none.
 */
export function corpusHashOf(db: string, ref: string): string {
  const store = db !== ':memory:' && !existsSync(db) ? undefined : openSqliteStore(db);
  try {
    const found = store ? findCorpusImport(store.db, ref) : undefined;
    if (found) return found.hash;
    const held = store ? hashedCorpusImports(store.db) : [];
    throw new UsageError(
      `--corpus ${ref}: no such corpus import in ${db} (${
        held.length ? `it holds ${held.map((i) => `import ${i.id}, ${i.source}, ${i.rows} rows`).join('; ')}` : 'it holds none'
      }; sparring import-banking77 FILE stores one)`,
    );
  } finally {
    store?.close();
  }
}
