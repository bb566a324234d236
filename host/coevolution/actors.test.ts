/**
 * Human-played episodes in the isolation gym (RunConfig gym.humanEpisodes): which ones a gym
 * takes, how the weight repeats them, and the checkpoint lineage that records them.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ScriptedCa } from '../../core/agents/scripted-ca';
import { ScriptedDa } from '../../core/agents/scripted-da';
import { runMatch } from '../../core/arena/match';
import { selectScenarios } from '../../core/arena/scenarios';
import { sparringConfigOf } from '../../core/coevolution/run-config';
import { PRESETS } from '../../core/presets';
import type { RunConfig } from '../../core/coevolution/run-config';
import { judgeEpisode } from '../../core/judge/judge';
import { CaModel } from '../../models/ca-model';
import { DaModel } from '../../models/da-model';
import { bankingDomain } from '../domain-files';
import { createPlayService } from '../engine/play';
import { checkpointStore, HUMAN_EPISODE } from '../store/checkpoint-store';
import { openSqliteStore } from '../store/sqlite-store';
import { otherIntentScenarios, splitBank, validationSlice } from '../../core/rl/demos';
import { PolicyCache, da0SftSeed, gym, gymEpisodes, runDomain, trainingDomain, weighted } from './actors';
import type { LabContext } from './lab-context';

const tmp = mkdtempSync(path.join(os.tmpdir(), 'sparring-actors-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));
const domain = bankingDomain();

/** One arena match of the scripted agents, `n` episodes per scenario (default 1), stored. */
async function scriptedMatch(
  store: ReturnType<typeof openSqliteStore>,
  matchId: string,
  createdAt: string,
  seed: number,
  config: RunConfig,
  n = 1,
  scenarios = selectScenarios(domain, 'arena'),
) {
  const { match, episodes } = await runMatch({
    matchId,
    createdAt,
    domain,
    scenarios,
    scenarioSet: 'arena',
    da: new ScriptedDa(),
    ca: new ScriptedCa(domain),
    judge: judgeEpisode,
    config: { ...sparringConfigOf(config), arena: { ...config.arena, episodesPerScenario: n } },
    seed,
  });
  store.saveMatch(match, episodes);
}

describe('weighted', () => {
  it('repeats each item weight times on average, cycling', () => {
    expect(weighted(['a', 'b'], 2)).toEqual(['a', 'b', 'a', 'b']);
    expect(weighted(['a', 'b', 'c', 'd'], 0.5)).toEqual(['a', 'b']);
    expect(weighted(['a', 'b'], 1.5)).toEqual(['a', 'b', 'a']);
    expect(weighted([], 3)).toEqual([]);
  });
});

describe('trainingDomain', () => {
  it("keeps the held-out slice of DA0's SFT split out of the bank the training CAs speak from", () => {
    for (const seed of [1, 2]) {
      const d = trainingDomain({ domain, seed });
      const { heldout } = splitBank(domain.bank.utterances, da0SftSeed(seed));
      expect(heldout.length).toBeGreaterThan(50);
      const spoken = new Set(d.bank.utterances.map((u) => `${u.intent} ${u.text}`));
      expect(heldout.filter((u) => spoken.has(`${u.intent} ${u.text}`))).toEqual([]);
      expect(d.bank.utterances.length + heldout.length).toBe(domain.bank.utterances.length);
      expect(new Set(d.bank.utterances.map((u) => u.intent))).toEqual(new Set(domain.bank.utterances.map((u) => u.intent)));
      expect(d.scenarios).toBe(domain.scenarios);
      expect(trainingDomain({ domain, seed })).toBe(d);
    }
  });

  it("without a run's validation slice (validation.bankShare): the same held-out slice, a train slice less the validation sentences", () => {
    const key = (u: { intent: string; text: string }) => `${u.intent} ${u.text}`;
    const config = { ...PRESETS.quick.config, validation: { bankShare: 0.2 } };
    expect(runDomain(domain, PRESETS.quick.config, 4)).toBe(domain);
    const run = runDomain(domain, config, 4);
    const { validation } = validationSlice(domain.bank.utterances, da0SftSeed(4), 0.2);
    expect(validation.length).toBeGreaterThan(50);
    const held = new Set(validation.map(key));
    expect(run.bank.utterances.filter((u) => held.has(key(u)))).toEqual([]);
    expect(splitBank(run.bank.utterances, da0SftSeed(4)).heldout).toEqual(splitBank(domain.bank.utterances, da0SftSeed(4)).heldout);
    const train = trainingDomain({ domain: run, seed: 4 }).bank.utterances.map(key).sort();
    expect(train).toEqual(
      trainingDomain({ domain, seed: 4 })
        .bank.utterances.map(key)
        .filter((k) => !held.has(k))
        .sort(),
    );
  });
});

describe('gym with human episodes', () => {
  it('trains the DA on human customer episodes played before the match, up to the cap, and lineage shows it', async () => {
    const store = openSqliteStore(path.join(tmp, 'lab.db'));
    const checkpoints = checkpointStore(store.db);
    let clock = Date.parse('2026-03-01T00:00:00.000Z');
    const now = () => new Date((clock += 60_000)).toISOString();
    const play = createPlayService({
      store,
      domain: () => domain,
      resolve: async (role) => (role === 'DA' ? new ScriptedDa() : new ScriptedCa(domain)),
      release: async () => {},
      now,
    });
    /** One human episode in a seat, played to the end by its simplest moves. */
    const humanEpisode = async (seat: 'customer' | 'agent', seed: number) => {
      let v = await play.handlers['play/start']({ seat, player: 'Ada', opponent: 'scripted', seed });
      while (v.status === 'playing') {
        const action =
          seat === 'customer'
            ? { kind: 'say' as const, text: 'It is about a charge on my card, please help.' }
            : { kind: 'end_call' as const, text: 'Goodbye' };
        v = await play.handlers['play/act']({ sessionId: v.sessionId, action });
      }
      return v.episode!.id;
    };
    const [, c2, c3] = [await humanEpisode('customer', 1), await humanEpisode('customer', 2), await humanEpisode('customer', 3)];
    await humanEpisode('agent', 4); // a person's agent episode trains the CA, not the DA
    const quick = PRESETS.quick.config;
    const config: RunConfig = {
      ...quick,
      gym: { ...quick.gym, da: { ...quick.gym.da, steps: 1, promptsPerStep: 2, K: 2 }, humanEpisodes: { weight: 2, cap: 2 } },
    };
    await scriptedMatch(store, 'M1', now(), 1, config);
    await humanEpisode('customer', 5); // played after the match: not in this gym
    store.db.prepare("INSERT INTO runs (id, created_at, updated_at, status, seed, config_json) VALUES ('R1', 'now', 'now', 'running', 1, '{}')").run();

    const intents = domain.taxonomy.map((t) => ({ intent: t.intent, tool: t.tool }));
    const da0 = await DaModel.create({
      intents,
      seed: 1,
      net: { embedDim: 8, hidden: 16, hashing: { buckets: 512, bagLength: 16, wordNgrams: [1], charNgrams: [3] } },
    });
    const ca0 = await CaModel.create(domain.taxonomy, {
      sizes: { hashing: { buckets: 512, bagLength: 16, wordNgrams: [1], charNgrams: [] }, embedDim: 8, hidden: 16 },
      seed: 1,
    });
    checkpoints.save({ role: 'DA', name: 'DA0', source: 'sft', runId: 'R1', snapshot: await da0.snapshot() });
    checkpoints.save({ role: 'CA', name: 'CA0', source: 'bootstrap', runId: 'R1', snapshot: await ca0.snapshot() });
    await da0.dispose();
    await ca0.dispose();

    const ctx: LabContext = {
      runId: 'R1',
      seed: 1,
      domain,
      config,
      sparring: sparringConfigOf(config),
      store,
      checkpoints,
      progress: () => {},
      metric: () => {},
      stopped: () => false,
    };
    const cache = new PolicyCache(ctx);
    try {
      const out = await gym(ctx, cache, { runId: 'R1', role: 'DA', from: 'DA0', opponent: 'CA0', matchId: 'M1', afterMatch: 1, seed: 1 });
      expect(out.checkpoint).toBe('DA1');
      const da1 = checkpoints.get('DA1')!;
      // The newest `cap` = 2 customer episodes played before M1: c3 and c2, not c1 (cap), the agent one, or the later one.
      expect(da1.trainingData).toEqual([
        { kind: 'match', id: 'M1' },
        { kind: HUMAN_EPISODE, id: c3 },
        { kind: HUMAN_EPISODE, id: c2 },
      ]);
      // A child trained without human data still saw it, through its parent.
      checkpoints.save({
        role: 'DA',
        name: 'DA2',
        source: 'gym',
        runId: 'R1',
        parent: 'DA1',
        snapshot: da1.snapshot,
        trainingData: [{ kind: 'match', id: 'M1' }],
      });
      expect(checkpoints.humanEpisodesSeen('DA2')).toEqual([c3, c2]);
      expect(checkpoints.humanEpisodesSeen('DA0')).toEqual([]);

      // A run killed after a gym saved its checkpoint, before the run's next snapshot, restarts
      // that gym on resume: it returns the stored checkpoint, and the note stored with it.
      const note = 'stopped after step 3 of 8: mean KL to the start over the last 5 steps 1.20 > maxKl 1 (trust region)';
      checkpoints.save({
        role: 'DA',
        name: 'DA3',
        source: 'gym',
        runId: 'R1',
        parent: 'DA0',
        snapshot: da1.snapshot,
        trainingData: [{ kind: 'match', id: 'M9' }],
        note,
      });
      expect(await gym(ctx, cache, { runId: 'R1', role: 'DA', from: 'DA0', opponent: 'CA0', matchId: 'M9', seed: 1 })).toEqual({ checkpoint: 'DA3', note });
      expect(checkpoints.list('DA').map((c) => c.name)).toEqual(['DA0', 'DA1', 'DA2', 'DA3']);

      // gym.daOtherIntents: the gym first plays (and stores) a match of its DA against the frozen CA
      // on the intents beyond the arena, trains on it with the arena's transcripts, and names it.
      const wide: LabContext = { ...ctx, config: { ...config, gym: { ...config.gym, daOtherIntents: 1 } } };
      const out4 = await gym(wide, cache, { runId: 'R1', role: 'DA', from: 'DA3', opponent: 'CA0', matchId: 'M1', afterMatch: 1, seed: 1 });
      const m = store.getMatch('M1-G')!;
      expect(m.scenarioSet).toBe('other-intents');
      expect(m.perScenario.map((p) => p.scenarioId)).toEqual(otherIntentScenarios(domain, domain.bank, 'gym').map((s) => s.id));
      expect(m.episodesPerScenario).toBe(1);
      expect(m.daCheckpoint?.name ?? m.daSpec).toBe('DA3');
      expect(checkpoints.get(out4.checkpoint)!.trainingData.slice(0, 2)).toEqual([
        { kind: 'match', id: 'M1' },
        { kind: 'match', id: 'M1-G' },
      ]);
    } finally {
      await cache.dispose();
      store.close();
    }
  });
});

describe('gym data from recent matches (gym.matches)', () => {
  it('pools the transcripts of the run’s latest matches before the failure mix, and only those that exist', async () => {
    const store = openSqliteStore(path.join(tmp, 'recent.db'));
    // smoke leaves gym.matches unset (quick sets 3), so the first case reads the default: the latest match.
    const quick = PRESETS.smoke.config;
    for (const k of [1, 2, 3]) await scriptedMatch(store, `R1-M${k}`, `2026-03-0${k}T00:00:00.000Z`, k, quick);
    const ids = async (matches: number | undefined, matchId: string) => {
      const config: RunConfig = { ...quick, gym: { ...quick.gym, failureShare: 0.5, ...(matches ? { matches } : {}) } };
      const eps = await gymEpisodes({ store, domain, config }, { role: 'DA', matchId, seed: 1, afterMatch: Number(matchId.slice(-1)) });
      return new Set(eps.map((e) => e.id!.split(':')[0]));
    };
    expect(await ids(undefined, 'R1-M3')).toEqual(new Set(['R1-M3']));
    expect(await ids(2, 'R1-M3')).toEqual(new Set(['R1-M2', 'R1-M3']));
    expect(await ids(8, 'R1-M2')).toEqual(new Set(['R1-M1', 'R1-M2']));
    store.close();
  });
});

describe('a DA gym beyond the arena (gym.daOtherIntents)', () => {
  it("pools the gym's match on the other intents with the arena's transcripts, for the DA's gyms only and only when asked", async () => {
    const store = openSqliteStore(path.join(tmp, 'other-intents.db'));
    const quick = PRESETS.quick.config;
    await scriptedMatch(store, 'R1-M1', '2026-03-01T00:00:00.000Z', 1, quick);
    await scriptedMatch(store, 'R1-M1-G', '2026-03-01T00:01:00.000Z', 2, quick, 1, otherIntentScenarios(domain, domain.bank, 'gym'));
    const matchesOf = async (daOtherIntents: number | undefined, role: 'DA' | 'CA') => {
      const config: RunConfig = { ...quick, gym: { ...quick.gym, failureShare: 0.5, ...(daOtherIntents !== undefined ? { daOtherIntents } : {}) } };
      const eps = await gymEpisodes({ store, domain, config }, { role, matchId: 'R1-M1', seed: 1, afterMatch: 1 });
      return { matches: new Set(eps.map((e) => e.id!.split(':')[0])), scenarios: eps.map((e) => e.scenario.id) };
    };
    const wide = await matchesOf(4, 'DA');
    expect(wide.matches).toEqual(new Set(['R1-M1', 'R1-M1-G']));
    // Its episodes replay on their synthetic scenarios.
    expect(wide.scenarios.some((id) => id.startsWith('synth:'))).toBe(true);
    expect((await matchesOf(undefined, 'DA')).matches).toEqual(new Set(['R1-M1']));
    expect((await matchesOf(0, 'DA')).matches).toEqual(new Set(['R1-M1']));
    expect((await matchesOf(4, 'CA')).matches).toEqual(new Set(['R1-M1']));
    store.close();
  });
});

describe("the DA's failures in its gym (gym.daFailure)", () => {
  it("counts the episodes the judge left unresolved as the DA's failures only when asked to", async () => {
    const store = openSqliteStore(path.join(tmp, 'unresolved.db'));
    const quick = PRESETS.quick.config;
    await scriptedMatch(store, 'R1-M1', '2026-03-01T00:00:00.000Z', 1, quick, 6);
    // Three episodes the DA won, marked unresolved by the judge.
    const won = store.db.prepare("SELECT id FROM episodes WHERE match_id = 'R1-M1' AND winner = 'DA' ORDER BY idx").all() as { id: string }[];
    expect(won.length).toBeGreaterThan(6);
    const unresolved = won.slice(0, 3).map((r) => r.id);
    for (const id of unresolved) store.db.prepare('UPDATE episodes SET judge_resolved = 0 WHERE id = ?').run(id);
    const gymIds = async (daFailure: 'lost' | 'unresolved' | undefined, role: 'DA' | 'CA') => {
      // Failures only, and the one success mixFailures always keeps.
      const config: RunConfig = { ...quick, gym: { ...quick.gym, failureShare: 1, ...(daFailure ? { daFailure } : {}) } };
      const eps = await gymEpisodes({ store, domain, config }, { role, matchId: 'R1-M1', seed: 1, afterMatch: 1 });
      return eps.map((e) => e.id!);
    };
    const lost = await gymIds(undefined, 'DA');
    expect(lost.filter((id) => unresolved.includes(id)).length).toBeLessThanOrEqual(1);
    expect(await gymIds('lost', 'DA')).toEqual(lost);
    const withUnresolved = await gymIds('unresolved', 'DA');
    expect(withUnresolved).toEqual(expect.arrayContaining(unresolved));
    expect(withUnresolved.length).toBe(lost.length + 3);
    // The CA's failures are the DA's wins whatever the setting.
    expect(await gymIds('unresolved', 'CA')).toEqual(await gymIds(undefined, 'CA'));
    store.close();
  });
});
