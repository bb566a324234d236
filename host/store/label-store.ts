/**
 * Labelling queues, annotators and their labels in the lab database (migration "labelling
 * queues…"). Each annotator's label of an item is their own row, keyed (queue, item, annotator):
 * a second write by the same person — another window, a double click, a retry — updates that row
 * in one IMMEDIATE transaction (revision + 1, time spent added), so nothing is duplicated or
 * dropped; a write that names the revision it started from is refused, with a clear message, when
 * someone else's write came in between.
 */
import { checkText, TEXT_BOUNDS } from './text-bounds';
import type { Database } from 'better-sqlite3';
import type { AuditValue, LabelKind, LabelQueueInfo, LabelValue, OwnLabel } from '../../core/labels/types';

export interface QueueItem {
  pos: number;
  episodeId: string;
  turnIdx: number | null;
}

export interface StoredLabel extends OwnLabel {
  queueId: string;
  pos: number;
  annotator: string;
  createdAt: string;
  updatedAt: string;
}

export interface PutLabel {
  queueId: string;
  pos: number;
  annotator: string;
  value: LabelValue;
  note: string;
  msSpent: number;
  /** The revision the writer saw (0: none yet); omitted, the write simply lands on top. */
  baseRevision?: number;
}

/** A write refused because the label changed since the writer read it. */
export class LabelConflictError extends Error {
  override name = 'LabelConflictError';
}

const ANNOTATOR = /^[\p{L}\p{N}][\p{L}\p{N} ._'-]{0,59}$/u;

export function labelStore(db: Database) {
  const q = {
    addAnnotator: db.prepare('INSERT OR IGNORE INTO annotators (name, created_at) VALUES (?, ?)'),
    annotators: db.prepare('SELECT name FROM annotators ORDER BY created_at, rowid').pluck(),
    hasAnnotator: db.prepare('SELECT 1 FROM annotators WHERE name = ?').pluck(),
    queueIds: db.prepare('SELECT id FROM label_queues').pluck(),
    insertQueue: db.prepare('INSERT INTO label_queues (id, kind, created_at, labels_json, match_ids_json, per_match, seed) VALUES (?, ?, ?, ?, ?, ?, ?)'),
    insertItem: db.prepare('INSERT INTO label_items (queue_id, pos, episode_id, turn_idx) VALUES (?, ?, ?, ?)'),
    queues: db.prepare('SELECT * FROM label_queues ORDER BY created_at, rowid'),
    queue: db.prepare('SELECT * FROM label_queues WHERE id = ?'),
    itemCount: db.prepare('SELECT count(*) FROM label_items WHERE queue_id = ?').pluck(),
    progress: db.prepare(`SELECT annotator, sum(value_json IS NOT NULL) AS labelled, sum(value_json IS NULL) AS skipped
                          FROM labels WHERE queue_id = ? GROUP BY annotator ORDER BY annotator`),
    items: db.prepare('SELECT pos, episode_id, turn_idx FROM label_items WHERE queue_id = ? ORDER BY pos'),
    item: db.prepare('SELECT pos, episode_id, turn_idx FROM label_items WHERE queue_id = ? AND pos = ?'),
    labels: db.prepare('SELECT * FROM labels WHERE queue_id = ? ORDER BY pos, annotator'),
    allLabels: db.prepare('SELECT * FROM labels ORDER BY queue_id, pos, annotator'),
    own: db.prepare('SELECT * FROM labels WHERE queue_id = ? AND pos = ? AND annotator = ?'),
    nextSeq: db.prepare('SELECT coalesce(max(write_seq), 0) + 1 FROM labels').pluck(),
    upsert: db.prepare(`
      INSERT INTO labels (queue_id, pos, annotator, value_json, note, ms_spent, revision, created_at, updated_at, write_seq)
      VALUES (@queueId, @pos, @annotator, @value, @note, @msSpent, 1, @now, @now, @seq)
      ON CONFLICT (queue_id, pos, annotator) DO UPDATE SET
        value_json = excluded.value_json, note = excluded.note, ms_spent = ms_spent + excluded.ms_spent,
        revision = revision + 1, updated_at = excluded.updated_at, write_seq = excluded.write_seq`),
    latest: db.prepare('SELECT pos FROM labels WHERE queue_id = ? AND annotator = ? ORDER BY write_seq DESC LIMIT 1').pluck(),
    remove: db.prepare('DELETE FROM labels WHERE queue_id = ? AND pos = ? AND annotator = ?'),
    firstOpen: db
      .prepare(
        `SELECT i.pos FROM label_items i WHERE i.queue_id = ? AND NOT EXISTS
                           (SELECT 1 FROM labels l WHERE l.queue_id = i.queue_id AND l.pos = i.pos AND l.annotator = ?) ORDER BY i.pos LIMIT 1`,
      )
      .pluck(),
    firstSkipped: db.prepare('SELECT pos FROM labels WHERE queue_id = ? AND annotator = ? AND value_json IS NULL ORDER BY pos LIMIT 1').pluck(),
  };

  function queueInfo(r: Row): LabelQueueInfo {
    return {
      id: r.id as string,
      kind: r.kind as LabelKind,
      createdAt: r.created_at as string,
      labels: JSON.parse(r.labels_json as string) as string[],
      matchIds: JSON.parse(r.match_ids_json as string) as string[],
      perMatch: r.per_match as number,
      seed: r.seed as number,
      items: q.itemCount.get(r.id) as number,
      progress: (q.progress.all(r.id) as Row[]).map((p) => ({
        annotator: p.annotator as string,
        labelled: p.labelled as number,
        skipped: p.skipped as number,
      })),
    };
  }

  function getQueue(id: string): LabelQueueInfo {
    const r = q.queue.get(id) as Row | undefined;
    if (!r) throw new Error(`no labelling queue "${id}" in this lab`);
    return queueInfo(r);
  }

  function requireAnnotator(name: string): void {
    if (!q.hasAnnotator.get(name)) throw new Error(`no annotator "${name}" in this lab; add them first`);
  }

  function checkValue(queue: LabelQueueInfo, value: LabelValue): void {
    if (value === null) return;
    if (queue.kind === 'tactic') {
      if (typeof value !== 'string' || !queue.labels.includes(value)) {
        throw new Error(`queue ${queue.id}: ${JSON.stringify(value)} is not one of its labels (${queue.labels.map((l) => JSON.stringify(l)).join(', ')})`);
      }
    } else if (typeof value !== 'object') {
      throw new Error(`queue ${queue.id} audits the judge: a label is {resolved, tier, hallucination}, got ${JSON.stringify(value)}`);
    }
  }

  const put = db.transaction((p: PutLabel): OwnLabel => {
    const queue = getQueue(p.queueId);
    if (!q.item.get(p.queueId, p.pos)) throw new Error(`queue ${p.queueId} has no item ${p.pos} (it has ${queue.items})`);
    requireAnnotator(p.annotator);
    checkValue(queue, p.value);
    checkText('note', p.note, TEXT_BOUNDS.note);
    const before = q.own.get(p.queueId, p.pos, p.annotator) as Row | undefined;
    const seen = (before?.revision as number | undefined) ?? 0;
    if (p.baseRevision !== undefined && p.baseRevision !== seen) {
      throw new LabelConflictError(
        `${p.annotator}'s label of ${p.queueId}/${p.pos} changed since it was opened (revision ${seen}, this write started from ${p.baseRevision}); reload the item and label it again`,
      );
    }
    q.upsert.run({
      queueId: p.queueId,
      pos: p.pos,
      annotator: p.annotator,
      value: p.value === null ? null : JSON.stringify(p.value),
      note: p.note,
      msSpent: Math.round(p.msSpent),
      now: new Date().toISOString(),
      seq: q.nextSeq.get(),
    });
    return ownLabel(q.own.get(p.queueId, p.pos, p.annotator) as Row);
  });

  const undo = db.transaction((queueId: string, annotator: string): number | null => {
    getQueue(queueId);
    const pos = q.latest.get(queueId, annotator) as number | undefined;
    if (pos === undefined) return null;
    q.remove.run(queueId, pos, annotator);
    return pos;
  });

  const createQueue = db.transaction(
    (o: {
      kind: LabelKind;
      labels: readonly string[];
      matchIds: readonly string[];
      perMatch: number;
      seed: number;
      items: readonly Omit<QueueItem, 'pos'>[];
    }): LabelQueueInfo => {
      if (o.labels.length > 100) throw new Error(`labels: at most 100, got ${o.labels.length}`);
      o.labels.forEach((l, i) => checkText(`labels.${i}`, l, TEXT_BOUNDS.id));
      const taken = new Set(q.queueIds.all() as string[]);
      const prefix = o.kind === 'tactic' ? 'T' : 'A';
      let n = 1;
      while (taken.has(`${prefix}${n}`)) n++;
      const id = `${prefix}${n}`;
      q.insertQueue.run(id, o.kind, new Date().toISOString(), JSON.stringify(o.labels), JSON.stringify(o.matchIds), o.perMatch, o.seed);
      o.items.forEach((it, pos) => q.insertItem.run(id, pos, it.episodeId, it.turnIdx));
      return getQueue(id);
    },
  );

  return {
    addAnnotator(name: string): string {
      const n = name.trim();
      if (!ANNOTATOR.test(n))
        throw new Error(`annotator name ${JSON.stringify(name)}: use 1–60 letters, digits, spaces or . _ ' - (starting with a letter or digit)`);
      q.addAnnotator.run(n, new Date().toISOString());
      return n;
    },
    annotators: () => q.annotators.all() as string[],
    createQueue: (o: Parameters<typeof createQueue>[0]) => createQueue.immediate(o),
    listQueues: () => (q.queues.all() as Row[]).map(queueInfo),
    getQueue,
    items: (queueId: string) => (q.items.all(queueId) as Row[]).map(queueItem),
    item(queueId: string, pos: number): QueueItem {
      const r = q.item.get(queueId, pos) as Row | undefined;
      if (!r) throw new Error(`queue ${queueId} has no item ${pos}`);
      return queueItem(r);
    },
    labels: (queueId?: string): StoredLabel[] => ((queueId === undefined ? q.allLabels.all() : q.labels.all(queueId)) as Row[]).map(storedLabel),
    own(queueId: string, pos: number, annotator: string): OwnLabel | null {
      const r = q.own.get(queueId, pos, annotator) as Row | undefined;
      return r ? ownLabel(r) : null;
    },
    /** The annotator's next item: the first they have not touched, else the first they skipped; null when done. */
    nextPos(queueId: string, annotator: string): number | null {
      return ((q.firstOpen.get(queueId, annotator) ?? q.firstSkipped.get(queueId, annotator)) as number | undefined) ?? null;
    },
    /** One IMMEDIATE transaction: concurrent writers of the same row queue up on the lock. */
    put: (p: PutLabel) => put.immediate(p),
    /** Take back the annotator's latest write in the queue; returns its item, or null when there is none. */
    undo: (queueId: string, annotator: string) => undo.immediate(queueId, annotator),
    requireAnnotator,
  };
}

export type LabelStore = ReturnType<typeof labelStore>;

type Row = Record<string, unknown>;

function queueItem(r: Row): QueueItem {
  return { pos: r.pos as number, episodeId: r.episode_id as string, turnIdx: r.turn_idx as number | null };
}

function ownLabel(r: Row): OwnLabel {
  return {
    value: r.value_json === null ? null : (JSON.parse(r.value_json as string) as string | AuditValue),
    note: r.note as string,
    msSpent: r.ms_spent as number,
    revision: r.revision as number,
  };
}

function storedLabel(r: Row): StoredLabel {
  return {
    ...ownLabel(r),
    queueId: r.queue_id as string,
    pos: r.pos as number,
    annotator: r.annotator as string,
    createdAt: r.created_at as string,
    updatedAt: r.updated_at as string,
  };
}
