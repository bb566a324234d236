/**
 * `sparring gym export`: a quick run whose stopping floors make the DA the weaker agent, so its
 * first gym is a DA gym; the export holds the gym's decision points (its match, 70:30
 * failure/success, the sliding-window slicer), and a reset with a line's `reset` brings the env
 * server to exactly that decision point against the gym's frozen opponent — also when that
 * opponent is not the checkpoint that played the match (a CA gym after the DA's gym of the same
 * round trains against the new DA from the match's recorded dialogue, as the builtin gym does).
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { PRESETS } from '../core/presets';
import { selectScenarios } from '../core/arena/scenarios';
import { runWorld } from '../host/coevolution/gym-export';
import type { GymPoint } from '../host/coevolution/gym-export';
import { resolveCa, resolveDa } from '../host/cli/policies';
import { labDomainAt } from '../host/cli/lab-domain';
import { startEnvServer } from '../host/env/server';
import { EnvWsClient } from '../host/env/test-client';
import { openSqliteStore } from '../host/store/sqlite-store';

const run = promisify(execFile);
const BIN = path.resolve(__dirname, '..', 'bin', 'sparring.js');
const tmp = mkdtempSync(path.join(os.tmpdir(), 'sparring-gym-export-'));

/**
 * One smoke run for both tests: the DA far below its floor and the CA above its own, so the DA is
 * the weaker agent and its gym comes first; both agents train after each match (the DA's gym, then
 * the CA's against the new DA), two matches; a DA gym that moves the DA enough to answer differently.
 */
async function bothGymsRun(): Promise<{ db: string; runDoc: { runId: string; gyms: { role: string; from: string; to: string }[] } }> {
  const config = structuredClone(PRESETS.smoke.config);
  config.stopping = { ...config.stopping, tauDa: 0.99, rCa: 0.01, nMin: 2, nMax: 2 };
  config.schedule = { isolation: 'both' };
  config.gym.da = { ...config.gym.da, lr: 3e-2, steps: 6 };
  const file = path.join(tmp, 'config.json');
  writeFileSync(file, JSON.stringify(config));
  const db = path.join(tmp, 'lab.db');
  const { stdout } = await run(process.execPath, [BIN, 'run', '--config', file, '--db', db, '--json'], { maxBuffer: 1 << 24 });
  return { db, runDoc: JSON.parse(stdout) as { runId: string; gyms: { role: string; from: string; to: string }[] } };
}

describe('sparring gym export', () => {
  let played: ReturnType<typeof bothGymsRun> | undefined;
  const theRun = () => (played ??= bothGymsRun());

  it("writes the DA gym's decision points, and each reset brings the env server to that point", async () => {
    const { db, runDoc } = await theRun();
    expect(runDoc.gyms[0]).toMatchObject({ role: 'DA', from: 'DA0' });

    // A gym the run never had is refused, naming what it has.
    const missing = await run(process.execPath, [BIN, 'gym', 'export', runDoc.runId, '--gym', '99', '--db', db]).catch(
      (e: { code: number; stderr: string }) => e,
    );
    expect(missing).toMatchObject({
      code: 2,
      stderr: expect.stringMatching(new RegExp(`run ${runDoc.runId} has ${runDoc.gyms.length} gyms?.*; gym 99 does not exist`)),
    });

    const out = path.join(tmp, 'gym1.jsonl');
    const { stderr } = await run(process.execPath, [BIN, 'gym', 'export', runDoc.runId, '--gym', '1', '--out', out, '--db', db]);
    const points = readFileSync(out, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as GymPoint);
    expect(stderr).toMatch(new RegExp(`serve its world with: npx sparring env serve --role DA --opponent CA0 --run ${runDoc.runId}`));
    const m = /(\d+) failures \+ (\d+) successes episodes → (\d+) decision points/.exec(stderr)!;
    const [failures, successes, n] = [Number(m[1]), Number(m[2]), Number(m[3])];
    expect(n).toBe(points.length);
    // 70:30 when both sides have episodes (mixFailures: as many as the smaller side allows): some
    // total t gives round(0.7 t) failures and the rest successes, at least one of each. With few
    // failures the split is coarse (t = 2 is 1:1), so the test checks the rule, not a tolerance.
    if (failures > 0 && successes > 0) {
      const splits = Array.from({ length: failures + successes + 1 }, (_, t) => {
        const nf = Math.max(1, Math.round(t * 0.7));
        return [nf, Math.max(1, t - nf)].join(':');
      });
      expect(splits).toContain(`${failures}:${successes}`);
    }
    expect(new Set(points.filter((p) => p.trainer_lost).map((p) => p.episode_id)).size).toBe(failures);
    for (const p of points) {
      expect(p).toMatchObject({ run: runDoc.runId, gym: 1, role: 'DA', from: 'DA0', frozen_opponent: 'CA0', source: 'arena' });
      // One point per DA turn: the replay holds exactly the DA's earlier turns of that episode.
      expect(p.reset.replay.length).toBe(points.filter((q) => q.episode_id === p.episode_id && q.turn < p.turn).length);
      // …and the CA's turns before it, said in the CA's place.
      expect(p.reset.opponent_replay.length).toBeGreaterThanOrEqual(1);
      expect(p.reset.opponent_replay.length).toBeLessThanOrEqual(p.reset.replay.length + 1);
    }

    // Each point's reset, against the gym's frozen CA, shows the DA exactly the point's prompt.
    const g = { db, seed: 1, json: false };
    const lab = openSqliteStore(db);
    const world = runWorld(lab, labDomainAt(db), runDoc.runId);
    lab.close();
    const { domain } = world;
    const store = openSqliteStore(':memory:');
    const server = await startEnvServer({
      domain,
      config: world.config,
      opponent: { role: 'CA', policy: await resolveCa('CA0', world.caDomain, g) },
      opponentSpec: 'CA0',
      scenarios: selectScenarios(domain, 'arena'),
      scenarioSet: 'arena',
      adversities: false,
      store,
    });
    try {
      const c = await EnvWsClient.connect(server.wsUrl);
      const sample = points.filter((_, i) => i % Math.max(1, Math.floor(points.length / 12)) === 0);
      for (const p of sample) {
        const ans = await c.send('reset', p.reset);
        expect(ans.type, JSON.stringify(ans.data)).toBe('observation');
        const obs = ans.data.observation as { messages: unknown[] };
        expect(obs.messages).toStrictEqual(p.prompt.messages);
      }
      c.close();
    } finally {
      await server.close();
      store.close();
    }
  }, 240_000);

  it("a CA gym after the DA's gym of the same round: each reset shows the match's recorded dialogue, and the new DA plays on from there", async () => {
    const { db, runDoc } = await theRun();
    expect(runDoc.gyms.slice(0, 2).map((g) => [g.role, g.from, g.to])).toEqual([
      ['DA', 'DA0', 'DA1'],
      ['CA', 'CA0', 'CA1'],
    ]);
    const out = path.join(tmp, 'gym2.jsonl');
    await run(process.execPath, [BIN, 'gym', 'export', runDoc.runId, '--gym', '2', '--out', out, '--db', db]);
    const points = readFileSync(out, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as GymPoint);
    // The CA trains against the current DA (DA1) on match 1's episodes, which DA0 played.
    expect(points.length).toBeGreaterThan(0);
    for (const p of points) expect(p).toMatchObject({ role: 'CA', from: 'CA0', frozen_opponent: 'DA1', match_id: `${runDoc.runId}-M1` });

    const lab = openSqliteStore(db);
    const world = runWorld(lab, labDomainAt(db), runDoc.runId);
    lab.close();
    const store = openSqliteStore(':memory:');
    const server = await startEnvServer({
      domain: world.domain,
      config: world.config,
      opponent: { role: 'DA', policy: await resolveDa('DA1', world.domain, { db, seed: 1, json: false }) },
      opponentSpec: 'DA1',
      scenarios: selectScenarios(world.domain, 'arena'),
      scenarioSet: 'arena',
      adversities: false,
      store,
    });
    try {
      const c = await EnvWsClient.connect(server.wsUrl);
      let differs = 0;
      for (const p of points) {
        const ans = await c.send('reset', p.reset);
        expect(ans.type, JSON.stringify(ans.data)).toBe('observation');
        expect((ans.data.observation as { messages: unknown[] }).messages).toStrictEqual(p.prompt.messages);
        // Without the DA's recorded turns, DA1 answers the replayed customer turns itself: another dialogue (or none).
        const own = await c.send('reset', { seed: p.reset.seed, scenario: p.reset.scenario, replay: p.reset.replay });
        if (own.type !== 'observation' || JSON.stringify((own.data.observation as { messages: unknown[] }).messages) !== JSON.stringify(p.prompt.messages))
          differs++;
      }
      // The check above means something only if the new DA would have played the prefix otherwise.
      expect(differs).toBeGreaterThan(0);
      // A rollout from a point plays on against DA1 and is stored with it as the opponent.
      const p = points.find((q) => q.reset.replay.length > 0) ?? points[0]!;
      await c.send('reset', p.reset);
      let ans = await c.send('step', { message: p.original });
      for (let i = 0; i < 40 && !(ans.data as { done: boolean }).done; i++) ans = await c.send('step', { message: p.original });
      expect(ans.data).toMatchObject({ done: true });
      expect(store.db.prepare('SELECT da_spec AS da FROM matches').all()).toEqual([{ da: 'DA1' }]);
      c.close();
    } finally {
      await server.close();
      store.close();
    }
  }, 240_000);
});
