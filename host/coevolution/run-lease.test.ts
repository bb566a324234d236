/**
 * One driver per run (issue 51, item 1): a run whose lease another live process holds is refused
 * by name, with the holder's host and pid; a lease whose holder died (a dead pid on this host, a
 * heartbeat older than the bound on another) is taken over. test/fault-injection.test.ts drives
 * the CLI: a `run --resume` while the run's own process runs it.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runLease } from '../store/run-lease';
import { openSqliteStore } from '../store/sqlite-store';
import { STUDY_STALE_MS } from '../study/study-store';
import { createRunService } from './service';
import { reapChildrenAfterEach } from '../../test/support/reap-children';
import { labWithRun as labWithOneRun } from '../../test/support/lab-with-run';
import type { LeaseOwner } from '../../test/support/lab-with-run';

const tmp = mkdtempSync(path.join(os.tmpdir(), 'sparring-lease-'));
let n = 0;
const children = reapChildrenAfterEach();

/** A lab holding one created run R1 (as a study creates them: no snapshot yet), its owner as given. */
function labWithRun(owner: LeaseOwner | null): string {
  return labWithOneRun(path.join(tmp, `lab-${++n}.db`), 'created', 'quick', owner);
}

function owner(db: string) {
  const store = openSqliteStore(db);
  try {
    return store.db.prepare('SELECT owner_host AS host, owner_pid AS pid FROM runs WHERE id = ?').get('R1') as { host: string | null; pid: number | null };
  } finally {
    store.close();
  }
}

/** A live process of this host (stands for another `sparring run` driving R1). */
function otherProcess(): number {
  const child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
  children.push(child.pid!);
  return child.pid!;
}

/** Claim R1's lease for this process (what `resume` does before it launches the run), and let it go. */
function claimAndRelease(db: string): void {
  const store = openSqliteStore(db);
  try {
    const lease = runLease(store.db);
    lease.claim('R1');
    expect(owner(db)).toEqual({ host: os.hostname(), pid: process.pid });
    lease.release('R1');
  } finally {
    store.close();
  }
}

describe('run lease', () => {
  it('a run another live process of this host drives is refused, naming the run, the pid and the host', async () => {
    const pid = otherProcess();
    const db = labWithRun({ host: os.hostname(), pid, heartbeatAt: new Date().toISOString() });
    const service = createRunService({ dbPath: db });
    try {
      await expect(service.resume('R1')).rejects.toThrow(new RegExp(`run R1 is being driven by process ${pid} on ${os.hostname()}`));
    } finally {
      await service.close();
    }
    expect(owner(db)).toEqual({ host: os.hostname(), pid }); // untouched
  });

  it('a fresh lease of another host is refused; a stale one (heartbeat past the bound) is taken over', async () => {
    const fresh = labWithRun({ host: 'elsewhere', pid: 1234, heartbeatAt: new Date().toISOString() });
    const service = createRunService({ dbPath: fresh });
    try {
      await expect(service.resume('R1')).rejects.toThrow(/run R1 is being driven by process 1234 on elsewhere/);
    } finally {
      await service.close();
    }
    const stale = labWithRun({ host: 'elsewhere', pid: 1234, heartbeatAt: new Date(Date.now() - STUDY_STALE_MS - 5_000).toISOString() });
    claimAndRelease(stale);
    expect(owner(stale)).toEqual({ host: null, pid: null }); // released on close
  });

  it('the lease of a dead process of this host is taken over at once', async () => {
    const child = spawn(process.execPath, ['-e', '0'], { stdio: 'ignore' });
    const pid = child.pid!;
    await new Promise((r) => child.on('exit', r));
    const db = labWithRun({ host: os.hostname(), pid, heartbeatAt: new Date().toISOString() });
    claimAndRelease(db);
  });
});
