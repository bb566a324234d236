/** A study as stored in the lab, with its runs read back and its tables (core/coevolution/study-summary.ts). */
import type { Database } from 'better-sqlite3';
import { summariseStudy } from '../../core/coevolution/study-summary';
import type { StudyCheckpointEvaluation, StudyPanelFigures, StudyRunData, StudySummary } from '../../core/coevolution/study-summary';
import { createRunReader } from '../coevolution/service';
import { studyStore } from './study-store';
import type { StudyEntry, StudyRow } from './study-store';

export interface StudyView {
  study: StudyRow;
  entries: (StudyEntry & { runStatus: string; phase: string; matches: number })[];
  runs: StudyRunData[];
  summary: StudySummary;
}

/** `baseline`: the arm paired differences are taken against (default: full, else the first arm). */
export function loadStudy(db: Database, dbPath: string, id: string, baseline?: string): StudyView {
  const studies = studyStore(db);
  const study = studies.get(id);
  const reader = createRunReader(db, dbPath, () => undefined);
  const entries = studies.entries(id);
  const details = entries.map((e) => reader.get(e.runId));
  const runs: StudyRunData[] = entries.map((e, i) => {
    const d = details[i]!;
    return {
      arm: e.arm, seed: e.seed, runId: e.runId, status: e.status, error: e.error,
      matches: d.matchSummaries, gyms: d.gyms,
      evaluation: (d.evaluation as { checkpoints: StudyCheckpointEvaluation[] } | null) ?? null,
      vsFullCa: studies.evaluation(id, e.arm, e.seed, 'vs-full-ca'),
      panel: studies.evaluation<StudyPanelFigures>(id, e.arm, e.seed, 'panel'),
    };
  });
  return {
    study,
    entries: entries.map((e, i) => ({ ...e, runStatus: details[i]!.status, phase: details[i]!.phase, matches: details[i]!.matchSummaries.length })),
    runs,
    summary: summariseStudy(study.arms, runs, baseline),
  };
}
