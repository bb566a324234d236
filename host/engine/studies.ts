/**
 * The engine's study requests: start and resume studies (host/study/runner.ts runs their
 * (arm, seed) runs in worker processes, so the engine's thread only waits), list them with the
 * live progress of those this engine runs, read one with its tables, and play its arena-only
 * estimate (on request, or once its runs finish when it was started with one).
 */
import type { Database } from 'better-sqlite3';
import type { EstimateScenarios, EstimateSlice, EstimateTables, Handlers, StudyDetail, StudyInfo, StudyProgressInfo } from '../../core/contract/contract';
import type { EngineEvent } from '../../core/contract/run-service';
import { ARMS, customArm, parseArms, studyArmConfigs } from '../../core/coevolution/arms';
import { arenaOnlySummary, studyHosts } from '../../core/coevolution/study-summary';
import { RunConfigError } from '../../core/coevolution/run-config';
import { PRESETS } from '../../core/presets';
import { defaultWorkers, runStudy } from '../study/runner';
import { estimateStudy, newStudyEstimateRefusal, storedStudyEstimateRefusal, StudyEstimateError } from '../study/study-estimate';
import type { SqliteRunStore } from '../store/sqlite-store';
import type { SessionSettings } from '../../models/session';
import { loadStudy } from '../study/study-data';
import { assertArmCorpora } from '../store/corpus-store';
import { StudyBusyError, studyStore } from '../study/study-store';
import { parseSeedText, SeedsError } from '../../core/coevolution/seeds';

/** The `studies/*` handlers but the CA's policy, which ca-policy.ts serves with the runs'. */
type StudyHandlers = Pick<Handlers, Exclude<Extract<keyof Handlers, `studies/${string}`>, 'studies/caPolicy'>>;

export interface StudyHandlerOptions {
  db: Database;
  dbPath: string;
  emit: (e: EngineEvent) => void;
  /** What `studies/estimate` plays with: the engine's store, its one-at-a-time queue for matches, its ORT settings. */
  play: { store: SqliteRunStore; serially: <T>(work: () => Promise<T>) => Promise<T>; session?: SessionSettings };
}

export function studyHandlers(o: StudyHandlerOptions): { handlers: StudyHandlers; close(): void } {
  const studies = studyStore(o.db);
  const live = new Map<string, StudyProgressInfo | null>();

  /** Plays what is missing of a study's estimate on `speak`, one match at a time with the engine's others; progress as `study/estimate`. */
  function estimate(studyId: string, speak: EstimateSlice, scenarios: EstimateScenarios = 'arena'): Promise<EstimateTables> {
    return o.play.serially(async () => {
      let done = 0;
      let total = 0;
      let last = 0;
      const emit = (label: string | null, force: boolean) => {
        const now = Date.now();
        if (!force && now - last < 250) return;
        last = now;
        o.emit({ name: 'study/estimate', payload: { studyId, speak, scenarios, done, total, label } });
      };
      return estimateStudy(o.play.store, {
        studyId,
        speak,
        scenarios,
        ctx: { db: o.dbPath, ...(o.play.session ? { session: o.play.session } : {}) },
        onMatch: (label) => {
          emit(label, true);
          return { update: () => emit(label, false), stop: () => undefined };
        },
        onProgress: (d, t) => {
          [done, total] = [d, t];
          emit(null, true);
        },
      });
    });
  }

  /** Refuses, before anything runs, an estimate on `speak` that the runs cannot give (`refusal`'s reason). */
  function checkEstimate(speak: EstimateSlice | undefined, refusal: (speak: EstimateSlice) => string | null): void {
    const refused = speak && refusal(speak);
    if (refused) throw new StudyEstimateError(`estimate ${speak}: ${refused}`);
  }

  /**
   * Runs the study's unfinished runs in workers; then, with `speak` and every run finished, its
   * arena-only estimate (as `sparring study --estimate`). The study stays live until both are done.
   */
  function launch(studyId: string, workers?: number, speak?: EstimateSlice): void {
    live.set(studyId, null);
    // Workers report every step: a few progress events a second, and at once when a job settles.
    let last = 0;
    let settled = -1;
    o.emit({ name: 'study/status', payload: { studyId, status: 'running' } });
    void runStudy({
      dbPath: o.dbPath,
      studyId,
      ...(workers ? { workers } : {}),
      onProgress: (p) => {
        const progress: StudyProgressInfo = {
          total: p.total,
          finished: p.finished,
          failed: p.failed,
          value: p.value,
          running: p.running.map(({ arm, seed, runId, phase, label }) => ({ arm, seed, runId, phase, label })),
        };
        live.set(studyId, progress);
        const now = Date.now();
        if (now - last < 250 && p.finished + p.failed === settled) return;
        last = now;
        settled = p.finished + p.failed;
        o.emit({ name: 'study/progress', payload: { studyId, progress } });
      },
    })
      .then(async () => {
        if (!speak || !studies.allFinished(studyId)) return;
        try {
          await estimate(studyId, speak);
        } catch (err) {
          // No request waits for it: the screen hears of the failure from the event.
          o.emit({ name: 'study/estimate', payload: { studyId, speak, done: 0, total: 0, label: null, error: (err as Error).message } });
          throw err;
        }
      })
      .catch((err: unknown) => process.stderr.write(`sparring engine: study ${studyId}: ${String(err)}\n`))
      .finally(() => {
        live.delete(studyId);
        let status: StudyInfo['status'] = 'failed';
        try {
          status = studies.get(studyId).status;
        } catch {
          // the lab was closed under us
        }
        o.emit({ name: 'study/status', payload: { studyId, status } });
      });
  }

  /** The study with its tables; an arena-only study's without held-out or panel figures unless `heldout`. */
  function info(id: string, heldout = false): StudyDetail {
    const v = loadStudy(o.db, o.dbPath, id);
    const { base, ...study } = v.study;
    const heldoutHidden = study.arenaOnly && !heldout;
    return {
      ...study,
      live: live.has(id),
      progress: live.get(id) ?? null,
      tauDa: base.stopping.tauDa,
      hosts: studyHosts(v.entries),
      heldoutHidden,
      summary: heldoutHidden ? arenaOnlySummary(v.summary) : v.summary,
      arenaEstimate: v.arenaEstimate,
      otherIntentsEstimate: v.otherIntentsEstimate,
      customArms: v.customArms,
      runs: v.entries.map((e, i) => ({
        arm: e.arm,
        seed: e.seed,
        runId: e.runId,
        status: e.status,
        error: e.error,
        matches: e.matches,
        wDa: v.runs[i]!.matches.map((m) => m.wDa),
        host: e.host,
      })),
    };
  }

  return {
    handlers: {
      'studies/start': ({ preset, seeds, arms, workers, customArms, estimate: speak, arenaOnly }) => {
        const p = PRESETS[preset as keyof typeof PRESETS];
        if (!p) throw new RunConfigError('preset', 'preset', `unknown preset "${preset}"; known: ${Object.keys(PRESETS).join(', ')}`);
        const custom = (customArms ?? []).map((c) => customArm(c.name, c.overlay, 'the custom arm'));
        const names = parseArms(arms, custom);
        const configOf = studyArmConfigs(p.config, names, custom);
        checkEstimate(speak, (slice) => newStudyEstimateRefusal(slice, names, configOf));
        assertArmCorpora(o.db, names, configOf);
        const s = studies.create({
          preset,
          base: p.config,
          arms: names,
          seeds: typeof seeds === 'number' ? Array.from({ length: seeds }, (_, i) => i + 1) : parseSeedText(seeds, 'Seeds'),
          configOf,
          arenaOnly: arenaOnly === true,
        });
        launch(s.id, workers, speak);
        return { studyId: s.id };
      },
      'studies/seeds': ({ text }) => {
        try {
          return { ok: true, seeds: parseSeedText(text, 'Seeds'), workers: defaultWorkers() };
        } catch (e) {
          if (e instanceof SeedsError) return { ok: false, problem: e.message };
          throw e;
        }
      },
      'studies/resume': ({ studyId, estimate: speak }) => {
        studies.get(studyId);
        if (live.has(studyId)) throw new Error(`study ${studyId} is running in this engine`);
        const busy = studies.busy(studyId);
        if (busy) throw new StudyBusyError(busy);
        checkEstimate(speak, (slice) => storedStudyEstimateRefusal(o.db, studyId, slice));
        launch(studyId, undefined, speak);
        return { ok: true };
      },
      'studies/estimate': ({ studyId, speak, scenarios }) => {
        studies.get(studyId);
        return estimate(studyId, speak, scenarios);
      },
      'studies/list': () =>
        studies.list().map((s) => {
          const {
            summary: _summary,
            tauDa: _tau,
            arenaEstimate: _estimate,
            otherIntentsEstimate: _beyond,
            customArms: _custom,
            heldoutHidden: _hidden,
            ...rest
          } = info(s.id);
          return rest;
        }),
      'studies/get': ({ studyId, heldout }) => info(studyId, heldout === true),
      'studies/arms': () => Object.entries(ARMS).map(([name, a]) => ({ name, description: a.description })),
    },
    close() {
      live.clear();
    },
  };
}
