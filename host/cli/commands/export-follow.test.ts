/**
 * `sparring export RUN --tensorboard DIR --follow` on a run that no process drives any more (its
 * process was killed: the row still says 'running', its lease names a dead pid) ends with a clear
 * message and a non-zero exit, instead of polling forever. A run whose driver is alive is followed.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { openSqliteStore } from '../../store/sqlite-store';
import { sparringInProcess } from '../../../test/support/cli-in-process';
import { reapChildrenAfterEach } from '../../../test/support/reap-children';
import { labWithRun } from '../../../test/support/lab-with-run';

const tmp = mkdtempSync(path.join(os.tmpdir(), 'sparring-export-follow-'));
let n = 0;
const children = reapChildrenAfterEach();

/** A lab holding one run R1 in status 'running' (as a killed `sparring run` leaves it), its lease as given. */
function labWithRunningRun(ownerPid: number | null): string {
  const owner = ownerPid === null ? null : { host: os.hostname(), pid: ownerPid, heartbeatAt: new Date().toISOString() };
  return labWithRun(path.join(tmp, `lab-${++n}.db`), 'running', 'smoke', owner);
}

/** A pid of this host that no process has any more. */
async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ['-e', ''], { stdio: 'ignore' });
  await new Promise((r) => child.once('exit', r));
  return child.pid!;
}

describe('export --tensorboard --follow', () => {
  it('ends with a non-zero exit and says why when the run’s process is gone', async () => {
    const pid = await deadPid();
    const db = labWithRunningRun(pid);
    const r = await sparringInProcess(['export', 'R1', '--tensorboard', path.join(tmp, `tb-${n}`), '--follow', '--interval', '0.05', '--db', db]);
    expect(r.code, r.stderr).toBe(1);
    expect(r.stderr).toContain(`R1 is no longer running: the process that drove it (pid ${pid} on ${os.hostname()}) is gone`);
    expect(r.stderr).toMatch(/sparring run --resume R1/);
  });

  it('keeps following while the run’s process lives', async () => {
    const child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
    children.push(child.pid!);
    const db = labWithRunningRun(child.pid!);
    const follow = sparringInProcess(['export', 'R1', '--tensorboard', path.join(tmp, `tb-${n}`), '--follow', '--interval', '0.05', '--db', db]);
    await new Promise((r) => setTimeout(r, 600));
    // Still following; the run then ends as its driver would end it, and follow ends with it.
    const store = openSqliteStore(db);
    store.db.prepare("UPDATE runs SET status = 'finished', owner_pid = NULL, owner_host = NULL WHERE id = 'R1'").run();
    store.close();
    const r = await follow;
    expect(r.code, r.stderr).toBe(0);
  });
});
