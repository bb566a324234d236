/**
 * `sparring gym export` of an IB-RL gym (issue 15 with schedule kind 'ib-rl'): the update trains
 * on every trajectory of its round's joint rollouts (no failure mix) against the pool's other
 * member, so the export is those decision points — not the arena match's. A quick IB-RL run whose
 * pool always pairs the current DA with a historical CA (round 1: no past CA yet, CA0 plays; the
 * joint rollouts are `RUN-J1`, a match of their own) hands its DA gym to an external trainer: the
 * run plays the joint rollouts, then exports them; the job's export and `exportGym` after the run
 * hold one line per DA decision point of every J1 episode, and none of the arena match.
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { sparringConfigOf } from '../../core/coevolution/run-config';
import { PRESETS } from '../../core/presets';
import type { RunConfig } from '../../core/coevolution/run-config';
import { recordedFromEpisode, sliceDecisionPoints } from '../../core/rl/da-rollout';
import { bankingDomain } from '../domain-files';
import { gymJobStore } from '../store/gym-job-store';
import { openSqliteStore } from '../store/sqlite-store';
import { cancelGymJob, gymJobFolder } from './external-gym';
import { exportGym } from './gym-export';
import type { GymPoint } from './gym-export';
import { createRunService } from './service';

const tmp = mkdtempSync(path.join(os.tmpdir(), 'sparring-ibrl-export-'));
const db = path.join(tmp, 'lab.db');
const quick = PRESETS.smoke.config;
const config: RunConfig = {
  ...quick,
  gym: { ...quick.gym, da: { ...quick.gym.da, trainer: 'external' } },
  eval: { runs: 1, episodesPerScenario: 1, gateEpisodesPerScenario: 1 },
  schedule: { kind: 'ib-rl', pool: { pBoth: 0, pDa: 1, pCa: 0 }, stagger: { daEvery: 1, caEvery: 1 }, rounds: 1 },
};

const service = createRunService({ dbPath: db, trainerPollMs: 50 });
afterAll(() => service.close());

describe('gym export of an IB-RL gym', () => {
  it("writes the decision points of the round's joint rollouts, the episodes the update trains on", { timeout: 600_000 }, async () => {
    const { runId } = await service.start({ preset: 'custom', configJson: JSON.stringify(config), seed: 1 });
    const jobs = gymJobStore(service.store.db);
    const end = Date.now() + 500_000;
    while (!jobs.forGym(runId, 1)) {
      const r = service.get(runId);
      if (['failed', 'finished'].includes(r.status)) throw new Error(`run ${r.status} before its gym: ${r.error}`);
      if (Date.now() > end) throw new Error('timed out waiting for the IB-RL gym job');
      await new Promise((r) => setTimeout(r, 100));
    }
    const job = jobs.forGym(runId, 1)!;
    const joint = `${runId}-J1`;
    expect(job).toMatchObject({ role: 'DA', from: 'DA0', opponent: 'CA0', matchId: joint });
    expect(service.get(runId).matchSummaries[0]!.pool).toMatchObject({ round: 1, pairing: 'historical-ca', da: 'DA0', ca: 'CA0', noHistory: 'CA' });

    // What the update trains on, counted independently: every DA decision point of every J1 episode.
    const store = openSqliteStore(db);
    let expected: number;
    let jointIds: string[];
    try {
      const episodes = store.listEpisodes({ matchId: joint, limit: 10_000 }).map((s) => store.getEpisode(s.id)!);
      expect(episodes.length).toBeGreaterThan(0);
      jointIds = episodes.map((e) => e.id).sort();
      const domain = bankingDomain();
      expected = episodes.reduce(
        (n, e) => n + sliceDecisionPoints(recordedFromEpisode(e, domain.scenarios), sparringConfigOf(config).arena.maxDaTurns).length,
        0,
      );
    } finally {
      store.close();
    }
    const read = (file: string) =>
      readFileSync(file, 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as GymPoint);
    const exported = read(path.join(gymJobFolder(db, runId, 1), 'gym.jsonl'));
    expect(exported.length).toBe(expected);
    for (const p of exported) expect([p.match_id, p.from, p.frozen_opponent, p.source]).toEqual([joint, 'DA0', 'CA0', 'arena']);
    // All of the joint rollouts (no 70:30 selection), none of the arena match.
    expect([...new Set(exported.map((p) => p.episode_id!))].sort()).toEqual(jointIds);
    expect(exported.some((p) => p.episode_id!.startsWith(`${runId}-M1:`))).toBe(false);

    // The job cancelled, the run finishes; exporting the done gym gives the same lines.
    cancelGymJob(service.store.db, job.id);
    const d = await service.settled(runId);
    expect(d.status, d.error ?? '').toBe('finished');
    expect(d.gyms[0]).toMatchObject({ role: 'DA', from: 'DA0', to: 'DA0', pool: { round: 1, opponent: 'CA0' } });
    const again = await exportGym(service.store, bankingDomain(), runId, 1);
    expect(again.matchId).toBe(joint);
    expect(again.points).toEqual(exported);
  });
});
