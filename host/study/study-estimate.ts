/**
 * Plays and stores a study's arena-only estimate of the held-out gain (core/coevolution/study-estimate.ts):
 * each finished run's DA0 and final DA against the run's final CA on the arena scenarios, as
 * `sparring match --run R --seed 1000+seed` plays them, on the runs' one ORT thread. A run's
 * figures are stored in the study (study_evaluations) and its matches in the lab, so a second
 * call plays nothing. `sparring study estimate S` and the engine's `studies/estimate` call it.
 */
import type { Database } from 'better-sqlite3';
import { heldoutMetrics } from '../../core/arena/evaluate';
import { selectScenarios } from '../../core/arena/scenarios';
import { RUN_THREADS } from '../../core/coevolution/run-config';
import type { RunConfig } from '../../core/coevolution/run-config';
import { estimateKind, estimateSeed, estimateTables, OTHER_INTENTS_EPISODES } from '../../core/coevolution/study-estimate';
import type { ArenaEstimateFigures, EstimateRun, EstimateScenarios, EstimateSlice, EstimateTables } from '../../core/coevolution/study-estimate';
import { otherIntentScenarios } from '../../core/rl/demos';
import { runArena } from '../coevolution/actors';
import { nextArenaMatchId, runAndStoreMatch } from '../llm/store-match';
import { matchConcurrency, pendingLlmCalls, resolveCa, resolveDa, resolveJudge } from '../policies/policies';
import type { PolicyContext } from '../policies/policies';
import { labDomain } from '../store/scenario-store';
import type { SqliteRunStore } from '../store/sqlite-store';
import { studyStore } from './study-store';
import { withEpisodes } from '../../core/config';

/** Bad input to an estimate (an unknown baseline arm, a run without the slice asked for): the CLI shows it as a usage error. */
export class StudyEstimateError extends Error {}

export interface EstimateOptions {
  studyId: string;
  speak: EstimateSlice;
  /** The arm the others are paired against (default: the study's first arm). */
  baseline?: string;
  /** The scenarios the matches play (default: the arena's). */
  scenarios?: EstimateScenarios;
  /** The lab's policy context (its file, LLM ledgers); the seed and ORT threads are the estimate's own. */
  ctx: Omit<PolicyContext, 'seed'>;
  /** A run (arm/seed) not estimated because it has not finished. */
  onSkip?: (key: string, why: string) => void;
  /** Each match as it plays: `label` says which, done/total its episodes. */
  onMatch?: (label: string) => { update(done: number, total: number): void; stop(): void };
  /** Runs settled (stored or found stored) of those to estimate. */
  onProgress?: (done: number, total: number) => void;
}

/**
 * Why an estimate on `speak` cannot be played for these runs, or null when it can: only the
 * validation slice can be missing (a run config without `validation.bankShare` keeps none).
 */
function estimateRefusal(speak: EstimateSlice, runs: readonly { name: string; config: Pick<RunConfig, 'validation'> }[]): string | null {
  if (speak !== 'validation') return null;
  const r = runs.find((x) => !x.config.validation);
  return r ? `${r.name} keeps no validation slice (its config has no validation.bankShare)` : null;
}

/** `estimateRefusal` for a study not created yet: its arms' configs (`sparring study --estimate`, `studies/start`). */
export function newStudyEstimateRefusal(speak: EstimateSlice, arms: readonly string[], configOf: (arm: string) => RunConfig): string | null {
  return estimateRefusal(
    speak,
    arms.map((arm) => ({ name: `arm ${arm}`, config: configOf(arm) })),
  );
}

/** `estimateRefusal` for a stored study's runs (all, or those `only` names by run id), from the configs they were stored with. */
export function storedStudyEstimateRefusal(db: Database, studyId: string, speak: EstimateSlice, only?: ReadonlySet<string>): string | null {
  const config = db.prepare('SELECT config_json FROM runs WHERE id = ?').pluck();
  const runs = studyStore(db)
    .entries(studyId)
    .filter((e) => !only || only.has(e.runId))
    .map((e) => ({ name: `run ${e.runId} (${e.arm}/${e.seed})`, config: JSON.parse(config.get(e.runId) as string) as RunConfig }));
  return estimateRefusal(speak, runs);
}

/** The tables of the estimate already stored for a study (nothing played); null when no run has one. */
export function storedEstimate(
  db: Database,
  studyId: string,
  speak: EstimateSlice,
  baseline?: string,
  scenarios: EstimateScenarios = 'arena',
): EstimateTables | null {
  const studies = studyStore(db);
  const s = studies.get(studyId);
  const rates = db.prepare<[string], { scenario_id: string; da_win_rate: number }>(
    'SELECT scenario_id, da_win_rate FROM match_scenarios WHERE match_id = ? ORDER BY pos',
  );
  const runs = studies.entries(studyId).flatMap((e): EstimateRun[] => {
    const f = studies.evaluation<ArenaEstimateFigures>(studyId, e.arm, e.seed, estimateKind(speak, scenarios));
    if (!f) return [];
    // Routing per scenario is each match's win rate there (routing = the DA won, as in heldoutMetrics).
    const before = rates.all(f.matches.da0);
    const after = new Map(rates.all(f.matches.finalDa).map((r) => [r.scenario_id, r.da_win_rate]));
    const perScenario = before.flatMap((r) => {
      const final = after.get(r.scenario_id);
      return final === undefined ? [] : [{ scenarioId: r.scenario_id, da0: r.da_win_rate, final }];
    });
    return [{ arm: e.arm, seed: e.seed, ...f, ...(perScenario.length ? { perScenario } : {}) }];
  });
  if (!runs.length) return null;
  return estimateTables(speak, s.arms, runs, baseline && s.arms.includes(baseline) ? baseline : s.arms[0]!, scenarios);
}

/** Plays what is missing of a study's estimate on `speak` and returns its tables. */
export async function estimateStudy(store: SqliteRunStore, o: EstimateOptions): Promise<EstimateTables> {
  const studies = studyStore(store.db);
  const s = studies.get(o.studyId);
  if (o.baseline !== undefined && !s.arms.includes(o.baseline))
    throw new StudyEstimateError(`baseline ${o.baseline}: not an arm of study ${o.studyId} (${s.arms.join(', ')})`);
  const set = o.scenarios ?? 'arena';
  const kind = estimateKind(o.speak, set);
  const lab = labDomain(store.db);
  const entries = studies.entries(o.studyId);
  const todo = entries.filter((e) => e.status === 'finished');
  const refused = storedStudyEstimateRefusal(store.db, o.studyId, o.speak, new Set(todo.map((e) => e.runId)));
  if (refused) throw new StudyEstimateError(refused);
  for (const e of entries) if (e.status !== 'finished') o.onSkip?.(`${e.arm}/${e.seed}`, `its run ${e.runId} ${e.status}`);
  let done = 0;
  o.onProgress?.(done, todo.length);
  for (const e of todo) {
    const key = `${e.arm}/${e.seed}`;
    if (!studies.evaluation<ArenaEstimateFigures>(o.studyId, e.arm, e.seed, kind)) {
      const run = runArena(store.db, e.runId, lab)!;
      const speak = o.speak === 'validation' ? run.speakValidation : run.speak;
      if (!speak) throw new Error(`study estimate: run ${e.runId} (${key}) has a validation share but no validation slice`);
      const named = (role: 'DA' | 'CA', order: 'ASC' | 'DESC') =>
        (
          store.db
            .prepare(`SELECT name FROM checkpoints WHERE run_id = ? AND role = ? ORDER BY generation ${order}, rowid ${order} LIMIT 1`)
            .get(e.runId, role) as { name: string } | undefined
        )?.name;
      const [da0, finalDa, finalCa] = [named('DA', 'ASC'), named('DA', 'DESC'), named('CA', 'DESC')];
      if (!da0 || !finalDa || !finalCa) throw new Error(`study estimate: run ${e.runId} (${key}) has no DA or CA checkpoint`);
      const seed = estimateSeed(run.seed);
      // The runs' own thread count, so the figures depend on the seed and config only.
      const ctx: PolicyContext = { ...o.ctx, seed, session: { ...o.ctx.session, intraOpNumThreads: RUN_THREADS } };
      const ca = await resolveCa(finalCa, run.domain, ctx, speak);
      const judge = resolveJudge(run.judge, ctx);
      const play = async (daName: string) => {
        const da = await resolveDa(daName, run.domain, ctx);
        const bar = o.onMatch?.(`estimate ${key}: ${daName} vs ${finalCa}`);
        try {
          const m = await runAndStoreMatch(
            store,
            {
              matchId: nextArenaMatchId(store),
              createdAt: new Date().toISOString(),
              domain: run.domain,
              scenarios: set === 'arena' ? selectScenarios(run.domain, 'arena') : otherIntentScenarios(run.domain, run.domain.bank, 'validation'),
              scenarioSet: set,
              da,
              ca,
              judge,
              config: set === 'arena' ? run.sparring : withEpisodes(run.sparring, OTHER_INTENTS_EPISODES),
              seed,
              concurrency: matchConcurrency(da, ca, 32),
              ...(run.symbolic ? { symbolic: run.symbolic } : {}),
              ...(bar ? { onProgress: (d: number, t: number) => bar.update(d, t) } : {}),
            },
            pendingLlmCalls(o.ctx.db),
          );
          const h = heldoutMetrics(m.episodes);
          return { matchId: m.match.id, metrics: { routing: h.routingAccuracy, strictPass: h.strictPass, episodes: h.episodes } };
        } finally {
          bar?.stop();
        }
      };
      const a = await play(da0);
      const b = da0 === finalDa ? a : await play(finalDa);
      const f: ArenaEstimateFigures = {
        speak: o.speak,
        da0,
        finalDa,
        finalCa,
        matchSeed: seed,
        matches: { da0: a.matchId, finalDa: b.matchId },
        da0Metrics: a.metrics,
        finalMetrics: b.metrics,
      };
      studies.saveEvaluation(o.studyId, e.arm, e.seed, kind, f);
    }
    o.onProgress?.(++done, todo.length);
  }
  return storedEstimate(store.db, o.studyId, o.speak, o.baseline, set) ?? estimateTables(o.speak, s.arms, [], o.baseline ?? s.arms[0]!, set);
}
