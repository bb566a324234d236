/**
 * `sparring best-response` on a real (quick) run's match: the lab's checkpoints replay the match's
 * openings with a slice of the CA's action space. The whole space (8,640 openings per episode) is
 * the CLI's; a slice keeps the test short and checks the same invariants.
 */
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { allCaChoices } from '../core/agents/ca-choices';
import { bankingDomain } from '../host/domain-files';
import { bestResponse, bestResponseHandlers } from '../host/engine/best-response';
import { formatBestResponse } from '../host/cli/commands/best-response';
import { caPolicy, caPolicyHandlers } from '../host/engine/ca-policy';
import { sparringInProcess } from './support/cli-in-process';

const tmp = mkdtempSync(path.join(os.tmpdir(), 'sparring-best-response-'));

describe('best response', () => {
  it("bounds what the CA's action space allows against a run's DA, deterministically; ca-policy reads the same openings; a missing match is named", async () => {
    const db = path.join(tmp, 'lab.db');
    const ran = await sparringInProcess(['run', '--preset', 'smoke', '--seed', '3', '--db', db, '--json']);
    expect(ran.code, ran.stderr).toBe(0);
    const { matches } = JSON.parse(ran.stdout) as { runId: string; matches: { da: string; ca: string }[] };
    const matchId = 'R1-M1';
    const choices = allCaChoices().filter((_, i) => i % 480 === 0); // 18 openings
    const progress: number[] = [];
    const r = await bestResponse({ db, domain: bankingDomain(), matchId, choices, onProgress: (d) => progress.push(d) });
    expect(r.runId).toBe('R1');
    expect([r.da, r.ca]).toEqual([matches[0]!.da, matches[0]!.ca]);
    expect(r.episodes).toBeGreaterThan(0);
    expect(progress.at(-1)).toBe(r.episodes);
    // The CA's greedy openings join the slice, so the oracle does at least as well as the CA.
    expect(r.choices).toBeGreaterThanOrEqual(choices.length);
    expect(r.wDaOracle).toBeLessThanOrEqual(r.wDaGreedy);
    for (const w of [r.wDaGreedy, r.wDaPerIntent, r.wDaOracle, r.meanWinShare]) expect(w).toBeGreaterThanOrEqual(0);
    expect(r.factors.map((f) => f.head)).toEqual(['directness', 'detail', 'decoy', 'hedge', 'tone', 'withhold', 'placement', 'phrasing']);
    for (const f of r.factors) expect(f.values.reduce((s, v) => s + v.greedyShare, 0)).toBeCloseTo(1, 9);
    // The gym's reward per value: inverse-DA (+1.5 / −0.5 at the paper's weights) plus the opening's shaping terms.
    const rewards = r.factors.flatMap((f) => f.values.map((v) => v.meanReward)).filter(Number.isFinite);
    expect(rewards.length).toBeGreaterThan(0);
    for (const x of rewards) expect(Math.abs(x)).toBeLessThan(3);
    // The replay depends on the stored match only.
    expect(await bestResponse({ db, domain: bankingDomain(), matchId, choices })).toEqual(r);
    expect(formatBestResponse(r)).toMatch(/R1-M1: DA\d+ against CA\d+, \d+ episodes/);

    // `ca-policy`: the same openings read by the policy alone; its greedy shares are the replay's.
    const policy = await caPolicy({ db, domain: bankingDomain(), runId: 'R1' });
    expect(policy.matches.map((m) => [m.da, m.ca])).toEqual(matches.map((m) => [m.da, m.ca]));
    const m1 = policy.matches[0]!;
    expect(m1.openings).toBe(r.episodes);
    for (const [hi, h] of m1.heads.entries()) {
      expect(h.head).toBe(r.factors[hi]!.head);
      expect(h.values.reduce((a, v) => a + v.meanP, 0)).toBeCloseTo(1, 5);
      h.values.forEach((v, vi) => expect(v.greedyShare, `${h.head}=${v.value}`).toBeCloseTo(r.factors[hi]!.values[vi]!.greedyShare, 12));
    }
    const cli = await sparringInProcess(['ca-policy', '--match', 'R1-M1', '--db', db]);
    expect(cli.code, cli.stderr).toBe(0);
    expect(cli.stdout).toMatch(/R1-M1: CA\d+ against DA\d+, \d+ openings/);
    expect(cli.stdout).toMatch(/withhold +false +\d+\.\d% \(\d+\.\d%\)/);
    const both = await sparringInProcess(['ca-policy', '--db', db]);
    expect(both.code).not.toBe(0);
    expect(both.stderr).toMatch(/give --run R or --match ID/);
    const noRun = await sparringInProcess(['ca-policy', '--run', 'R7', '--db', db]);
    expect(noRun.code).not.toBe(0);
    expect(noRun.stderr).toMatch(/no run "R7"/);
    // The app's request reads the same table, and names a missing run the same way.
    const app = caPolicyHandlers({ dbPath: db, domain: bankingDomain });
    expect(await app['runs/caPolicy']({ runId: 'R1' })).toEqual(policy);
    await expect(app['runs/caPolicy']({ runId: 'R7' })).rejects.toThrow(/no run "R7"/);

    const missing = await sparringInProcess(['best-response', '--match', 'R1-M9', '--db', db]);
    expect(missing.code).not.toBe(0);
    expect(missing.stderr).toMatch(/no match "R1-M9"/);
    // The app's request: the same error by name, and a failed replay does not leave the handler busy.
    const events: unknown[] = [];
    const h = bestResponseHandlers({ dbPath: db, domain: bankingDomain, emit: (e) => events.push(e) });
    await expect(h['matches/bestResponse']({ matchId: 'R1-M9' })).rejects.toThrow(/no match "R1-M9"/);
    await expect(h['matches/bestResponse']({ matchId: 'R1-M9' })).rejects.toThrow(/no match "R1-M9"/);
    expect(events).toEqual([]);
  });
});
