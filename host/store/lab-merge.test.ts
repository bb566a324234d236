/**
 * The merge plan covers the schema: every table of a lab at the current version is merged (or said
 * not to be, with why), with the columns the plan was written against, and every foreign key is a
 * reference of the plan. A migration that adds a table or a column fails here until the plan says
 * how the merge carries it (its key, and whether it names rows of another table).
 */
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { MERGE_PLAN, NOT_MERGED } from './lab-merge';
import { applyMigrations } from './migrations';

function currentSchema() {
  const db = new Database(':memory:');
  db.pragma('foreign_keys = ON');
  applyMigrations(db);
  return db;
}

describe('the lab merge plan', () => {
  it('covers every table and column of the current schema', () => {
    const db = currentSchema();
    const tables = (
      db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name").pluck().all() as string[]
    ).filter((t) => !Object.hasOwn(NOT_MERGED, t));
    const planned = MERGE_PLAN.map((p) => p.table);
    expect([...planned].sort(), 'tables in the schema but not in MERGE_PLAN (host/store/lab-merge.ts), or the reverse').toEqual(tables);
    expect(new Set(planned).size).toBe(planned.length);
    for (const p of MERGE_PLAN) {
      const cols = (db.prepare(`PRAGMA table_info(${p.table})`).all() as { name: string }[]).map((c) => c.name);
      expect(p.columns.split(' '), `${p.table}: the plan's columns against the schema's (a new column: does it name rows of another table?)`).toEqual(cols);
      for (const c of [...p.key.cols, ...p.refs.map((r) => r.col)]) expect(cols, `${p.table}.${c}`).toContain(c);
    }
    db.close();
  });

  it('declares every foreign key as a reference to the table it names, merged before it or set afterwards', () => {
    const db = currentSchema();
    const order = new Map(MERGE_PLAN.map((p, i) => [p.table, i]));
    for (const p of MERGE_PLAN) {
      const fks = db.prepare(`PRAGMA foreign_key_list(${p.table})`).all() as { table: string; from: string }[];
      for (const fk of fks) {
        const ref = p.refs.find((r) => r.col === fk.from && r.to.includes(fk.table));
        // labels → label_items is the composite (queue_id, pos): its queue_id is the reference that moves.
        const viaParent = p.refs.some((r) => r.col === fk.from) || p.key.cols.includes(fk.from);
        expect(ref !== undefined || viaParent, `${p.table}.${fk.from} → ${fk.table} is not a reference of the plan`).toBe(true);
        if (fk.table !== p.table) expect(order.get(fk.table), `${fk.table} merges before ${p.table}`).toBeDefined();
      }
      for (const r of p.refs) for (const t of r.to) expect(order.has(t), `${p.table}.${r.col} names ${t}, which the plan lacks`).toBe(true);
    }
    db.close();
  });
});
