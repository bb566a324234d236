/**
 * The RunService of `sparring serve` and the desktop app's engine: the runner works on a worker thread (run-worker.ts), so a
 * training step or a match never holds up the server's event loop. Run queries (list, get,
 * metrics) are answered here from this thread's own connection to the lab, overlaid with what the
 * worker reports (which runs are live, their latest progress); commands go to the worker. Kill
 * and resume behave as in-process: the worker persists the machine at every phase boundary.
 */
import { Worker } from 'node:worker_threads';
import type { LiveView } from './run-reader';
import type { EngineEvent, RunService } from '../../core/contract/run-service';
import type { ProviderChoice } from '../../core/contract/device';
import { openSqliteStore } from '../store/sqlite-store';
import type { WorkerRequest } from './run-worker';
import { createRunReader } from './run-reader';
import { presetInfos } from './service';

export interface WorkerRunService extends RunService {
  close(): Promise<void>;
}

type Reply = { id: number; ok: true; result: unknown } | { id: number; ok: false; error: string };

export interface WorkerRunServiceOptions {
  dbPath: string;
  /**
   * The worker's module: by default the entry that loads run-worker.ts from sources (the CLI and
   * `sparring serve`); the desktop app passes its bundled run-worker.js.
   */
  workerUrl?: URL;
  /** The provider of runs whose config has no `device` block (RunServiceOptions.provider). */
  provider?: ProviderChoice;
}

export function createWorkerRunService(opts: WorkerRunServiceOptions): WorkerRunService {
  const store = openSqliteStore(opts.dbPath);
  const live = new Map<string, LiveView>();
  const reader = createRunReader(store.db, opts.dbPath, (runId) => live.get(runId));
  const listeners = new Set<(e: EngineEvent) => void>();
  const pending = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
  let nextId = 1;
  let broken: Error | null = null;

  // execArgv: [] — the worker must not inherit the parent's flags: under a test runner's fork they
  // carry loader hooks that made the worker's native addons abort the process (Napi::Error); the
  // entry registers tsx itself.
  const worker = new Worker(opts.workerUrl ?? new URL('./run-worker-entry.mjs', import.meta.url), {
    workerData: { dbPath: opts.dbPath, provider: opts.provider },
    execArgv: [],
  });
  worker.on('message', (m: Reply | { event: EngineEvent }) => {
    if ('event' in m) return onEvent(m.event);
    const p = pending.get(m.id);
    pending.delete(m.id);
    if (m.ok) p?.resolve(m.result);
    else p?.reject(new Error(m.error));
  });
  const fail = (err: Error) => {
    broken = new Error(`the co-evolution runner's thread stopped: ${err.message}`);
    for (const p of pending.values()) p.reject(broken);
    pending.clear();
    live.clear();
  };
  worker.on('error', fail);
  worker.on('exit', (code) => code !== 0 && fail(new Error(`exit code ${code}`)));

  function onEvent(e: EngineEvent): void {
    if (e.name === 'run/status') {
      if (e.payload.status === 'finished' || e.payload.status === 'failed' || e.payload.status === 'stopped') live.delete(e.payload.runId);
      else live.set(e.payload.runId, { progress: live.get(e.payload.runId)?.progress ?? null, pauseRequested: e.payload.pauseRequested });
    } else if (e.name === 'run/progress') {
      const l = live.get(e.payload.runId);
      if (l) l.progress = e.payload.progress;
    }
    for (const l of listeners) l(e);
  }

  function call(method: WorkerRequest['method'], args: unknown): Promise<unknown> {
    if (broken) return Promise.reject(broken);
    const id = nextId++;
    return new Promise((resolve, reject) => {
      pending.set(id, { resolve, reject });
      worker.postMessage({ id, method, args });
    });
  }

  /** pause and stop answer at once (the contract's are synchronous); a refusal by the worker is logged. */
  function command(method: 'pause' | 'stop', runId: string): void {
    if (broken) throw broken;
    if (!live.has(runId)) throw new Error(`run ${runId} is not running in this process`);
    call(method, runId).catch((err: unknown) => process.stderr.write(`sparring: ${method} ${runId}: ${String(err)}\n`));
  }

  return {
    presets: presetInfos,
    async start(args) {
      const r = (await call('start', args)) as { runId: string };
      live.set(r.runId, live.get(r.runId) ?? { progress: null });
      return r;
    },
    pause: (runId) => command('pause', runId),
    stop: (runId) => command('stop', runId),
    async resume(runId) {
      await call('resume', runId);
      live.set(runId, live.get(runId) ?? { progress: null });
    },
    list: reader.list,
    get: reader.get,
    metrics: reader.metrics,
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    async close() {
      if (!broken) await call('close', null).catch(() => undefined);
      // The worker leaves by itself once a model call still in flight has returned: terminating
      // it during a native onnxruntime call aborts the whole process (Napi::Error in a torn-down
      // environment). terminate() only when it does not leave within the grace period.
      const exited = new Promise<boolean>((resolve) => worker.once('exit', () => resolve(true)));
      const left = worker.threadId === -1 || (await Promise.race([exited, new Promise<boolean>((r) => setTimeout(() => r(false), 20_000).unref())]));
      if (!left) await worker.terminate();
      store.close();
    },
  };
}
