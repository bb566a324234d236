/**
 * Runs a study: every (arm, seed) is an ordinary run of the lab, executed in parallel worker
 * processes (study-worker.ts, default one per core). A study killed at any moment resumes with
 * the same call: finished runs are kept, interrupted ones resume from their last phase
 * boundary, so nothing runs twice. A worker that dies fails its (arm, seed) with the reason and
 * the rest go on; `--resume` retries such an entry from its run's last boundary.
 *
 * Order: a fixed-opponent arm takes the DA gym budget of the `full` run of the same seed, so it
 * waits for that run; then its final DA is also evaluated against that run's final CA.
 */
import { fork } from 'node:child_process';
import { availableParallelism } from 'node:os';
import { ARMS, armConfig, isArmName } from '../../core/coevolution/arms';
import { RUN_THREADS } from '../../core/coevolution/run-config';
import type { ArmSpec } from '../../core/coevolution/arms';
import type { StudyRunStatus } from '../../core/coevolution/study-summary';
import { createRunReader } from '../coevolution/run-reader';
import { openSqliteStore } from '../store/sqlite-store';
import { STUDY_HEARTBEAT_MS, studyStore } from './study-store';
import type { StudyEntry } from './study-store';
import type { WorkerMessage } from './study-worker';
import { existsSync } from 'node:fs';
import Database from 'better-sqlite3';
import { labId, mergeLab } from '../store/lab-merge';
import { prepareShard, shardPaths, startRayDriver } from './ray-executor';
import type { RayDriver, RayOptions } from './ray-executor';

export interface StudyJobView {
  arm: string;
  seed: number;
  runId: string;
  kind: 'run' | 'eval';
  phase: string;
  label: string;
  /** Estimated share of the job done, 0..1. */
  fraction: number;
}

export interface StudyProgress {
  studyId: string;
  /** Jobs: one run per (arm, seed) plus one evaluation per fixed-opponent (arm, seed). */
  total: number;
  finished: number;
  failed: number;
  /** finished + failed + the running jobs' fractions: what a progress bar shows. */
  value: number;
  running: StudyJobView[];
}

export interface RunStudyOptions {
  dbPath: string;
  studyId: string;
  /** Worker processes (default: one per core). */
  workers?: number;
  onProgress?: (p: StudyProgress) => void;
  /**
   * Run each (arm, seed) as a task on a Ray cluster (ray-executor.ts), each in its own lab shard
   * merged into this lab when it ends; the fixed-opponent evaluations still run here.
   */
  ray?: RayOptions;
  /** Ray: a shard was merged into the lab (seconds the merge took, rows it added). */
  onMerge?: (m: { arm: string; seed: number; runId: string; shard: string; seconds: number; rows: number; attempts: number; from: string }) => void;
  /** Ray: the driver is connected (the Ray version and the cluster's resources). */
  onRay?: (info: RayDriver['info']) => void;
  /** An (arm, seed) settled: finished, or failed with the reason. */
  onEntry?: (e: { arm: string; seed: number; runId: string; kind: 'run' | 'eval'; status: StudyRunStatus; error: string | null; seconds: number }) => void;
}

interface Job {
  kind: 'run' | 'eval';
  entry: StudyEntry;
}

const WORKER = new URL('./study-worker-entry.mjs', import.meta.url);
const FINAL_OK = ['finished', 'stopped'];

export function defaultWorkers(): number {
  return Math.max(1, availableParallelism());
}

export async function runStudy(opts: RunStudyOptions): Promise<void> {
  const workers = Math.max(1, opts.workers ?? defaultWorkers());
  // One onnxruntime thread per worker whatever the worker count: the thread count is part of a
  // run's numbers (RUN_THREADS), so `--workers 1` and the default give the same tables.
  const threads = RUN_THREADS;
  const store = openSqliteStore(opts.dbPath);
  const db = store.db;
  const studies = studyStore(db);
  const reader = createRunReader(db, opts.dbPath, () => undefined);
  const study = studies.get(opts.studyId);
  const nMax = study.base.stopping.nMax;
  const lab = labId(db)!;
  const specOf = (arm: string): ArmSpec | null => (isArmName(arm) ? ARMS[arm] : null);

  let driver: RayDriver | null = null;
  if (opts.ray) {
    try {
      driver = await startRayDriver(opts.ray);
    } catch (err) {
      store.close();
      throw err;
    }
    opts.onRay?.(driver.info);
  }
  let owned: ReturnType<typeof studies.claim>;
  try {
    owned = studies.claim(study.id);
  } catch (err) {
    driver?.close();
    store.close();
    throw err;
  }
  // The heartbeat says this process still runs the study (a killed one's goes stale: 'interrupted').
  const heartbeat = setInterval(() => owned.beat(), STUDY_HEARTBEAT_MS);
  heartbeat.unref();
  try {
    studies.setStatus(study.id, 'running');
    const entries = studies.entries(study.id);
    const entryOf = (arm: string, seed: number) => entries.find((e) => e.arm === arm && e.seed === seed);
    // What the lab says of each run: kept results, and the runs still to (re)start.
    const todo: Job[] = [];
    let finished = 0;
    let failed = 0;
    for (const e of entries) {
      const run = reader.get(e.runId);
      if (FINAL_OK.includes(run.status)) {
        if (e.status !== 'finished') studies.setEntry(study.id, e.arm, e.seed, 'finished', null, e.seconds);
        e.status = 'finished';
      } else if (run.status === 'failed') {
        if (e.status !== 'failed') studies.setEntry(study.id, e.arm, e.seed, 'failed', run.error, e.seconds);
        e.status = 'failed';
      } else {
        e.status = 'pending';
        todo.push({ kind: 'run', entry: e });
      }
      if (specOf(e.arm)?.budgetFromFull && studies.evaluation(study.id, e.arm, e.seed, 'vs-full-ca') === null) todo.push({ kind: 'eval', entry: e });
    }
    const total = entries.length + entries.filter((e) => specOf(e.arm)?.budgetFromFull).length;
    finished = total - todo.length - entries.filter((e) => e.status === 'failed').length;
    failed = entries.filter((e) => e.status === 'failed').length;
    // An evaluation whose run already failed never runs: count it with the failures.
    for (let i = todo.length - 1; i >= 0; i--) {
      const j = todo[i]!;
      if (j.kind === 'eval' && j.entry.status === 'failed') {
        todo.splice(i, 1);
        failed++;
      }
    }

    const running = new Map<string, { job: Job; view: StudyJobView }>();
    const report = () =>
      opts.onProgress?.({
        studyId: study.id,
        total,
        finished,
        failed,
        running: [...running.values()].map((r) => r.view),
        value: finished + failed + [...running.values()].reduce((s, r) => s + r.view.fraction, 0),
      });

    /** Whether a job can start now, must wait, or can never run (a run it depends on failed). */
    const readiness = (j: Job): 'ready' | 'wait' | { never: string } => {
      const spec = specOf(j.entry.arm);
      if (j.kind === 'run' && !spec?.budgetFromFull) return 'ready';
      const full = entryOf('full', j.entry.seed);
      if (!full) return { never: `the study has no full run of seed ${j.entry.seed}` };
      if (full.status === 'failed') return { never: `the full run of seed ${j.entry.seed} (${full.runId}) failed` };
      if (full.status !== 'finished') return 'wait';
      if (j.kind === 'eval') {
        if (j.entry.status === 'failed') return { never: `its run ${j.entry.runId} failed` };
        if (j.entry.status !== 'finished') return 'wait';
      }
      return 'ready';
    };

    const settle = (j: Job, status: StudyRunStatus, error: string | null, seconds: number) => {
      if (j.kind === 'run') {
        j.entry.status = status;
        j.entry.error = error;
        studies.setEntry(study.id, j.entry.arm, j.entry.seed, status, error, seconds);
      }
      if (status === 'finished') finished++;
      else failed++;
      opts.onEntry?.({ arm: j.entry.arm, seed: j.entry.seed, runId: j.entry.runId, kind: j.kind, status, error, seconds });
    };

    const start = (j: Job): Promise<void> => {
      const e = j.entry;
      if (j.kind === 'run') {
        const spec = specOf(e.arm);
        if (spec?.budgetFromFull) {
          // The full run's DA gym count is this arm's budget (written before the run's first snapshot only).
          const daGyms = reader.get(entryOf('full', e.seed)!.runId).gyms.filter((g) => g.role === 'DA').length;
          studies.setRunConfig(e.runId, armConfig(study.base, e.arm as Parameters<typeof armConfig>[1], daGyms));
        }
        studies.setEntry(study.id, e.arm, e.seed, 'running', null, null);
        e.status = 'running';
      }
      const key = `${j.kind}:${e.arm}/${e.seed}`;
      const view: StudyJobView = {
        arm: e.arm,
        seed: e.seed,
        runId: e.runId,
        kind: j.kind,
        phase: j.kind === 'eval' ? 'evaluate' : 'bootstrap',
        label: '',
        fraction: 0,
      };
      running.set(key, { job: j, view });
      report();
      const started = Date.now();
      if (driver && j.kind === 'run') return onRay(driver, j, key, view, started);
      const args =
        j.kind === 'run'
          ? ['run', opts.dbPath, e.runId, e.arm, String(e.seed), String(threads), study.id]
          : ['eval', opts.dbPath, study.id, e.arm, String(e.seed), String(threads)];
      return new Promise<void>((resolve) => {
        const child = fork(WORKER, args, { execArgv: [], stdio: ['ignore', 'ignore', 'pipe', 'ipc'] });
        let stderr = '';
        child.stderr!.on('data', (d: Buffer) => (stderr = (stderr + d.toString()).slice(-4000)));
        child.on('message', (m: WorkerMessage) => {
          if (m.kind !== 'progress') return;
          view.phase = m.phase;
          view.label = m.label;
          const f = m.total > 0 ? m.done / m.total : 0;
          view.fraction =
            j.kind === 'eval' ? f : m.phase === 'bootstrap' ? 0.3 * f : m.phase === 'evaluate' ? 0.9 + 0.1 * f : 0.3 + 0.6 * Math.min(1, m.matches / nMax);
          report();
        });
        child.on('exit', (code, signal) => {
          running.delete(key);
          const seconds = (Date.now() - started) / 1000;
          const lastLine =
            stderr
              .trim()
              .split('\n')
              .filter((l) => !/^npm warn/.test(l))
              .at(-1) ?? '';
          if (j.kind === 'eval') {
            const ok = studies.evaluation(study.id, e.arm, e.seed, 'vs-full-ca') !== null;
            settle(
              j,
              ok ? 'finished' : 'failed',
              ok ? null : `evaluation against the full arm's final CA: worker exited (${signal ?? `code ${code}`})${lastLine ? `: ${lastLine}` : ''}`,
              seconds,
            );
          } else {
            const run = reader.get(e.runId);
            if (FINAL_OK.includes(run.status)) settle(j, 'finished', null, seconds);
            else if (run.status === 'failed') settle(j, 'failed', run.error ?? `run ${e.runId} failed`, seconds);
            else
              settle(
                j,
                'failed',
                `worker process died (${signal ?? `exit code ${code}`}) in phase ${run.phase}${lastLine ? `: ${lastLine}` : ''}; \`sparring study --resume ${study.id}\` continues it`,
                seconds,
              );
          }
          report();
          resolve();
        });
      });
    };

    /** One run on the Ray cluster: its shard prepared (unless it ran before), run or awaited there, merged here. */
    const onRay = async (d: RayDriver, j: Job, key: string, view: StudyJobView, started: number): Promise<void> => {
      const e = j.entry;
      const p = shardPaths(opts.ray!.shardDir, lab, study.id, e.arm, e.seed);
      if (!existsSync(p.marker)) prepareShard(opts.dbPath, p.db, e.runId);
      view.phase = 'queued';
      view.label = 'waiting for the Ray cluster';
      report();
      // The shard's own lab says how far the run is (read-only, every few seconds) for the progress bar and ETA.
      const poll = setInterval(() => {
        try {
          const s = new Database(p.db, { readonly: true, fileMustExist: true });
          try {
            const row = s.prepare('SELECT snapshot_json FROM runs WHERE id = ?').pluck().get(e.runId) as string | null | undefined;
            if (!row) return;
            const snap = JSON.parse(row) as { value?: unknown; context?: { matches?: unknown[] } };
            const phase = typeof snap.value === 'string' ? snap.value : 'arena';
            const matches = snap.context?.matches?.length ?? 0;
            view.phase = phase === 'evaluate' ? 'evaluate' : 'arena';
            view.fraction = phase === 'evaluate' ? 0.9 : 0.3 + 0.6 * Math.min(1, matches / nMax);
            report();
          } finally {
            s.close();
          }
        } catch {
          // not written yet, or being written: the next poll reads it
        }
      }, 2000);
      poll.unref();
      let r: Awaited<ReturnType<RayDriver['run']>>;
      try {
        r = await d.run({
          name: p.name,
          runId: e.runId,
          shard: p.db,
          log: p.log,
          marker: p.marker,
          onStart: (attempt, reattached) => {
            view.phase = 'bootstrap';
            view.label = reattached ? 'reattached on the Ray cluster' : attempt > 1 ? `attempt ${attempt} on the Ray cluster` : 'on the Ray cluster';
            report();
          },
        });
      } finally {
        clearInterval(poll);
      }
      running.delete(key);
      const seconds = (Date.now() - started) / 1000;
      let mergeError: string | null = null;
      if (existsSync(p.db)) {
        try {
          const m = mergeLab(db, p.db, { adopt: { runs: [e.runId] }, sourceName: `shard-${e.arm}-${e.seed}` });
          const rows = Object.values(m.tables).reduce((n, c) => n + c.added, 0);
          opts.onMerge?.({ arm: e.arm, seed: e.seed, runId: e.runId, shard: p.db, seconds: m.seconds, rows, attempts: r.attempts, from: r.from });
        } catch (err) {
          mergeError = `its shard ${p.db} could not be merged: ${(err as Error).message}`;
        }
      }
      const run = reader.get(e.runId);
      const tail = r.tail.trim() ? `; the last lines of ${p.log}:\n${r.tail.trim()}` : '';
      if (mergeError) settle(j, 'failed', mergeError, seconds);
      else if (FINAL_OK.includes(run.status)) settle(j, 'finished', null, seconds);
      else if (run.status === 'failed')
        settle(j, 'failed', `${run.error ?? `run ${e.runId} failed`} (on the Ray cluster, ${r.attempts} attempt(s))${tail}`, seconds);
      else
        settle(
          j,
          'failed',
          `on the Ray cluster: the run ended with code ${r.code} after ${r.attempts} attempt(s) in phase ${run.phase}${tail}; \`sparring study --resume ${study.id}\` continues it`,
          seconds,
        );
      report();
    };

    report();
    // Schedule: full runs first (others wait on them), then the rest in the study's order.
    const queue = [...todo].sort(
      (a, b) => Number(b.entry.arm === 'full') - Number(a.entry.arm === 'full') || Number(a.kind === 'eval') - Number(b.kind === 'eval'),
    );
    const inFlight = new Set<Promise<void>>();
    for (;;) {
      for (let i = 0; i < queue.length && inFlight.size < workers;) {
        const j = queue[i]!;
        const r = readiness(j);
        if (r === 'wait') {
          i++;
          continue;
        }
        queue.splice(i, 1);
        if (r !== 'ready') {
          settle(j, 'failed', `not run: ${r.never}`, 0);
          report();
          continue;
        }
        const p = start(j).finally(() => inFlight.delete(p));
        inFlight.add(p);
      }
      if (!inFlight.size) break;
      await Promise.race(inFlight);
    }
    // Anything left waits on a run that never came (cannot happen once every run has settled).
    for (const j of queue) settle(j, 'failed', 'not run: what it waited for did not finish', 0);
    studies.setStatus(study.id, studies.allFinished(study.id) && failed === 0 ? 'finished' : 'failed');
  } finally {
    clearInterval(heartbeat);
    driver?.close();
    owned.release();
    store.close();
  }
}
