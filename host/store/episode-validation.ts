/**
 * MADS validator failures stored with each episode (`episodes.validator_failed`), so the
 * transcript list filters by them in SQL. The store writes them when it saves a match (arena,
 * runs, robustness matches, human play). Episodes stored before the column existed, or whose
 * custom scenario changed since, hold NULL and are filled in on first need
 * (`backfillValidatorFailures`, run before a validator filter is served): a migration stays plain
 * DDL that never runs evolving validator code, and opening a large lab never waits on it.
 */
import type { Database as Db } from 'better-sqlite3';
import type { Scenario } from '../../core/domain/types';
import type { EpisodeRecord } from '../../core/store/port';
import { transcriptOfEpisode, validateTranscript } from '../../core/validators/validators';
import type { ValidatorName } from '../../core/validators/validators';
import { labDomain } from './scenario-store';

/** One bit per validator in `validator_failed`. */
export const VALIDATOR_BITS: Readonly<Record<ValidatorName, number>> = { syntax: 1, faithfulness: 2, role_confusion: 4, task_success: 8 };
/** Any validator failed. */
export const ANY_VALIDATOR = 15;

/** The bits of the validators that fail on `e` (judged against its scenario, when known). */
export function validatorFailureBits(e: EpisodeRecord, scenario: Scenario | undefined): number {
  return validateTranscript(transcriptOfEpisode(e, scenario), scenario).reduce((bits, v) => (v.ok ? bits : bits | VALIDATOR_BITS[v.validator]), 0);
}

/** Every scenario of the lab (shipped and custom) by id, for the verdicts. */
export function labScenarios(db: Db): Map<string, Scenario> {
  return new Map(labDomain(db).scenarios.map((s) => [s.id, s]));
}

/** Episodes validated per transaction while backfilling. */
const BACKFILL_BATCH = 500;

/** Compute and store the verdicts of every episode that has none yet; returns how many. */
export function backfillValidatorFailures(db: Db, getEpisode: (id: string) => EpisodeRecord | undefined): number {
  const pending = db.prepare('SELECT id FROM episodes WHERE validator_failed IS NULL LIMIT ?').pluck();
  const update = db.prepare('UPDATE episodes SET validator_failed = ? WHERE id = ?');
  let ids = pending.all(BACKFILL_BATCH) as string[];
  if (!ids.length) return 0;
  const scenarios = labScenarios(db);
  let done = 0;
  const write = db.transaction((rows: [number, string][]) => rows.forEach(([bits, id]) => update.run(bits, id)));
  while (ids.length) {
    write(
      ids.map((id) => {
        const e = getEpisode(id)!;
        return [validatorFailureBits(e, scenarios.get(e.scenarioId)), id];
      }),
    );
    done += ids.length;
    ids = pending.all(BACKFILL_BATCH) as string[];
  }
  return done;
}
