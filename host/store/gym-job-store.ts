/**
 * Gym jobs (migration 15): gyms of a run handed to an external trainer (TRL, verl) instead of the
 * builtin GRPO. A job is created when the run reaches such a gym (its export written), and ends
 * once: 'done' with the checkpoint `sparring checkpoints add` registered, 'cancelled' by
 * `sparring gym cancel` (the run keeps the checkpoint it had), or 'failed'. The run's process
 * polls the job, so a write from another process (the CLI in another terminal) moves it on.
 */
import type { Database } from 'better-sqlite3';
import type { GymJobInfo, GymJobStatus } from '../../core/contract/contract';

export type { GymJobInfo, GymJobStatus };

interface GymJobRow {
  id: string;
  run_id: string;
  gym_index: number;
  role: 'DA' | 'CA';
  from_checkpoint: string;
  opponent: string;
  match_id: string;
  export_path: string;
  status: GymJobStatus;
  created_at: string;
  finished_at: string | null;
  checkpoint: string | null;
  note: string | null;
}

export interface NewGymJob {
  runId: string;
  gym: number;
  role: 'DA' | 'CA';
  from: string;
  opponent: string;
  matchId: string;
  exportPath: string;
}

/** A request about gym jobs that cannot be met (the message names the job, run or gym). */
export class GymJobError extends Error {
  override name = 'GymJobError';
}

export interface GymJobStore {
  /** The job of a run's gym N, or null. */
  forGym(runId: string, gym: number): GymJobInfo | null;
  get(id: string): GymJobInfo | null;
  /** Oldest first; one run's or the lab's. */
  list(runId?: string): GymJobInfo[];
  /** Records a waiting job; the same run and gym again returns the existing job (a restarted run). */
  create(j: NewGymJob): GymJobInfo;
  /** Ends a waiting job; throws naming the job when it is not waiting. */
  finish(id: string, status: Exclude<GymJobStatus, 'waiting'>, result: { checkpoint?: string | null; note?: string | null }): GymJobInfo;
}

function info(r: GymJobRow): GymJobInfo {
  return {
    id: r.id,
    runId: r.run_id,
    gym: r.gym_index,
    role: r.role,
    from: r.from_checkpoint,
    opponent: r.opponent,
    matchId: r.match_id,
    exportPath: r.export_path,
    status: r.status,
    createdAt: r.created_at,
    finishedAt: r.finished_at,
    checkpoint: r.checkpoint,
    note: r.note,
  };
}

export function gymJobStore(db: Database): GymJobStore {
  const byGym = db.prepare<[string, number], GymJobRow>('SELECT * FROM gym_jobs WHERE run_id = ? AND gym_index = ?');
  const byId = db.prepare<[string], GymJobRow>('SELECT * FROM gym_jobs WHERE id = ?');
  const all = db.prepare<[], GymJobRow>('SELECT * FROM gym_jobs ORDER BY created_at, rowid');
  const ofRun = db.prepare<[string], GymJobRow>('SELECT * FROM gym_jobs WHERE run_id = ? ORDER BY gym_index');
  const count = db.prepare('SELECT COUNT(*) FROM gym_jobs').pluck();
  const insert = db.prepare(`INSERT INTO gym_jobs (id, run_id, gym_index, role, from_checkpoint, opponent, match_id, export_path, status, created_at)
    VALUES (@id, @runId, @gym, @role, @from, @opponent, @matchId, @exportPath, 'waiting', @createdAt)`);
  const end = db.prepare("UPDATE gym_jobs SET status = ?, finished_at = ?, checkpoint = ?, note = ? WHERE id = ? AND status = 'waiting'");

  const create = db.transaction((j: NewGymJob): GymJobInfo => {
    const found = byGym.get(j.runId, j.gym);
    if (found) return info(found);
    const id = `J${(count.get() as number) + 1}`;
    insert.run({ ...j, id, createdAt: new Date().toISOString() });
    return info(byId.get(id)!);
  });
  const finish = db.transaction(
    (id: string, status: Exclude<GymJobStatus, 'waiting'>, result: { checkpoint?: string | null; note?: string | null }): GymJobInfo => {
      const row = byId.get(id);
      if (!row) throw new GymJobError(`no gym job ${id} in this lab`);
      if (row.status !== 'waiting') throw new GymJobError(`gym job ${id} (run ${row.run_id}, gym ${row.gym_index}) is ${row.status}, not waiting`);
      end.run(status, new Date().toISOString(), result.checkpoint ?? null, result.note ?? null, id);
      return info(byId.get(id)!);
    },
  );
  return {
    forGym: (runId, gym) => {
      const r = byGym.get(runId, gym);
      return r ? info(r) : null;
    },
    get: (id) => {
      const r = byId.get(id);
      return r ? info(r) : null;
    },
    list: (runId) => (runId === undefined ? all.all() : ofRun.all(runId)).map(info),
    // IMMEDIATE: count and insert under the write lock (another process may create a job).
    create: (j) => create.immediate(j),
    finish: (id, status, result) => finish.immediate(id, status, result),
  };
}
