/**
 * IB-RL's per-role isolation (../shared/seeds/003, Eqs. 4–5), tested on the run's own gym actor:
 * in one round both roles train from the same joint rollouts, and nothing of one role's learning
 * signal — its reward terms, its advantages (which follow from them), its learning rate, its
 * optimiser state — reaches the other's update. Each claim is a perturbation of one role that
 * must leave the other role's checkpoint bit-identical (weights and AdamW state) while changing
 * its own (so the test can fail).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ScriptedCa } from '../../core/agents/scripted-ca';
import { ScriptedDa } from '../../core/agents/scripted-da';
import { runMatch } from '../../core/arena/match';
import { selectScenarios } from '../../core/arena/scenarios';
import { DEFAULT_CONFIG } from '../../core/config';
import { sparringConfigOf } from '../../core/coevolution/run-config';
import { PRESETS } from '../../core/presets';
import type { RunConfig } from '../../core/coevolution/run-config';
import type { GymInput } from '../../core/coevolution/run.machine';
import { judgeEpisode } from '../../core/judge/judge';
import type { ModelSnapshot } from '../../core/rl/ports';
import { CaModel } from '../../models/ca-model';
import { DaModel } from '../../models/da-model';
import { bankingDomain } from '../domain-files';
import { checkpointStore } from '../store/checkpoint-store';
import { openSqliteStore } from '../store/sqlite-store';
import { IB_RL_POOL_CA, IB_RL_POOL_DA, PolicyCache, gym } from './actors';
import type { LabContext } from './lab-context';

const tmp = mkdtempSync(path.join(os.tmpdir(), 'sparring-ibrl-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));
const domain = bankingDomain();
const quick = PRESETS.smoke.config;
const BASE: RunConfig = {
  ...quick,
  arena: { ...quick.arena, episodesPerScenario: 1 },
  gym: {
    ...quick.gym,
    da: { ...quick.gym.da, steps: 3, promptsPerStep: 4, K: 4, lr: 3e-3, maxPasses: undefined, maxKl: undefined },
    ca: { ...quick.gym.ca, steps: 3, promptsPerStep: 4, K: 4, lr: 3e-3 },
  },
};

let starts: { da: ModelSnapshot; ca: ModelSnapshot } | null = null;
async function startSnapshots() {
  if (!starts) {
    const da = await DaModel.create({
      intents: domain.taxonomy.map((t) => ({ intent: t.intent, tool: t.tool })),
      seed: 1,
      net: { embedDim: 8, hidden: 16, hashing: { buckets: 512, bagLength: 16, wordNgrams: [1], charNgrams: [3] } },
    });
    const ca = await CaModel.create(domain.taxonomy, {
      sizes: { hashing: { buckets: 512, bagLength: 16, wordNgrams: [1], charNgrams: [] }, embedDim: 8, hidden: 16 },
      seed: 1,
    });
    starts = { da: await da.snapshot(), ca: await ca.snapshot() };
    await da.dispose();
    await ca.dispose();
  }
  return starts;
}

let labs = 0;
/**
 * One IB-RL round (both current, both train) in a fresh lab: DA0 and CA0 from the same start, the
 * round's joint rollouts (R1-M1), then the role gyms in `order`. Returns the checkpoints made.
 */
async function round(config: RunConfig, sparring = sparringConfigOf(config), order: ('DA' | 'CA')[] = ['DA', 'CA']) {
  const store = openSqliteStore(path.join(tmp, `lab${++labs}.db`));
  const checkpoints = checkpointStore(store.db);
  const s = await startSnapshots();
  const { match, episodes } = await runMatch({
    matchId: 'R1-M1',
    createdAt: '2026-03-01T00:00:00.000Z',
    domain,
    scenarios: selectScenarios(domain, 'arena'),
    scenarioSet: 'arena',
    da: new ScriptedDa(),
    ca: new ScriptedCa(domain),
    judge: judgeEpisode,
    config: sparringConfigOf(BASE),
    seed: 1,
  });
  store.saveMatch(match, episodes);
  store.db.prepare("INSERT INTO runs (id, created_at, updated_at, status, seed, config_json) VALUES ('R1', 'now', 'now', 'running', 1, '{}')").run();
  checkpoints.save({ role: 'DA', name: 'DA0', source: 'bootstrap', runId: 'R1', snapshot: s.da });
  checkpoints.save({ role: 'CA', name: 'CA0', source: 'bootstrap', runId: 'R1', snapshot: s.ca });
  const ctx: LabContext = { runId: 'R1', seed: 1, domain, config, sparring, store, checkpoints, progress: () => {}, metric: () => {}, stopped: () => false };
  const cache = new PolicyCache(ctx);
  const ibRl = { round: 1, pairing: 'both-current' as const, da: 'DA0', ca: 'CA0' };
  const input = (role: 'DA' | 'CA'): GymInput => ({
    runId: 'R1',
    role,
    from: `${role}0`,
    opponent: role === 'DA' ? 'CA0' : 'DA0',
    matchId: 'R1-M1',
    afterMatch: 1,
    seed: 1,
    ibRl: { ...ibRl, ...(role === 'CA' && config.schedule?.stagger?.caLr ? { lr: config.schedule.stagger.caLr } : {}) },
  });
  try {
    const out: Partial<Record<'DA' | 'CA', { name: string; snapshot: ModelSnapshot; trainingData: { kind: string; id: string }[]; note: string | null }>> = {};
    for (const role of order) {
      const { checkpoint } = await gym(ctx, cache, input(role));
      const c = checkpoints.get(checkpoint)!;
      out[role] = { name: c.name, snapshot: c.snapshot, trainingData: c.trainingData, note: c.note };
    }
    return out;
  } finally {
    await cache.dispose();
    store.close();
  }
}

const same = (a: ModelSnapshot, b: ModelSnapshot) =>
  Buffer.from(a.weights).equals(Buffer.from(b.weights)) && Buffer.from(a.optimiser!).equals(Buffer.from(b.optimiser!));

describe('IB-RL per-role isolation (the gym actor, one round, both roles on the same joint rollouts)', () => {
  it("the CA's reward (and so its advantages) never enters the DA's update, and the DA's never the CA's", { timeout: 180_000 }, async () => {
    const base = await round(BASE);
    expect(base.DA!.name).toBe('DA1');
    expect(base.CA!.name).toBe('CA1');
    // Both moved from the shared start.
    const s = await startSnapshots();
    expect(Buffer.from(base.DA!.snapshot.weights).equals(Buffer.from(s.da.weights))).toBe(false);
    expect(Buffer.from(base.CA!.snapshot.weights).equals(Buffer.from(s.ca.weights))).toBe(false);

    // r_CA reshaped (different terms, not a rescaling that group normalisation would undo).
    const caShaped = await round(BASE, {
      ...sparringConfigOf(BASE),
      caReward: { ...DEFAULT_CONFIG.caReward, invDaMisroute: 3, realismScale: 0, concealPenalty: -4 },
    });
    expect(same(caShaped.CA!.snapshot, base.CA!.snapshot)).toBe(false); // the perturbation reaches the CA
    expect(same(caShaped.DA!.snapshot, base.DA!.snapshot)).toBe(true); // and nothing of it the DA

    // r_DA reshaped.
    const daShaped = await round(BASE, {
      ...sparringConfigOf(BASE),
      daReward: { ...DEFAULT_CONFIG.daReward, toolCorrect: 5, speakPerTurn: -1, lookupFirst: -2 },
    });
    expect(same(daShaped.DA!.snapshot, base.DA!.snapshot)).toBe(false);
    expect(same(daShaped.CA!.snapshot, base.CA!.snapshot)).toBe(true);
  });

  it("each role has its own learning rate and optimiser state: one role's steps never touch the other's AdamW moments", { timeout: 180_000 }, async () => {
    const base = await round(BASE);
    // The CA at a tenth of the rate (staggering): the CA changes, the DA is bit-identical.
    const slowCa = await round({ ...BASE, schedule: { kind: 'ib-rl', stagger: { daEvery: 1, caEvery: 2, caLr: 3e-4 } } });
    expect(same(slowCa.CA!.snapshot, base.CA!.snapshot)).toBe(false);
    expect(same(slowCa.DA!.snapshot, base.DA!.snapshot)).toBe(true);
    // The CA trained first (its optimiser stepped before the DA's existed) or not at all: the DA's weights and moments are the same bits.
    const caFirst = await round(BASE, undefined, ['CA', 'DA']);
    const daAlone = await round(BASE, undefined, ['DA']);
    expect(same(caFirst.DA!.snapshot, base.DA!.snapshot)).toBe(true);
    expect(same(daAlone.DA!.snapshot, base.DA!.snapshot)).toBe(true);
    // Two optimiser states, in separate buffers, of each model's own size: (2 · params + 1) floats.
    const da = base.DA!.snapshot;
    const ca = base.CA!.snapshot;
    expect(da.optimiser!.buffer).not.toBe(ca.optimiser!.buffer);
    expect(da.optimiser!.byteLength).toBe(2 * da.weights.byteLength + 4);
    expect(ca.optimiser!.byteLength).toBe(2 * ca.weights.byteLength + 4);
    // The step counter (the last float) counts each role's own steps.
    const steps = (o: Uint8Array) => new Float32Array(o.buffer.slice(o.byteOffset + o.byteLength - 4, o.byteOffset + o.byteLength))[0];
    expect(steps(da.optimiser!)).toBeGreaterThan(0);
    expect(steps(ca.optimiser!)).toBeGreaterThan(0);
  });

  it("records the pool members the update saw in the checkpoint's training data and note", { timeout: 120_000 }, async () => {
    const r = await round(BASE, undefined, ['DA']);
    expect(r.DA!.trainingData).toEqual([
      { kind: 'match', id: 'R1-M1' },
      { kind: IB_RL_POOL_DA, id: 'DA0' },
      { kind: IB_RL_POOL_CA, id: 'CA0' },
    ]);
    expect(r.DA!.note).toMatch(/^IB-RL round 1: both-current joint rollouts DA0 vs CA0 \(R1-M1\), rollouts against frozen CA0/);
  });
});
