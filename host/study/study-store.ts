/**
 * Studies in the lab (migration 11): a study's arms and seeds, one run per (arm, seed), and the
 * evaluations the study adds. Run rows are created with the study, in arm × seed order and
 * status 'created', so a study's run ids do not depend on which worker starts first.
 */
import { hostname } from 'node:os';
import type { Database } from 'better-sqlite3';
import type { RunConfig } from '../../core/coevolution/run-config';
import type { HeldoutFigures, StudyRunStatus } from '../../core/coevolution/study-summary';

export interface StudyRow {
  id: string;
  createdAt: string;
  preset: string;
  base: RunConfig;
  arms: string[];
  seeds: number[];
  /**
   * As stored, except 'interrupted': stored 'running' but no live process owns it (killed, or
   * its machine restarted); `sparring study --resume` continues it.
   */
  status: 'running' | 'interrupted' | 'finished' | 'failed';
  /** The process running it now (alive or not), null when none claimed it. */
  owner: StudyOwner | null;
  /**
   * Made for choosing settings on the arena (`sparring study --arena-only`, migration 25): every
   * view of it (study show, report --study, the Studies screen) leaves out held-out and panel
   * figures unless they are asked for by name, and the study plays no panel step.
   */
  arenaOnly: boolean;
}

/** The process that claimed a study to run it, and when it last said it was alive. */
export interface StudyOwner {
  host: string;
  pid: number;
  heartbeatAt: string;
}

/** How often a running study's owner writes its heartbeat. */
export const STUDY_HEARTBEAT_MS = 10_000;
/** An owner not heard from for this long is gone, whatever its pid (another host's, or a pid reused after a crash). */
export const STUDY_STALE_MS = 60_000;

/** Is the owner still running the study: heard from lately and, on this host, its process alive? */
export function ownerAlive(o: StudyOwner, now = Date.now(), host = hostname()): boolean {
  if (!(now - Date.parse(o.heartbeatAt) <= STUDY_STALE_MS)) return false;
  if (o.host !== host) return true;
  try {
    process.kill(o.pid, 0);
    return true;
  } catch (err) {
    // EPERM: the process exists but belongs to another user.
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** A second process asked to run a study that a live one runs. */
export class StudyBusyError extends Error {
  override name = 'StudyBusyError';
}

export interface StudyEntry {
  arm: string;
  seed: number;
  runId: string;
  status: StudyRunStatus;
  error: string | null;
  seconds: number | null;
}

/** A new run id (R<n>) per config, in order, inside the caller's write transaction. */
function insertRuns(db: Database, preset: string, rows: readonly { seed: number; config: RunConfig }[], arenaOnly: boolean): string[] {
  const count = db.prepare('SELECT COUNT(*) FROM runs').pluck();
  const exists = db.prepare('SELECT 1 FROM runs WHERE id = ?').pluck();
  const insert = db.prepare('INSERT INTO runs (id, created_at, updated_at, status, seed, config_json, preset, arena_only) VALUES (?, ?, ?, ?, ?, ?, ?, ?)');
  // The same numbering as the run service (COUNT + 1), stepping past an id a deleted run left taken.
  let n = (count.get() as number) + 1;
  return rows.map((r) => {
    while (exists.get(`R${n}`) !== undefined) n++;
    const id = `R${n++}`;
    const now = new Date().toISOString();
    insert.run(id, now, now, 'created', r.seed, JSON.stringify(r.config), preset, arenaOnly ? 1 : 0);
    return id;
  });
}

export function studyStore(db: Database) {
  const getStudy = db.prepare('SELECT * FROM studies WHERE id = ?');
  const entriesOf = db.prepare('SELECT arm, seed, run_id AS runId, status, error, seconds FROM study_runs WHERE study_id = ?');
  const setEntry = db.prepare('UPDATE study_runs SET status = ?, error = ?, seconds = ? WHERE study_id = ? AND arm = ? AND seed = ?');
  const setStatus = db.prepare('UPDATE studies SET status = ?, updated_at = ? WHERE id = ?');

  const setOwner = db.prepare('UPDATE studies SET owner_host = ?, owner_pid = ?, heartbeat_at = ? WHERE id = ?');
  const beat = db.prepare('UPDATE studies SET heartbeat_at = ? WHERE id = ? AND owner_host = ? AND owner_pid = ?');
  const letGo = db.prepare('UPDATE studies SET owner_host = NULL, owner_pid = NULL, heartbeat_at = NULL WHERE id = ? AND owner_host = ? AND owner_pid = ?');

  const toStudy = (r: Record<string, unknown>): StudyRow => {
    const owner = r.owner_pid === null ? null : { host: r.owner_host as string, pid: r.owner_pid as number, heartbeatAt: r.heartbeat_at as string };
    const stored = r.status as 'running' | 'finished' | 'failed';
    return {
      id: r.id as string,
      createdAt: r.created_at as string,
      preset: r.preset as string,
      base: JSON.parse(r.base_config_json as string) as RunConfig,
      arms: JSON.parse(r.arms_json as string) as string[],
      seeds: JSON.parse(r.seeds_json as string) as number[],
      status: stored === 'running' && !(owner && ownerAlive(owner)) ? 'interrupted' : stored,
      owner,
      arenaOnly: r.arena_only === 1,
    };
  };

  return {
    /**
     * A new study S<n> with one run per (arm, seed) in arm-major order. `configOf` gives each
     * run's config (a fixed-opponent arm's is rewritten with its budget before it starts). This
     * process owns it (the creator runs it next: `runStudy`'s claim keeps it).
     */
    create(args: {
      preset: string;
      base: RunConfig;
      arms: readonly string[];
      seeds: readonly number[];
      configOf: (arm: string, seed: number) => RunConfig;
      /** See StudyRow.arenaOnly; default false. */
      arenaOnly?: boolean;
    }): StudyRow {
      const create = db.transaction(() => {
        const n = (db.prepare('SELECT COUNT(*) FROM studies').pluck().get() as number) + 1;
        let id = `S${n}`;
        for (let k = n; getStudy.get(id) !== undefined;) id = `S${++k}`;
        const now = new Date().toISOString();
        db.prepare(
          'INSERT INTO studies (id, created_at, updated_at, preset, base_config_json, arms_json, seeds_json, status, arena_only) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)',
        ).run(id, now, now, args.preset, JSON.stringify(args.base), JSON.stringify(args.arms), JSON.stringify(args.seeds), 'running', args.arenaOnly ? 1 : 0);
        setOwner.run(hostname(), process.pid, now, id);
        const pairs = args.arms.flatMap((arm) => args.seeds.map((seed) => ({ arm, seed, config: args.configOf(arm, seed) })));
        const runIds = insertRuns(db, args.preset, pairs, args.arenaOnly === true);
        const ins = db.prepare('INSERT INTO study_runs (study_id, arm, seed, run_id, status) VALUES (?, ?, ?, ?, ?)');
        pairs.forEach((p, i) => ins.run(id, p.arm, p.seed, runIds[i], 'pending'));
        return id;
      });
      return this.get(create.immediate());
    },
    get(id: string): StudyRow {
      const r = getStudy.get(id) as Record<string, unknown> | undefined;
      if (!r) throw new Error(`no study "${id}" in ${db.name}`);
      return toStudy(r);
    },
    list(): StudyRow[] {
      return (db.prepare('SELECT * FROM studies ORDER BY created_at, rowid').all() as Record<string, unknown>[]).map(toStudy);
    },
    /** The study's (arm, seed) entries in arm × seed order of the study; an interrupted study's running ones are 'interrupted'. */
    entries(id: string): StudyEntry[] {
      const s = this.get(id);
      const rows = entriesOf.all(id) as StudyEntry[];
      const rank = (e: StudyEntry) => s.arms.indexOf(e.arm) * 1e6 + s.seeds.indexOf(e.seed);
      if (s.status === 'interrupted') for (const e of rows) if (e.status === 'running') e.status = 'interrupted';
      return rows.sort((a, b) => rank(a) - rank(b));
    },
    /** Why this process may not run the study now (another live process runs it), or null. */
    busy(id: string): string | null {
      const { owner } = this.get(id);
      if (!owner || !ownerAlive(owner) || (owner.host === hostname() && owner.pid === process.pid)) return null;
      const ago = Math.max(0, Math.round((Date.now() - Date.parse(owner.heartbeatAt)) / 1000));
      return `study ${id} is being run by process ${owner.pid} on ${owner.host} (heard from ${ago} s ago); wait for it to finish, or stop that process and resume`;
    },
    /**
     * Make this process the study's owner, or throw StudyBusyError when a live process already
     * runs it (one study, one runner: two would start the same runs twice). Returns the release.
     */
    claim(id: string): { beat(): void; release(): void } {
      const me = { host: hostname(), pid: process.pid };
      db.transaction(() => {
        const busy = this.busy(id);
        if (busy) throw new StudyBusyError(busy);
        setOwner.run(me.host, me.pid, new Date().toISOString(), id);
      }).immediate();
      return {
        beat: () => void beat.run(new Date().toISOString(), id, me.host, me.pid),
        release: () => void letGo.run(id, me.host, me.pid),
      };
    },
    /** Has every (arm, seed) of the study finished (what its panel and its estimate wait for)? */
    allFinished(id: string): boolean {
      return this.entries(id).every((e) => e.status === 'finished');
    },
    setEntry(id: string, arm: string, seed: number, status: StudyRunStatus, error: string | null, seconds: number | null): void {
      setEntry.run(status, error, seconds, id, arm, seed);
    },
    setStatus(id: string, status: 'running' | 'finished' | 'failed'): void {
      setStatus.run(status, new Date().toISOString(), id);
    },
    /** Rewrite a run's config before it starts (a fixed-opponent arm's DA gym budget). */
    setRunConfig(runId: string, config: RunConfig): void {
      db.prepare('UPDATE runs SET config_json = ? WHERE id = ? AND snapshot_json IS NULL').run(JSON.stringify(config), runId);
    },
    /** kind 'vs-full-ca': HeldoutFigures; 'panel': StudyPanelFigures (the final DA's counterpart shift). */
    saveEvaluation<T = HeldoutFigures>(id: string, arm: string, seed: number, kind: string, result: T): void {
      db.prepare('INSERT OR REPLACE INTO study_evaluations (study_id, arm, seed, kind, result_json) VALUES (?, ?, ?, ?, ?)').run(
        id,
        arm,
        seed,
        kind,
        JSON.stringify(result),
      );
    },
    evaluation<T = HeldoutFigures>(id: string, arm: string, seed: number, kind: string): T | null {
      const r = db
        .prepare('SELECT result_json FROM study_evaluations WHERE study_id = ? AND arm = ? AND seed = ? AND kind = ?')
        .pluck()
        .get(id, arm, seed, kind) as string | undefined;
      return r ? (JSON.parse(r) as T) : null;
    },
  };
}

export type StudyStore = ReturnType<typeof studyStore>;
