/**
 * Imported utterance corpora in the lab (migration 3): a Banking77-format CSV, once checked, is
 * stored with its line numbers so that training can use it and a person can trace any row back.
 */
import { createHash } from 'node:crypto';
import type { Database } from 'better-sqlite3';
import { RunConfigError } from '../../core/coevolution/run-config';
import type { RunConfig } from '../../core/coevolution/run-config';
import type { CorpusRow } from '../banking77';

export interface CorpusImport {
  id: number;
  source: string;
  file: string;
  importedAt: string;
  rows: number;
  problems: number;
}

/** Store one import in a single transaction; returns its id. */
export function saveCorpusImport(db: Database, source: string, file: string, rows: readonly CorpusRow[], problems: number): number {
  const insertImport = db.prepare('INSERT INTO corpus_imports (source, file, imported_at, rows, problems) VALUES (?, ?, ?, ?, ?)');
  const insertRow = db.prepare('INSERT INTO corpus_utterances (import_id, line, intent, text) VALUES (?, ?, ?, ?)');
  return db
    .transaction(() => {
      const id = Number(insertImport.run(source, file, new Date().toISOString(), rows.length, problems).lastInsertRowid);
      for (const r of rows) insertRow.run(id, r.line, r.intent, r.text);
      return id;
    })
    .immediate();
}

export function listCorpusImports(db: Database): CorpusImport[] {
  return db.prepare('SELECT id, source, file, imported_at AS importedAt, rows, problems FROM corpus_imports ORDER BY id').all() as CorpusImport[];
}

/** Utterances of one import (or of all), in file order. */
export function corpusUtterances(db: Database, importId?: number): CorpusRow[] {
  const sql = `SELECT line, text, intent FROM corpus_utterances ${importId === undefined ? '' : 'WHERE import_id = ?'} ORDER BY import_id, line`;
  const stmt = db.prepare(sql);
  return (importId === undefined ? stmt.all() : stmt.all(importId)) as CorpusRow[];
}

/**
 * What a run config names a corpus by (`bootstrap.sft.corpus`): 'sha256:' and the hex SHA-256 of
 * its rows' intents and texts in file order, so that a run's numbers depend on its config alone
 * and not on which lab, or which import id, holds the rows.
 */
export function corpusHash(rows: readonly Pick<CorpusRow, 'intent' | 'text'>[]): string {
  const h = createHash('sha256');
  for (const r of rows) h.update(`${r.intent}\t${r.text}\n`);
  return `sha256:${h.digest('hex')}`;
}

/** One import with its content hash. */
export interface HashedCorpusImport extends CorpusImport {
  hash: string;
}

/** Every import of the lab with its content hash (corpusHash), oldest first. */
export function hashedCorpusImports(db: Database): HashedCorpusImport[] {
  return listCorpusImports(db).map((i) => ({ ...i, hash: corpusHash(corpusUtterances(db, i.id)) }));
}

/**
 * The import a command line names: its id, or a source such as `banking77` (the newest import of
 * it). Undefined when the lab has none.
 */
export function findCorpusImport(db: Database, ref: string): HashedCorpusImport | undefined {
  const all = hashedCorpusImports(db);
  return /^\d+$/.test(ref) ? all.find((i) => i.id === Number(ref)) : all.filter((i) => i.source === ref).at(-1);
}

/** The rows of an import whose content hashes to `hash` (corpusHash); undefined when the lab holds none. */
export function corpusRowsByHash(db: Database, hash: string): CorpusRow[] | undefined {
  for (const i of listCorpusImports(db)) {
    const rows = corpusUtterances(db, i.id);
    if (corpusHash(rows) === hash) return rows;
  }
  return undefined;
}

/** The refusal of a config (`source`) whose DA0 would learn a corpus this lab does not hold. */
function missingCorpus(source: string, hash: string): RunConfigError {
  return new RunConfigError(
    source,
    'bootstrap.sft.corpus',
    `this lab holds no imported corpus whose rows hash to ${hash} (sparring import-banking77 FILE stores one)`,
  );
}

/** The rows of the corpus a run config (`source`) names by `hash`; a RunConfigError naming the field when the lab holds none. */
export function heldCorpusRows(db: Database, hash: string, source: string): CorpusRow[] {
  const rows = corpusRowsByHash(db, hash);
  if (!rows) throw missingCorpus(source, hash);
  return rows;
}

/**
 * Refuses a study whose arm names a corpus this lab lacks (`bootstrap.sft.corpus`) before the study
 * exists, since every run of that arm would fail at its start: a RunConfigError naming the first
 * such arm and the field.
 */
export function assertArmCorpora(db: Database, arms: readonly string[], configOf: (arm: string) => RunConfig): void {
  const named = arms.filter((a) => configOf(a).bootstrap.sft.corpus);
  if (named.length === 0) return;
  const held = new Set(hashedCorpusImports(db).map((i) => i.hash));
  for (const arm of named) {
    const hash = configOf(arm).bootstrap.sft.corpus!;
    if (!held.has(hash)) throw missingCorpus(`arm ${arm}`, hash);
  }
}
