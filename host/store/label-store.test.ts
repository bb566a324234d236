import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { fakeMatch } from '../../test/support/store-contract';
import { DEFAULT_TACTIC_LABELS } from '../../core/labels/types';
import { LabelConflictError, labelStore } from './label-store';
import { MIGRATIONS, applyMigrations, userVersion } from './migrations';
import { openSqliteStore } from './sqlite-store';
import Database from 'better-sqlite3';

const root = mkdtempSync(join(tmpdir(), 'sparring-labels-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
let files = 0;

/** A lab file with one match, a tactic queue over its first three episodes and two annotators. */
function lab() {
  const path = join(root, `lab-${++files}.db`);
  const store = openSqliteStore(path);
  const { match, episodes } = fakeMatch('M1');
  store.saveMatch(match, episodes);
  const labels = labelStore(store.db);
  labels.addAnnotator('ann');
  labels.addAnnotator(' bo ');
  const queue = labels.createQueue({
    kind: 'tactic',
    labels: DEFAULT_TACTIC_LABELS,
    matchIds: ['M1'],
    perMatch: 3,
    seed: 1,
    items: episodes.slice(0, 3).map((e) => ({ episodeId: e.id, turnIdx: 0 })),
  });
  return { path, store, labels, queue };
}

const put = (queueId: string, pos: number, annotator: string, value: string | null, msSpent = 1000, baseRevision?: number) => ({
  queueId,
  pos,
  annotator,
  value,
  note: '',
  msSpent,
  baseRevision,
});

describe('the labelling migration', () => {
  it('adds annotators, queues, items and labels keyed by item and annotator', () => {
    const version = MIGRATIONS.findIndex((m) => m.name === 'labelling queues, annotators and their labels') + 1;
    const db = new Database(':memory:');
    db.pragma('foreign_keys = ON');
    applyMigrations(db, version - 1);
    expect(applyMigrations(db, version)).toBe(version);
    expect(userVersion(db)).toBe(version);
    const tables = db
      .prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name IN ('annotators', 'label_queues', 'label_items', 'labels') ORDER BY name")
      .pluck()
      .all();
    expect(tables).toEqual(['annotators', 'label_items', 'label_queues', 'labels']);
    const pk = db.prepare("SELECT name FROM pragma_table_info('labels') WHERE pk > 0 ORDER BY pk").pluck().all();
    expect(pk).toEqual(['queue_id', 'pos', 'annotator']);
    // A label must belong to an item of the queue and to a registered annotator.
    expect(() => db.prepare("INSERT INTO labels VALUES ('Q', 0, 'x', NULL, '', 0, 1, 't', 't', 1)").run()).toThrow(/FOREIGN KEY/);
    db.close();
  });
});

describe('labelStore', () => {
  it('numbers queues per kind and keeps their items in order', () => {
    const { labels, queue, store } = lab();
    expect(queue).toMatchObject({ id: 'T1', kind: 'tactic', items: 3, progress: [] });
    expect(labels.items('T1').map((i) => i.episodeId)).toEqual(['M1:0', 'M1:1', 'M1:2']);
    expect(labels.annotators()).toEqual(['ann', 'bo']);
    store.close();
  });

  it('lists queues and annotators in creation order when they share a millisecond, not by id', () => {
    vi.useFakeTimers({ now: new Date('2026-12-02T12:00:00.000Z'), toFake: ['Date'] });
    try {
      const { labels, store } = lab();
      labels.addAnnotator('al');
      labels.createQueue({ kind: 'audit', labels: [], matchIds: ['M1'], perMatch: 1, seed: 1, items: [{ episodeId: 'M1:0', turnIdx: null }] });
      expect(labels.listQueues().map((q) => q.id)).toEqual(['T1', 'A1']);
      expect(labels.annotators()).toEqual(['ann', 'bo', 'al']);
      store.close();
    } finally {
      vi.useRealTimers();
    }
  });

  it('keeps one row per annotator per item: two annotators, two rows; the same one twice, one row', () => {
    const { labels, store } = lab();
    labels.put(put('T1', 0, 'ann', 'Direct intent'));
    labels.put(put('T1', 0, 'bo', 'Other'));
    const again = labels.put(put('T1', 0, 'ann', 'Multi-intent', 500));
    expect(again).toMatchObject({ value: 'Multi-intent', revision: 2, msSpent: 1500 });
    expect(labels.labels('T1').map((l) => [l.annotator, l.value])).toEqual([
      ['ann', 'Multi-intent'],
      ['bo', 'Other'],
    ]);
    expect(labels.getQueue('T1').progress).toEqual([
      { annotator: 'ann', labelled: 1, skipped: 0 },
      { annotator: 'bo', labelled: 1, skipped: 0 },
    ]);
    store.close();
  });

  it('serialises writes from two connections to one file: neither duplicated nor lost', () => {
    const { path, labels, store } = lab();
    const other = openSqliteStore(path);
    const labels2 = labelStore(other.db);
    for (let i = 0; i < 20; i++) {
      labels.put(put('T1', 1, 'ann', 'Other', 10));
      labels2.put(put('T1', 1, 'ann', 'Direct intent', 10));
    }
    const rows = labels2.labels('T1');
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ value: 'Direct intent', revision: 40, msSpent: 400 });
    other.close();
    store.close();
  });

  it('refuses a write based on a revision someone else has since replaced, naming both', () => {
    const { labels, store } = lab();
    // Two windows open the unlabelled item (revision 0) and both label it.
    labels.put(put('T1', 2, 'ann', 'Other', 1000, 0));
    expect(() => labels.put(put('T1', 2, 'ann', 'Direct intent', 1000, 0))).toThrow(LabelConflictError);
    expect(() => labels.put(put('T1', 2, 'ann', 'Direct intent', 1000, 0))).toThrow(/changed since it was opened \(revision 1, this write started from 0\)/);
    expect(labels.own('T1', 2, 'ann')).toMatchObject({ value: 'Other', revision: 1 });
    store.close();
  });

  it('says what is wrong with a bad write and stores nothing', () => {
    const { labels, store } = lab();
    expect(() => labels.put(put('T1', 0, 'zoe', 'Other'))).toThrow(/no annotator "zoe"/);
    expect(() => labels.put(put('T1', 9, 'ann', 'Other'))).toThrow(/queue T1 has no item 9 \(it has 3\)/);
    expect(() => labels.put(put('T9', 0, 'ann', 'Other'))).toThrow(/no labelling queue "T9"/);
    expect(() => labels.put(put('T1', 0, 'ann', 'Sarcasm'))).toThrow(/"Sarcasm" is not one of its labels/);
    expect(() => labels.addAnnotator('')).toThrow(/annotator name ""/);
    expect(labels.labels()).toEqual([]);
    store.close();
  });

  it('walks the queue: untouched items first, then skipped ones; undo takes back the latest write', () => {
    const { labels, store } = lab();
    expect(labels.nextPos('T1', 'ann')).toBe(0);
    labels.put(put('T1', 0, 'ann', null));
    labels.put(put('T1', 1, 'ann', 'Other'));
    expect(labels.nextPos('T1', 'ann')).toBe(2);
    labels.put(put('T1', 2, 'ann', 'Other'));
    expect(labels.nextPos('T1', 'ann')).toBe(0); // the skipped one comes back
    expect(labels.undo('T1', 'ann')).toBe(2);
    expect(labels.nextPos('T1', 'ann')).toBe(2);
    expect(labels.undo('T1', 'bo')).toBeNull();
    store.close();
  });
});
