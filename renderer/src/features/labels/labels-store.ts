/**
 * Labelling, shared by the Annotate and Judge audit screens: who is labelling, which queue, the
 * item in front of them (blind until labelled) and the reports. Time spent on an item runs from
 * when it was shown to when it is labelled.
 */
import { create } from 'zustand';
import type { AuditReport, LabelItemView, LabelKind, LabelQueueInfo, LabelValue, TacticReport } from '../../../../core/contract/contract';
import { downloadBlob } from '../../charts/download';
import { errorMessage, request } from '../../engine/client';
import type { LoadStatus } from '../runs/runs-store';

export interface LabelsState {
  annotators: string[];
  queues: LabelQueueInfo[];
  status: LoadStatus;
  error: string | null;
  annotator: string | null;
  /** Selected queue per kind. */
  queueId: Record<LabelKind, string | null>;
  item: LabelItemView | null;
  /** True once the queue has nothing left for this annotator. */
  finished: boolean;
  itemStatus: LoadStatus;
  itemError: string | null;
  shownAt: number;
  /** The item just labelled, with where it came from (revealed after labelling). */
  last: LabelItemView | null;
  busy: boolean;
  tacticReport: TacticReport | null;
  auditReport: AuditReport | null;
  reportError: string | null;
  /** The judge the audit compares with the people: '' for the verdicts stored with the episodes, else a judge SPEC. */
  auditJudge: string;
}

export const useLabelsStore = create<LabelsState>()(() => ({
  annotators: [],
  queues: [],
  status: 'idle',
  error: null,
  annotator: null,
  queueId: { tactic: null, audit: null },
  item: null,
  finished: false,
  itemStatus: 'idle',
  itemError: null,
  shownAt: 0,
  last: null,
  busy: false,
  tacticReport: null,
  auditReport: null,
  reportError: null,
  auditJudge: '',
}));

export const selectAnnotators = (s: LabelsState) => s.annotators;
export const selectAnnotator = (s: LabelsState) => s.annotator;
export const selectLabelsStatus = (s: LabelsState) => s.status;
export const selectLabelsError = (s: LabelsState) => s.error;
export const selectAllQueues = (s: LabelsState) => s.queues;
export const selectQueue = (kind: LabelKind) => (s: LabelsState) => s.queues.find((q) => q.id === s.queueId[kind]) ?? null;
export const selectItem = (s: LabelsState) => s.item;
export const selectFinished = (s: LabelsState) => s.finished;
export const selectItemStatus = (s: LabelsState) => s.itemStatus;
export const selectItemError = (s: LabelsState) => s.itemError;
export const selectLast = (s: LabelsState) => s.last;
export const selectBusy = (s: LabelsState) => s.busy;
export const selectTacticReport = (s: LabelsState) => s.tacticReport;
export const selectAuditReport = (s: LabelsState) => s.auditReport;
export const selectAuditJudge = (s: LabelsState) => s.auditJudge;
export const selectReportError = (s: LabelsState) => s.reportError;

const set = useLabelsStore.setState;
const get = useLabelsStore.getState;

export async function loadLabels(): Promise<void> {
  set({ status: get().status === 'ready' ? 'ready' : 'loading', error: null });
  try {
    const [annotators, queues] = await Promise.all([request('labels/annotators', undefined), request('labels/queues', undefined)]);
    const s = get();
    const pick = (kind: LabelKind) => s.queueId[kind] ?? queues.filter((q) => q.kind === kind).at(-1)?.id ?? null;
    set({ annotators, queues, status: 'ready', annotator: s.annotator ?? annotators[0] ?? null, queueId: { tactic: pick('tactic'), audit: pick('audit') } });
  } catch (err) {
    set({ status: 'error', error: errorMessage(err) });
  }
}

export async function addAnnotator(name: string): Promise<void> {
  try {
    const r = await request('labels/add-annotator', { name });
    chooseAnnotator(r.name);
    set({ error: null });
    await loadLabels();
  } catch (err) {
    set({ error: errorMessage(err) });
  }
}

/** A screen opening: forget the other screen's item (the two share this store). */
export function resetItem(): void {
  set({ item: null, last: null, finished: false, itemStatus: 'idle', itemError: null });
}

export function chooseAnnotator(name: string): void {
  set({ annotator: name, item: null, last: null, finished: false });
}

export function chooseQueue(kind: LabelKind, id: string): void {
  set((s) => ({ queueId: { ...s.queueId, [kind]: id }, item: null, last: null, finished: false }));
}

export async function createQueue(kind: LabelKind, o: { perMatch?: number; seed?: number; labels?: string[] }): Promise<void> {
  set({ busy: true, error: null });
  try {
    const q = await request('labels/create-queue', { kind, ...o });
    set((s) => ({ queueId: { ...s.queueId, [kind]: q.id }, item: null, last: null, finished: false }));
    await loadLabels();
  } catch (err) {
    set({ error: errorMessage(err) });
  } finally {
    set({ busy: false });
  }
}

/** Show the annotator's next item (or a given one). */
export async function loadItem(kind: LabelKind, pos?: number): Promise<void> {
  const { annotator, queueId } = get();
  const q = queueId[kind];
  if (!annotator || !q) return;
  set({ itemStatus: 'loading', itemError: null });
  try {
    const item = await request('labels/item', { queueId: q, annotator, ...(pos === undefined ? {} : { pos }) });
    set({ item, finished: item === null, itemStatus: 'ready', shownAt: Date.now() });
  } catch (err) {
    set({ itemStatus: 'error', itemError: errorMessage(err) });
  }
}

/** Label (or, with null, skip) the item on screen, then show the next one. */
export async function submit(kind: LabelKind, value: LabelValue, note: string): Promise<boolean> {
  const { annotator, item, shownAt, busy } = get();
  if (!annotator || !item || busy) return false;
  set({ busy: true, itemError: null });
  try {
    await request('labels/put', {
      queueId: item.queueId,
      pos: item.pos,
      annotator,
      value,
      note,
      msSpent: Math.max(0, Date.now() - shownAt),
      baseRevision: item.mine?.revision ?? 0,
    });
    const revealed = value === null ? null : await request('labels/item', { queueId: item.queueId, annotator, pos: item.pos });
    set({ last: revealed });
    await loadItem(kind);
    void loadLabels();
    return true;
  } catch (err) {
    set({ itemError: errorMessage(err) });
    return false;
  } finally {
    set({ busy: false });
  }
}

/** Take back the annotator's latest label and show that item again. */
export async function undo(kind: LabelKind): Promise<void> {
  const { annotator, queueId, busy } = get();
  const q = queueId[kind];
  if (!annotator || !q || busy) return;
  set({ busy: true, itemError: null });
  try {
    const { pos } = await request('labels/undo', { queueId: q, annotator });
    set({ last: null });
    await loadItem(kind, pos ?? undefined);
    void loadLabels();
  } catch (err) {
    set({ itemError: errorMessage(err) });
  } finally {
    set({ busy: false });
  }
}

/** Compare the people with another judge (a SPEC: `rule`, an LLM endpoint), or '' for the stored verdicts. */
export function setAuditJudge(spec: string): void {
  set({ auditJudge: spec, auditReport: null });
  void loadReport('audit');
}

export async function loadReport(kind: LabelKind): Promise<void> {
  const q = get().queueId[kind];
  if (!q) return;
  try {
    if (kind === 'tactic') set({ tacticReport: await request('labels/tactic-report', { queueId: q }), reportError: null });
    else {
      const judge = get().auditJudge.trim();
      set({ auditReport: await request('labels/audit-report', judge ? { queueId: q, judge } : { queueId: q }), reportError: null });
    }
  } catch (err) {
    set({ reportError: errorMessage(err) });
  }
}

export async function exportLabels(queueId: string | undefined, format: 'json' | 'csv'): Promise<void> {
  try {
    const { filename, content } = await request('labels/export', { queueId, format });
    downloadBlob(new Blob([content], { type: format === 'csv' ? 'text/csv' : 'application/json' }), filename);
  } catch (err) {
    set({ error: errorMessage(err) });
  }
}
