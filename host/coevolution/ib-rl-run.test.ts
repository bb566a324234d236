/**
 * An IB-RL run (schedule kind 'ib-rl') on the real actors: it completes, records each round's pool
 * draw in its matches and gyms, and a run whose process dies mid-run (the service closed while it
 * is live, as a kill -9 leaves it: status running, the last boundary's snapshot) resumes in a new
 * service and ends as the same run uninterrupted does.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { PRESETS } from '../../core/presets';
import type { EngineEvent } from '../../core/contract/run-service';
import { checkpointStore } from '../store/checkpoint-store';
import { IB_RL_POOL_CA, IB_RL_POOL_DA } from './actors';
import { createRunService } from './service';

const tmp = mkdtempSync(path.join(os.tmpdir(), 'sparring-ibrl-run-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const quick = PRESETS.smoke.config;
const CONFIG = JSON.stringify({
  ...quick,
  eval: { runs: 1, episodesPerScenario: 1, gateEpisodesPerScenario: 1 },
  schedule: { kind: 'ib-rl', pool: { pBoth: 0.4, pDa: 0.3, pCa: 0.3 }, stagger: { daEvery: 1, caEvery: 1, caLr: 3e-4 }, rounds: 3 },
});
const SEED = 2;

const waitFor = (events: EngineEvent[], ok: (e: EngineEvent) => boolean, ms: number) =>
  new Promise<void>((resolve, reject) => {
    const t0 = Date.now();
    const tick = () => (events.some(ok) ? resolve() : Date.now() - t0 > ms ? reject(new Error('timed out waiting for an event')) : setTimeout(tick, 50));
    tick();
  });

describe('IB-RL run', () => {
  it("completes with each round's pool draw recorded, and a run killed mid-run resumes and ends the same", { timeout: 400_000 }, async () => {
    // Uninterrupted.
    const refService = createRunService({ dbPath: path.join(tmp, 'ref.db') });
    const ref = await (async () => {
      try {
        const { runId } = await refService.start({ preset: 'custom', configJson: CONFIG, seed: SEED });
        const d = await refService.settled(runId);
        expect(d.status, d.error ?? '').toBe('finished');
        const gymCheckpoints = checkpointStore(refService.store.db)
          .list()
          .filter((c) => c.runId === runId && c.source === 'gym');
        return { d, gymCheckpoints };
      } finally {
        await refService.close();
      }
    })();
    expect(ref.d.matchSummaries).toHaveLength(4); // 3 rounds and the last arena match
    expect(ref.d.matchSummaries.at(-1)!.stop.reason).toBe('rounds');
    for (const m of ref.d.matchSummaries.slice(0, 3)) expect(m.pool).toEqual(expect.objectContaining({ round: m.index }));
    expect(ref.d.gyms.length).toBeGreaterThan(0);
    for (const g of ref.d.gyms) {
      expect(g.pool).toEqual(expect.objectContaining({ round: g.afterMatch }));
      expect(g.note).toMatch(/^IB-RL round \d/);
    }
    for (const c of ref.gymCheckpoints) {
      expect(c.trainingData.map((t) => t.kind)).toEqual(expect.arrayContaining([IB_RL_POOL_DA, IB_RL_POOL_CA]));
    }

    // Killed after its first gym, resumed by a new service.
    const dbPath = path.join(tmp, 'killed.db');
    const first = createRunService({ dbPath });
    const events: EngineEvent[] = [];
    first.subscribe((e) => events.push(e));
    const { runId } = await first.start({ preset: 'custom', configJson: CONFIG, seed: SEED });
    await waitFor(events, (e) => e.name === 'run/gym', 300_000);
    await first.close();
    const second = createRunService({ dbPath });
    try {
      expect(second.get(runId).status).toBe('running'); // interrupted, not ended
      await second.resume(runId);
      const d = await second.settled(runId);
      expect(d.status, d.error ?? '').toBe('finished');
      expect(d.matchSummaries.map((m) => [m.wDa, m.da, m.ca, m.gyms, m.pool])).toEqual(ref.d.matchSummaries.map((m) => [m.wDa, m.da, m.ca, m.gyms, m.pool]));
      expect(d.gyms).toEqual(ref.d.gyms);
      // Nothing trained twice: one checkpoint per gym.
      expect(
        checkpointStore(second.store.db)
          .list()
          .filter((c) => c.runId === runId && c.source === 'gym'),
      ).toHaveLength(d.gyms.length);
    } finally {
      await second.close();
    }
  });
});
