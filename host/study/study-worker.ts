/**
 * One (arm, seed) of a study in its own process (forked by runner.ts): resumes the run the study
 * created (a run with no snapshot starts from bootstrap) until it settles, or evaluates a
 * fixed-opponent arm's final DA against the full arm's final CA of the same seed. Reports
 * progress to the parent over IPC; exits at once when the parent goes (a killed study), leaving
 * the run at its last phase boundary for `study --resume`.
 *
 * argv: run <db> <runId> <arm> <seed> <threads> | eval <db> <studyId> <arm> <seed> <threads>
 * SPARRING_STUDY_CRASH=<arm>/<seed>: exit with code 70 after that run's first match (fault
 * injection for tests of a crashing worker).
 */
import { parseRunConfig, sparringConfigOf } from '../../core/coevolution/run-config';
import { withAdversityProfile } from '../../core/world/adversities';
import { PolicyCache, evaluate } from '../coevolution/actors';
import type { LabContext } from '../coevolution/lab-context';
import { createRunReader } from '../coevolution/run-reader';
import { createRunService } from '../coevolution/service';
import { checkpointStore } from '../store/checkpoint-store';
import { labDomain } from '../store/scenario-store';
import { openSqliteStore } from '../store/sqlite-store';
import { studyStore } from './study-store';
import { exitWithParent } from './parent-watch';

export type WorkerMessage =
  { kind: 'progress'; phase: string; label: string; done: number; total: number; matches: number } | { kind: 'done'; status: string; error: string | null };

const send = (m: WorkerMessage) => process.send?.(m);
process.on('disconnect', () => process.exit(75));
// And at once even inside a long synchronous step, which 'disconnect' waits for: the watcher
// is running before the first step starts.
const watching = exitWithParent();

// run: id is the run and studyId its study; eval: id is the study.
const [mode, dbPath, id, arm, seedText, threadsText, studyId] = process.argv.slice(2) as [string, string, string, string, string, string, string?];
const seed = Number(seedText);
const session = { intraOpNumThreads: Math.max(1, Number(threadsText) || 1) };

async function runOne(runId: string): Promise<void> {
  // The study's runs share each seed's bootstrap (host/coevolution/bootstrap-reuse.ts).
  const service = createRunService({ dbPath, session, ...(studyId ? { bootstrapScope: `study ${studyId}` } : {}) });
  let matches = 0;
  let phase = 'bootstrap';
  const crash = process.env.SPARRING_STUDY_CRASH === `${arm}/${seed}`;
  service.subscribe((e) => {
    if (e.name === 'run/progress')
      send({ kind: 'progress', phase, label: e.payload.progress.label, done: e.payload.progress.done, total: e.payload.progress.total, matches });
    else if (e.name === 'run/status') phase = e.payload.phase;
    else if (e.name === 'run/match') {
      matches = e.payload.match.index;
      if (crash) process.exit(70);
    }
  });
  try {
    await service.resume(runId);
    const d = await service.settled(runId);
    send({ kind: 'done', status: d.status, error: d.error });
  } finally {
    await service.close();
  }
}

async function evalAgainstFullCa(studyId: string): Promise<void> {
  const store = openSqliteStore(dbPath);
  try {
    const db = store.db;
    const studies = studyStore(db);
    const entries = studies.entries(studyId);
    const mine = entries.find((e) => e.arm === arm && e.seed === seed);
    const full = entries.find((e) => e.arm === 'full' && e.seed === seed);
    if (!mine || !full) throw new Error(`study ${studyId} has no ${!mine ? arm : 'full'} run of seed ${seed}`);
    const reader = createRunReader(db, dbPath, () => undefined);
    const run = reader.get(mine.runId);
    const fullRun = reader.get(full.runId);
    const da = run.matchSummaries.at(-1)?.da;
    const ca = fullRun.matchSummaries.at(-1)?.ca;
    if (!da || !ca) throw new Error(`study ${studyId}: ${!da ? `run ${run.id}` : `run ${fullRun.id}`} played no match`);
    const config = parseRunConfig(run.configJson, `run ${run.id} config`);
    const domain = labDomain(db);
    const checkpoints = checkpointStore(db);
    const ctx: LabContext = {
      runId: run.id,
      seed: run.seed,
      domain: config.adversities ? withAdversityProfile(domain) : domain,
      config,
      sparring: sparringConfigOf(config),
      store,
      checkpoints,
      session,
      progress: (p) => send({ kind: 'progress', phase: 'evaluate', label: p.label, done: p.done, total: p.total, matches: 0 }),
      metric: () => undefined,
      stopped: () => false,
    };
    const cache = new PolicyCache({ checkpoints, domain: ctx.domain, session, dbPath: store.path });
    try {
      // The run's own protocol: the same seeds (from the run's seed) and episode counts.
      const r = await evaluate(ctx, cache, { runId: run.id, da: [da], ca, seed: run.seed });
      const { episodes, routingAccuracy, strictPass, fail, meanReward, lookupFirst } = r.checkpoints[0]!.heldout;
      studies.saveEvaluation(studyId, arm, seed, 'vs-full-ca', { episodes, routingAccuracy, strictPass, fail, meanReward, lookupFirst });
    } finally {
      await cache.dispose();
    }
    send({ kind: 'done', status: 'finished', error: null });
  } finally {
    store.close();
  }
}

try {
  await watching;
  if (mode === 'run') await runOne(id);
  else if (mode === 'eval') await evalAgainstFullCa(id);
  else throw new Error(`study worker: unknown mode "${mode}"`);
  process.exit(0);
} catch (err) {
  process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
}
