/** A study as stored in the lab, with its runs read back and its tables (core/coevolution/study-summary.ts). */
import type { Database } from 'better-sqlite3';
import { configOverlay, isArmName } from '../../core/coevolution/arms';
import { summariseStudy } from '../../core/coevolution/study-summary';
import type { StudyCheckpointEvaluation, StudyPanelFigures, StudyRunData, StudySummary } from '../../core/coevolution/study-summary';
import { hostCpuLine } from '../../core/contract/device';
import { heldoutWithArenaIntents } from '../../core/arena/scenarios';
import type { EstimateSlice, EstimateTables } from '../../core/coevolution/study-estimate';
import type { DomainTool } from '../../core/domain/types';
import type { Opening } from '../../core/labels/tactic-evidence';
import { createRunReader } from '../coevolution/run-reader';
import { labDomain } from '../store/scenario-store';
import { storedEstimate } from './study-estimate';
import { studyStore } from './study-store';
import type { StudyEntry, StudyRow } from './study-store';

export interface StudyView {
  study: StudyRow;
  /** `host`: the processor the run last ran on (hostCpuLine), null when its device was not recorded. */
  entries: (StudyEntry & { runStatus: string; phase: string; matches: number; host: string | null })[];
  runs: StudyRunData[];
  summary: StudySummary;
  /** Each custom arm (not a shipped one) with what its runs' config changes of the study's base (configOverlay). */
  customArms: { arm: string; overlay: Record<string, unknown> }[];
  /** The arena-only estimates `study estimate` stored, per slice the CA spoke (null: none stored), paired against the summary's baseline. */
  arenaEstimate: Record<EstimateSlice, EstimateTables | null>;
  /** The same on the intents beyond the arena (`study estimate --scenarios other-intents`). */
  otherIntentsEstimate: Record<EstimateSlice, EstimateTables | null>;
}

/** The CA's opening of each episode of a match (its first customer turn), with the expected tool, who won and r_CA's terms. */
function matchOpenings(db: Database): (matchId: string) => Opening[] {
  const select = db.prepare<
    [string],
    { text: string | null; expectedTool: DomainTool; winner: string; total: number; format: number; realism: number; conceal: number; invDa: number }
  >(`
    SELECT e.expected_tool AS expectedTool, e.winner AS winner, e.r_ca AS total, e.ca_format AS format,
           e.ca_realism AS realism, e.ca_conceal AS conceal, e.ca_inv_da AS invDa,
           (SELECT t.text FROM turns t WHERE t.episode_id = e.id AND t.role = 'customer' ORDER BY t.idx LIMIT 1) AS text
      FROM episodes e WHERE e.match_id = ? ORDER BY e.idx`);
  return (matchId) => select.all(matchId).map(({ text, expectedTool, winner, ...rCa }) => ({ text: text ?? '', expectedTool, daWon: winner === 'DA', rCa }));
}

/** `baseline`: the arm paired differences are taken against (default: full, else the first arm). */
export function loadStudy(db: Database, dbPath: string, id: string, baseline?: string): StudyView {
  const studies = studyStore(db);
  const openingsOf = matchOpenings(db);
  const study = studies.get(id);
  const reader = createRunReader(db, dbPath, () => undefined);
  const entries = studies.entries(id);
  const details = entries.map((e) => reader.get(e.runId));
  const runs: StudyRunData[] = entries.map((e, i) => {
    const d = details[i]!;
    return {
      arm: e.arm,
      seed: e.seed,
      runId: e.runId,
      status: e.status,
      error: e.error,
      matches: d.matchSummaries,
      gyms: d.gyms,
      evaluation: (d.evaluation as { checkpoints: StudyCheckpointEvaluation[] } | null) ?? null,
      vsFullCa: studies.evaluation(id, e.arm, e.seed, 'vs-full-ca'),
      openings:
        e.status === 'finished' && d.matchSummaries.length > 0
          ? { first: openingsOf(d.matchSummaries[0]!.matchId), last: openingsOf(d.matchSummaries.at(-1)!.matchId) }
          : undefined,
      panel: studies.evaluation<StudyPanelFigures>(id, e.arm, e.seed, 'panel'),
    };
  });
  // The lab's domain (the shipped scenarios and the lab's custom ones, which are robustness scenarios): which held-out scenarios the arena's intents reach.
  const summary = summariseStudy(study.arms, runs, baseline, heldoutWithArenaIntents(labDomain(db)));
  const customArms = study.arms
    .filter((arm) => !isArmName(arm))
    .flatMap((arm) => {
      const i = entries.findIndex((e) => e.arm === arm);
      return i < 0 ? [] : [{ arm, overlay: configOverlay(study.base, JSON.parse(details[i]!.configJson) as unknown) }];
    });
  return {
    study,
    entries: entries.map((e, i) => {
      const d = details[i]!;
      return { ...e, runStatus: d.status, phase: d.phase, matches: d.matchSummaries.length, host: d.device?.host ? hostCpuLine(d.device.host) : null };
    }),
    runs,
    summary,
    customArms,
    arenaEstimate: {
      train: storedEstimate(db, id, 'train', summary.baseline ?? undefined),
      validation: storedEstimate(db, id, 'validation', summary.baseline ?? undefined),
    },
    otherIntentsEstimate: {
      train: storedEstimate(db, id, 'train', summary.baseline ?? undefined, 'other-intents'),
      validation: storedEstimate(db, id, 'validation', summary.baseline ?? undefined, 'other-intents'),
    },
  };
}
