/**
 * `sparring study --executor ray --address ADDR`: each (arm, seed) run of a study is a Ray actor on
 * the cluster (trainers/ray_study.py, a small Python driver this module starts with the project's
 * venv python) that runs `node bin/sparring.js --db SHARD run --resume R…` — the run stays a Node
 * process — writing its own lab shard under the shard folder, which every node must see at the
 * same path (shared storage). The coordinator (runner.ts) merges each finished shard into the
 * study's lab (host/store/lab-merge.ts, the run adopted under its id), so progress, `study show`
 * and the Studies screen read the lab as for a local study.
 *
 * Resuming: a job's actor is detached and named after the lab, study, arm and seed, and writes a
 * marker beside its shard when the run ends; a coordinator killed and started again with `study
 * --resume` merges the shards whose marker says done, waits on the actors still running (found by
 * name), and starts only what never ran. A failed attempt is retried (`--retries`, the run resuming
 * in its shard from its last phase boundary) and then reported with its log's last lines.
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, renameSync, rmSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { openSqliteStore } from '../store/sqlite-store';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
export const RAY_DRIVER = path.join(ROOT, 'trainers', 'ray_study.py');
const BIN = path.join(ROOT, 'bin', 'sparring.js');

export interface RayOptions {
  /** The cluster's address (GCS host:port), as `ray start --head` prints it. */
  address: string;
  /** Where shards, their logs and markers go: a folder every node sees at this path. */
  shardDir: string;
  /** The interpreter with Ray installed (--python, SPARRING_PYTHON; default the project's .venv). */
  python?: string;
  /** Ray resources each run holds while it runs. */
  cpusPerRun?: number;
  gpusPerRun?: number;
  /** Attempts after the first before a run is reported failed. */
  retries?: number;
}

export interface RayJobResult {
  code: number;
  /** The last lines of the run's log. */
  tail: string;
  attempts: number;
  /** Where the result came from: a marker written before this coordinator started, or the actor. */
  from: string;
}

/** The interpreter: --python, else SPARRING_PYTHON, else the project's .venv/bin/python. */
export function rayPython(given?: string): string {
  const python = given ?? process.env.SPARRING_PYTHON ?? path.join(ROOT, '.venv', 'bin', 'python');
  if (path.isAbsolute(python) && !existsSync(python))
    throw new Error(
      `--executor ray: no Python at ${python} (give --python or SPARRING_PYTHON, an interpreter with ray installed; npm run python-env makes .venv)`,
    );
  return python;
}

/** The shard of one (arm, seed) of a study of the lab `labId`, and its log and marker. */
export function shardPaths(shardDir: string, labId: string, studyId: string, arm: string, seed: number) {
  const base = path.join(path.resolve(shardDir), `${labId}-${studyId}`, `${arm.replace(/[^A-Za-z0-9_.-]/g, '_')}-seed${seed}`);
  return { db: `${base}.db`, log: `${base}.log`, marker: `${base}.done.json`, name: `sparring-${labId}-${studyId}-${arm}-${seed}` };
}

/**
 * A fresh lab at `shard` holding what the run reads from its lab: the run row (same id, its
 * config) and the lab's custom scenarios, imported corpora and saved LLMs. Nothing when it exists
 * (a run that was started and is resumed there).
 */
export function prepareShard(mainDb: string, shard: string, runId: string): void {
  if (existsSync(shard)) return;
  mkdirSync(path.dirname(shard), { recursive: true });
  const tmp = `${shard}.new`;
  const store = openSqliteStore(tmp);
  store.close();
  const db = new Database(tmp);
  try {
    db.pragma('foreign_keys = ON');
    db.prepare('ATTACH DATABASE ? AS lab').run(mainDb);
    db.transaction(() => {
      for (const t of ['custom_scenarios', 'corpus_imports', 'corpus_utterances', 'llm_endpoints', 'llm_gguf_models'])
        db.exec(`INSERT INTO main.${t} SELECT * FROM lab.${t}`);
      db.prepare('INSERT INTO main.experiments SELECT * FROM lab.experiments WHERE id = (SELECT experiment_id FROM lab.runs WHERE id = ?)').run(runId);
      const n = db.prepare('INSERT INTO main.runs SELECT * FROM lab.runs WHERE id = ?').run(runId).changes;
      if (n !== 1) throw new Error(`${mainDb}: no run ${runId} to hand to a shard`);
      // A run handed out afresh starts from its bootstrap in the shard.
      db.prepare("UPDATE main.runs SET status = 'created', snapshot_json = NULL, error = NULL WHERE id = ?").run(runId);
    })();
    db.exec('DETACH DATABASE lab');
  } finally {
    db.close();
  }
  // Only a complete shard takes the name: a coordinator killed while preparing leaves a .new to redo.
  for (const ext of ['-wal', '-shm']) rmSync(`${tmp}${ext}`, { force: true });
  renameSync(tmp, shard);
}

/** The driver process on this machine, connected to the cluster; jobs are submitted to it by name. */
export interface RayDriver {
  readonly info: { ray: string; cpus: number; gpus: number };
  run(job: {
    name: string;
    runId: string;
    shard: string;
    log: string;
    marker: string;
    onStart?: (attempt: number, reattached: boolean) => void;
  }): Promise<RayJobResult>;
  close(): void;
}

export async function startRayDriver(o: RayOptions): Promise<RayDriver> {
  const python = rayPython(o.python);
  const child: ChildProcess = spawn(python, [RAY_DRIVER, '--address', o.address], { stdio: ['pipe', 'pipe', 'pipe'], cwd: ROOT });
  let stderr = '';
  child.stderr!.on('data', (d: Buffer) => (stderr = (stderr + d.toString()).slice(-4000)));
  const waiting = new Map<string, { resolve: (r: RayJobResult) => void; onStart?: (attempt: number, reattached: boolean) => void }>();
  let ready: (info: RayDriver['info']) => void;
  let failed: (e: Error) => void;
  const readyP = new Promise<RayDriver['info']>((res, rej) => ((ready = res), (failed = rej)));
  let buf = '';
  child.stdout!.on('data', (d: Buffer) => {
    buf += d.toString();
    for (let i = buf.indexOf('\n'); i >= 0; i = buf.indexOf('\n')) {
      const line = buf.slice(0, i).trim();
      buf = buf.slice(i + 1);
      if (!line) continue;
      let m: Record<string, unknown>;
      try {
        m = JSON.parse(line) as Record<string, unknown>;
      } catch {
        continue; // Ray's own chatter
      }
      if (m.ready) ready(m.ready as RayDriver['info']);
      else if (typeof m.started === 'string') waiting.get(m.started)?.onStart?.(Number(m.attempt), m.reattached === true);
      else if (typeof m.done === 'string') {
        const w = waiting.get(m.done);
        waiting.delete(m.done);
        w?.resolve({
          code: Number(m.code),
          tail: typeof m.tail === 'string' ? m.tail : '',
          attempts: Number(m.attempts),
          from: typeof m.from === 'string' ? m.from : '',
        });
      } else if (typeof m.error === 'string') stderr += `\n${m.error}`;
    }
  });
  const gone = (why: string) => {
    const e = new Error(
      `the Ray driver (${python} ${RAY_DRIVER} --address ${o.address}) ${why}${stderr.trim() ? `: ${stderr.trim().split('\n').slice(-6).join('\n')}` : ''}`,
    );
    failed(e);
    for (const [name, w] of waiting) {
      w.resolve({ code: -1, tail: e.message, attempts: 0, from: 'driver' });
      waiting.delete(name);
    }
  };
  child.on('error', (e) => gone(`could not start (${e.message})`));
  child.on('exit', (code, signal) => gone(`exited (${signal ?? `code ${code}`})`));
  const info = await readyP;
  return {
    info,
    run(job) {
      return new Promise<RayJobResult>((resolve) => {
        waiting.set(job.name, { resolve, ...(job.onStart ? { onStart: job.onStart } : {}) });
        const submit = {
          name: job.name,
          argv: [process.execPath, BIN, '--db', job.shard, 'run', '--resume', job.runId],
          cwd: ROOT,
          env: { ORT_DISABLE_TELEMETRY: '1' },
          log: job.log,
          marker: job.marker,
          cpus: o.cpusPerRun ?? 1,
          gpus: o.gpusPerRun ?? 0,
          retries: o.retries ?? 2,
        };
        child.stdin!.write(JSON.stringify({ submit }) + '\n');
      });
    },
    close() {
      child.removeAllListeners('exit');
      child.stdin!.end();
      child.kill('SIGTERM');
    },
  };
}
