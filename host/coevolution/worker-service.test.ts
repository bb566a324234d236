/**
 * The runner on a worker thread: a run started through the worker streams events here, queries
 * are answered from this thread (with `live`), stop reaches the run, and a service closed while a
 * run is live (as when the server is killed) leaves it resumable by the next one.
 */
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { RunStatus } from '../../core/contract/contract';
import type { EngineEvent } from '../../core/contract/run-service';
import { createWorkerRunService } from './worker-service';

const waitFor = (events: EngineEvent[], ok: (e: EngineEvent) => boolean, ms: number) =>
  new Promise<void>((resolve, reject) => {
    const t0 = Date.now();
    const tick = () => (events.some(ok) ? resolve() : Date.now() - t0 > ms ? reject(new Error('timed out waiting for an event')) : setTimeout(tick, 50));
    tick();
  });
const status = (runId: string, s: RunStatus) => (e: EngineEvent) => e.name === 'run/status' && e.payload.runId === runId && e.payload.status === s;

describe('runner on a worker thread', () => {
  it('starts, answers queries from the server thread, survives a close and resumes, and stops', { timeout: 240_000 }, async () => {
    const dbPath = path.join(mkdtempSync(path.join(os.tmpdir(), 'sparring-worker-')), 'lab.db');
    const first = createWorkerRunService({ dbPath });
    const events: EngineEvent[] = [];
    first.subscribe((e) => events.push(e));
    const { runId } = await first.start({ preset: 'smoke', seed: 3 });
    await waitFor(events, status(runId, 'running'), 60_000);
    expect(first.list()).toEqual([expect.objectContaining({ id: runId, status: 'running', live: true })]);
    expect(first.get(runId).configJson).toContain('"stopping"');
    expect(() => first.pause('R9')).toThrow(/R9 is not running/);
    // A pause takes effect at the next phase boundary; until then the run says it is pausing.
    first.pause(runId);
    await waitFor(events, (e) => e.name === 'run/status' && e.payload.runId === runId && e.payload.pauseRequested, 60_000);
    const asked = first.get(runId);
    expect(asked.status === 'paused' || asked.pauseRequested).toBe(true);
    await expect(first.start({ preset: 'nope' })).rejects.toThrow(/unknown preset "nope"/);
    // Killed mid-run: the next service finds it interrupted (running, not live) and resumes it.
    await first.close();
    const second = createWorkerRunService({ dbPath });
    const later: EngineEvent[] = [];
    second.subscribe((e) => later.push(e));
    expect(second.list()).toEqual([expect.objectContaining({ id: runId, status: 'running', live: false })]);
    await second.resume(runId);
    expect(second.get(runId).live).toBe(true);
    second.stop(runId);
    await waitFor(later, status(runId, 'stopped'), 180_000);
    expect(second.list()).toEqual([expect.objectContaining({ id: runId, live: false })]);
    await second.close();
  });
});
