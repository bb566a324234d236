/**
 * The results tables of one run, study or tactic queue of a lab, for `sparring export --table`
 * (core/export/results-tables.ts builds them; the app builds the same tables from the same data),
 * and the metric points a run sends to TensorBoard.
 */
import type { DataTable } from '../../core/export/data-table';
import {
  agreementTable,
  armsTable,
  heldoutScenarioTable,
  matchesTable,
  pairedTable,
  panelTable,
  reachTable,
  studyWDaTable,
  table4Table,
  table5Table,
  tacticConfusionTable,
} from '../../core/export/results-tables';
import { arenaOnlySummary } from '../../core/coevolution/study-summary';
import type { RunDetail } from '../../core/contract/contract';
import { createRunReader } from '../coevolution/run-reader';
import { labelHandlers } from '../engine/labels';
import { labelStore } from '../store/label-store';
import type { SqliteRunStore } from '../store/sqlite-store';
import { loadStudy } from '../study/study-data';
import { studyStore } from '../study/study-store';
import { heldoutScalars, matchScalars } from './tensorboard';
import type { Scalar } from './tensorboard';

/** The tables each kind of id exports, in the order `--table all` writes them. */
export const TABLES = {
  run: ['table4', 'scenarios', 'matches', 'panel'],
  study: ['arms', 'paired', 'reach', 'wda'],
  queue: ['table5', 'agreement', 'confusion'],
} as const;

export type TableSource = keyof typeof TABLES;

/** What an id names in this lab: a run (R1), a study (S1) or a tactic labelling queue (T1); null: none of them. */
export function sourceOf(store: SqliteRunStore, id: string): TableSource | null {
  if (store.db.prepare('SELECT 1 FROM runs WHERE id = ?').get(id)) return 'run';
  try {
    studyStore(store.db).get(id);
    return 'study';
  } catch {
    /* not a study */
  }
  try {
    return labelStore(store.db).getQueue(id).kind === 'tactic' ? 'queue' : null;
  } catch {
    return null;
  }
}

/** A run as the app reads it (RunDetail: held-out report, panel, matches). */
export function runDetail(store: SqliteRunStore, runId: string): RunDetail {
  return createRunReader(store.db, store.path, () => undefined).get(runId);
}

/**
 * Every table of a run, study or tactic queue (a run without a panel evaluation has no panel
 * table). `arenaOnly`: leave out held-out and panel figures (default: as the run or study was made).
 */
export async function resultTables(store: SqliteRunStore, source: TableSource, id: string, arenaOnly?: boolean): Promise<DataTable[]> {
  if (source === 'run') {
    const d = runDetail(store, id);
    // An --arena-only run shows nothing of its evaluation phase (as `run` and `report` do): its matches only.
    if (arenaOnly ?? d.arenaOnly) return [matchesTable(id, d.matchSummaries, d.gyms)];
    return [
      table4Table(id, d.heldout),
      heldoutScenarioTable(id, d.heldout),
      matchesTable(id, d.matchSummaries, d.gyms),
      ...(d.panel ? [panelTable(d.panel.da, d.panel.summary)] : []),
    ];
  }
  if (source === 'study') {
    const v = loadStudy(store.db, store.path, id);
    // An --arena-only study: no held-out or panel figure (arenaOnlySummary), as in `study show`.
    const s = (arenaOnly ?? v.study.arenaOnly) ? arenaOnlySummary(v.summary) : v.summary;
    return [armsTable(id, s), pairedTable(id, s), reachTable(id, s), studyWDaTable(id, s)];
  }
  const report = await labelHandlers(store, labelStore(store.db))['labels/tactic-report']({ queueId: id });
  return [table5Table(report), agreementTable(report), tacticConfusionTable(report)];
}

/** Every metric of a run for TensorBoard: its stored series (gym losses, KL, rewards), each match's arena figures, the held-out Table 4 (not for an --arena-only run). */
export function runScalars(store: SqliteRunStore, runId: string): Scalar[] {
  const rows = store.db
    .prepare<[string], { key: string; step: number; value: number }>('SELECT key, step, value FROM run_metrics WHERE run_id = ? ORDER BY key, step')
    .all(runId);
  const d = runDetail(store, runId);
  // An --arena-only run shows nothing of its evaluation phase, here too.
  return [
    ...rows.map((r) => ({ tag: r.key, step: r.step, value: r.value })),
    ...d.matchSummaries.flatMap(matchScalars),
    ...(d.arenaOnly ? [] : heldoutScalars(d.heldout)),
  ];
}

/** The runs of a study with their arm and seed (TensorBoard folder names), or the one run. */
export function runsOf(store: SqliteRunStore, source: 'run' | 'study', id: string): { runId: string; label: string }[] {
  if (source === 'run') return [{ runId: id, label: id }];
  return studyStore(store.db)
    .entries(id)
    .map((e) => ({ runId: e.runId, label: `${e.runId}-${e.arm}-seed${e.seed}` }));
}

/** The tables of `id` (any kind), or an error naming what it is not. The app's `results/tables`. */
export async function tablesOf(store: SqliteRunStore, id: string, arenaOnly?: boolean): Promise<DataTable[]> {
  const source = sourceOf(store, id);
  if (!source) throw new Error(`no run, study or tactic labelling queue "${id}" in this lab`);
  return resultTables(store, source, id, arenaOnly);
}
