/**
 * Who drives a run (migration 28): the process that started or resumed it holds its lease (host,
 * pid, heartbeat), as a study's runner holds the study's (host/study/study-store.ts). A second
 * process asked to resume a run whose holder is alive is refused by name; a holder that died (its
 * pid gone on this host, or not heard from for RUN_STALE_MS on another) is taken over.
 */
import { hostname } from 'node:os';
import type { Database } from 'better-sqlite3';
import { ownerAlive } from '../study/study-store';
import type { StudyOwner } from '../study/study-store';

/** How often a driving process writes its runs' heartbeat. */
export const RUN_HEARTBEAT_MS = 10_000;

/** A second process asked to drive a run that a live one drives. */
export class RunBusyError extends Error {
  override name = 'RunBusyError';
}

export function runLease(db: Database) {
  const me = { host: hostname(), pid: process.pid };
  const getOwner = db.prepare<[string], { owner_host: string | null; owner_pid: number | null; heartbeat_at: string | null }>(
    'SELECT owner_host, owner_pid, heartbeat_at FROM runs WHERE id = ?',
  );
  const setOwner = db.prepare('UPDATE runs SET owner_host = ?, owner_pid = ?, heartbeat_at = ? WHERE id = ?');
  const beat = db.prepare('UPDATE runs SET heartbeat_at = ? WHERE id = ? AND owner_host = ? AND owner_pid = ?');
  const letGo = db.prepare('UPDATE runs SET owner_host = NULL, owner_pid = NULL, heartbeat_at = NULL WHERE id = ? AND owner_host = ? AND owner_pid = ?');

  function owner(runId: string): StudyOwner | null {
    const r = getOwner.get(runId);
    return r && r.owner_pid !== null ? { host: r.owner_host ?? '', pid: r.owner_pid, heartbeatAt: r.heartbeat_at ?? '' } : null;
  }

  /** Why this process may not drive the run now (another live process drives it), or null. */
  function busy(runId: string): string | null {
    const o = owner(runId);
    if (!o || !ownerAlive(o) || (o.host === me.host && o.pid === me.pid)) return null;
    const ago = Math.max(0, Math.round((Date.now() - Date.parse(o.heartbeatAt)) / 1000));
    return (
      `run ${runId} is being driven by process ${o.pid} on ${o.host} (heard from ${ago} s ago); ` + `wait for it to finish, or stop that process and resume`
    );
  }

  return {
    owner,
    busy,
    /** Take the run's lease for this process (inside the caller's transaction, or its own), or throw RunBusyError. */
    claim(runId: string): void {
      db.transaction(() => {
        const why = busy(runId);
        if (why) throw new RunBusyError(why);
        setOwner.run(me.host, me.pid, new Date().toISOString(), runId);
      }).immediate();
    },
    /** Set this process as the owner of a run it has just created (inside the creating transaction). */
    own(runId: string): void {
      setOwner.run(me.host, me.pid, new Date().toISOString(), runId);
    },
    beat(runId: string): void {
      beat.run(new Date().toISOString(), runId, me.host, me.pid);
    },
    release(runId: string): void {
      letGo.run(runId, me.host, me.pid);
    },
  };
}
