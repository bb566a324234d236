/**
 * Imported utterance corpora in the lab (migration 3): a Banking77-format CSV, once checked, is
 * stored with its line numbers so that training can use it and a person can trace any row back.
 */
import type { Database } from 'better-sqlite3';
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
