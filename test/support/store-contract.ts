/**
 * The behaviour every RunStore must have, as a vitest suite. Each implementation's test file
 * calls `runStoreContract(name, makeStore)`; `makeStore` returns a fresh, empty store per test.
 * The record factories below are exported for implementation-specific tests.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DOMAIN_TOOLS } from '../../core/domain/types';
import { zeroCaTerms, zeroDaTerms } from '../../core/rewards/terms';
import type { EpisodeRecord, MatchRecord, RunStore, TurnRecord, Winner } from '../../core/store/port';

export interface FakeMatchOptions {
  createdAt?: string;
  /** Scenario ids; episodes cycle through them. */
  scenarios?: string[];
  episodes?: number;
  turnsPerEpisode?: number;
}

/** A match and its episodes with varied, non-trivial values in every field. */
export function fakeMatch(id: string, opts: FakeMatchOptions = {}): { match: MatchRecord; episodes: EpisodeRecord[] } {
  const scenarios = opts.scenarios ?? ['card_lost', 'refund_missing', 'fraud_call'];
  const n = opts.episodes ?? 6;
  const episodes = Array.from({ length: n }, (_, i) =>
    fakeEpisode(id, i, {
      scenarioId: scenarios[i % scenarios.length]!,
      turns: opts.turnsPerEpisode ?? 5,
    }),
  );
  const perScenario = scenarios.map((scenarioId) => {
    const mine = episodes.filter((e) => e.scenarioId === scenarioId);
    const daWins = mine.filter((e) => e.winner === 'DA').length;
    return {
      scenarioId,
      fraudReference: scenarioId.startsWith('fraud'),
      episodes: mine.length,
      daWins,
      daWinRate: mine.length ? daWins / mine.length : 0,
    };
  });
  const match: MatchRecord = {
    id,
    createdAt: opts.createdAt ?? '2025-03-01T10:00:00.000Z',
    seed: 4_294_967_295,
    daSpec: 'scripted',
    caSpec: 'DA2',
    daCheckpoint: null,
    caCheckpoint: { name: 'DA2', id: 'DA2' },
    scenarioSet: 'arena',
    episodesPerScenario: Math.ceil(n / scenarios.length),
    wDa: n ? 2 / 3 : null,
    fraudRate: null,
    perScenario,
    configJson: JSON.stringify({ arena: { episodes: n }, note: 'héllo ✓' }),
  };
  return { match, episodes };
}

export function fakeEpisode(matchId: string, index: number, opts: { scenarioId?: string; turns?: number; winner?: Winner } = {}): EpisodeRecord {
  const winner = opts.winner ?? (index % 3 === 0 ? 'CA' : 'DA');
  const daTerms = { ...zeroDaTerms(), format: 0.5, tool: index % 2 ? 1 : -1.5, env_speak: -0.15, env_late: -0.12 * 1.3 ** 1.4 };
  const caTerms = { ...zeroCaTerms(), realism: 0.1 + 0.2, inv_da: winner === 'CA' ? 1 : -1 };
  const sum = (t: Record<string, number>) => Object.values(t).reduce((a, b) => a + b, 0);
  const turns: TurnRecord[] = Array.from({ length: opts.turns ?? 5 }, (_, i) => fakeTurn(i, index));
  return {
    id: `${matchId}:${index}`,
    matchId,
    index,
    scenarioId: opts.scenarioId ?? 'card_lost',
    fraudReference: (opts.scenarioId ?? '').startsWith('fraud'),
    seed: 1000 + index,
    intent: 'lost_or_stolen_card',
    expectedTool: DOMAIN_TOOLS[index % DOMAIN_TOOLS.length]!,
    routedTool: index % 4 === 0 ? null : 'check_card_status',
    winner,
    endReason: index % 5 === 4 ? 'turn_limit' : 'end_call',
    rDa: sum(daTerms),
    rCa: sum(caTerms),
    daTerms,
    caTerms,
    judge: {
      score: index % 2 ? 1.5 : -0.75,
      resolved: index % 2 === 1,
      tier: ((index % 4) + 1) as 1 | 2 | 3 | 4,
      hallucination: index % 2 === 0,
      hallucinations: index % 2 === 0 ? [{ turn: 1, claim: 'your card was "replaced" yesterday' }] : [],
      rationale: `episode ${index}: routed\nafter verification`,
    },
    turns,
  };
}

function fakeTurn(i: number, episode: number): TurnRecord {
  if (i % 2 === 0) {
    return {
      index: i,
      role: 'customer',
      text: `I can't find my card 💳 (${episode}/${i})`,
      actionType: null,
      tool: null,
      toolArgs: null,
      toolResult: null,
      parseError: null,
      rewards: i === 0 ? { realism: 0.25, conceal: -0.5 } : {},
    };
  }
  const kind = ((i - 1) / 2) % 4;
  if (kind === 0) {
    return {
      index: i,
      role: 'agent',
      text: '{"thinking":"verify first","action_type":"tool_call","content":"lookup_account","tool_args":{"name":"Ada"}}',
      actionType: 'tool_call',
      tool: 'lookup_account',
      toolArgs: { name: 'Ada', dob: '1990-01-02', nested: { list: [1, 'two', null, true] } },
      toolResult: { ok: true, tool: 'lookup_account', data: { accountId: 'A-17', balance: 12.5 } },
      parseError: null,
      rewards: { format: 0.5, env_lookup_first: 0.5 },
    };
  }
  if (kind === 1) {
    return {
      index: i,
      role: 'agent',
      text: '{"action_type":"tool_call","content":"transfer_funds","tool_args":{}}',
      actionType: 'tool_call',
      tool: 'transfer_funds',
      toolArgs: {},
      toolResult: { ok: false, tool: 'transfer_funds', error: { code: 'INSUFFICIENT_FUNDS', message: 'balance 12.50' } },
      parseError: null,
      rewards: { format: 0.5, tool: -1, env_speak: -0.05 },
    };
  }
  if (kind === 2) {
    return {
      index: i,
      role: 'agent',
      text: 'not json at all',
      actionType: null,
      tool: null,
      toolArgs: null,
      toolResult: null,
      parseError: 'Unexpected token o in JSON at position 1',
      rewards: { format: -3 },
    };
  }
  return {
    index: i,
    role: 'agent',
    text: '{"thinking":"done","action_type":"end_call","content":"Goodbye"}',
    actionType: 'end_call',
    tool: null,
    toolArgs: null,
    toolResult: null,
    parseError: null,
    rewards: { end: 1, env_late: -0.12 * 2 ** 1.4 },
  };
}

/** Everything a store holds, read back through the port, to compare before and after. */
function contents(store: RunStore) {
  const summaries = store.listEpisodes({ limit: 1_000_000 });
  return {
    matches: store.listMatches(),
    count: store.countEpisodes(),
    episodes: summaries.map((e) => store.getEpisode(e.id)),
  };
}

function withoutTurns(e: EpisodeRecord) {
  const { turns: _turns, ...summary } = e;
  return summary;
}

export function runStoreContract(name: string, makeStore: () => RunStore): void {
  describe(`RunStore contract: ${name}`, () => {
    let store: RunStore;
    beforeEach(() => {
      store = makeStore();
    });
    afterEach(() => {
      store.close();
    });

    describe('round trip', () => {
      it('returns the match and every episode exactly as saved', () => {
        const { match, episodes } = fakeMatch('m1', { episodes: 7, turnsPerEpisode: 9 });
        store.saveMatch(match, episodes);
        expect(store.getMatch('m1')).toStrictEqual(match);
        expect(store.listMatches()).toStrictEqual([match]);
        for (const e of episodes) expect(store.getEpisode(e.id)).toStrictEqual(e);
        expect(store.listEpisodes()).toStrictEqual(episodes.map(withoutTurns));
      });

      it('keeps nulls, empty objects and extreme numbers', () => {
        const { match, episodes } = fakeMatch('m1', { episodes: 1, turnsPerEpisode: 2 });
        match.wDa = null;
        match.fraudRate = 0;
        match.perScenario = [];
        const e = episodes[0]!;
        e.rDa = Number.MAX_VALUE;
        e.rCa = -Number.MIN_VALUE;
        e.seed = 2 ** 53 - 1;
        e.turns[1]!.toolArgs = {};
        e.turns[1]!.rewards = {};
        store.saveMatch(match, episodes);
        expect(store.getMatch('m1')).toStrictEqual(match);
        expect(store.getEpisode(e.id)).toStrictEqual(e);
      });

      it('stores a match with no episodes', () => {
        const { match } = fakeMatch('empty', { episodes: 0 });
        store.saveMatch(match, []);
        expect(store.getMatch('empty')).toStrictEqual(match);
        expect(store.countEpisodes({ matchId: 'empty' })).toBe(0);
      });

      it('returns undefined for unknown ids', () => {
        expect(store.getMatch('nope')).toBeUndefined();
        expect(store.getEpisode('nope:0')).toBeUndefined();
      });

      it('returns turns in index order whatever order the episodes came in', () => {
        const { match, episodes } = fakeMatch('m1', { episodes: 4, turnsPerEpisode: 12 });
        store.saveMatch(match, [...episodes].reverse());
        const e = store.getEpisode('m1:2')!;
        expect(e.turns.map((t) => t.index)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]);
        expect(store.listEpisodes().map((x) => x.index)).toEqual([0, 1, 2, 3]);
      });

      it('copies records in and out, so callers cannot change stored data', () => {
        const { match, episodes } = fakeMatch('m1', { episodes: 2 });
        const expected = JSON.parse(JSON.stringify({ match, episodes })) as { match: MatchRecord; episodes: EpisodeRecord[] };
        store.saveMatch(match, episodes);
        match.perScenario[0]!.daWins = 99;
        episodes[0]!.turns[1]!.toolArgs!.name = 'Mallory';
        episodes[0]!.daTerms.format = 42;
        const got = store.getEpisode('m1:0')!;
        got.turns[0]!.text = 'changed';
        got.judge.hallucinations.push({ turn: 9, claim: 'x' });
        store.getMatch('m1')!.perScenario.pop();
        store.listEpisodes()[0]!.caTerms.realism = 7;
        expect(store.getMatch('m1')).toStrictEqual(expected.match);
        expect(store.getEpisode('m1:0')).toStrictEqual(expected.episodes[0]);
      });
    });

    describe('listing', () => {
      it('lists matches oldest first, equal timestamps in save order', () => {
        store.saveMatch(fakeMatch('b', { createdAt: '2025-03-02T00:00:00.000Z', episodes: 0 }).match, []);
        store.saveMatch(fakeMatch('a', { createdAt: '2025-03-03T00:00:00.000Z', episodes: 0 }).match, []);
        store.saveMatch(fakeMatch('z', { createdAt: '2025-03-01T00:00:00.000Z', episodes: 0 }).match, []);
        store.saveMatch(fakeMatch('y', { createdAt: '2025-03-02T00:00:00.000Z', episodes: 0 }).match, []);
        expect(store.listMatches().map((m) => m.id)).toEqual(['z', 'b', 'y', 'a']);
      });

      it('lists episodes by match (oldest first) then index', () => {
        // Ids sort the other way round, so ordering by id would fail.
        const late = fakeMatch('a-late', { createdAt: '2025-03-05T00:00:00.000Z', episodes: 3 });
        const early = fakeMatch('b-early', { createdAt: '2025-03-04T00:00:00.000Z', episodes: 3 });
        store.saveMatch(late.match, late.episodes);
        store.saveMatch(early.match, early.episodes);
        expect(store.listEpisodes().map((e) => e.id)).toEqual(['b-early:0', 'b-early:1', 'b-early:2', 'a-late:0', 'a-late:1', 'a-late:2']);
      });

      describe('filters and paging', () => {
        // 2 matches × 9 episodes over scenarios s1..s3; winner is CA for index 0, 3, 6.
        beforeEach(() => {
          for (const [id, createdAt] of [
            ['m1', '2025-03-01T00:00:00.000Z'],
            ['m2', '2025-03-02T00:00:00.000Z'],
          ] as const) {
            const { match, episodes } = fakeMatch(id, { createdAt, episodes: 9, scenarios: ['s1', 's2', 's3'] });
            store.saveMatch(match, episodes);
          }
        });

        it('filters by match, scenario and winner, alone and together', () => {
          const ids = (q: Parameters<RunStore['listEpisodes']>[0]) => store.listEpisodes(q).map((e) => e.id);
          expect(ids({ matchId: 'm2' })).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8].map((i) => `m2:${i}`));
          expect(ids({ scenarioId: 's2' })).toEqual(['m1:1', 'm1:4', 'm1:7', 'm2:1', 'm2:4', 'm2:7']);
          expect(ids({ winner: 'CA' })).toEqual(['m1:0', 'm1:3', 'm1:6', 'm2:0', 'm2:3', 'm2:6']);
          expect(ids({ matchId: 'm1', scenarioId: 's1', winner: 'CA' })).toEqual(['m1:0', 'm1:3', 'm1:6']);
          expect(ids({ matchId: 'm1', scenarioId: 's2', winner: 'CA' })).toEqual([]);
          expect(ids({ matchId: 'unknown' })).toEqual([]);
        });

        it('counts what the same filters list', () => {
          expect(store.countEpisodes()).toBe(18);
          expect(store.countEpisodes({ matchId: 'm1' })).toBe(9);
          expect(store.countEpisodes({ scenarioId: 's3' })).toBe(6);
          expect(store.countEpisodes({ winner: 'DA' })).toBe(12);
          expect(store.countEpisodes({ matchId: 'm2', winner: 'CA' })).toBe(3);
          expect(store.countEpisodes({ scenarioId: 'nope' })).toBe(0);
        });

        it('pages with offset and limit', () => {
          const all = store.listEpisodes().map((e) => e.id);
          expect(all).toHaveLength(18);
          expect(store.listEpisodes({ offset: 5, limit: 4 }).map((e) => e.id)).toEqual(all.slice(5, 9));
          expect(store.listEpisodes({ offset: 16, limit: 10 }).map((e) => e.id)).toEqual(all.slice(16));
          expect(store.listEpisodes({ offset: 18 })).toEqual([]);
          expect(store.listEpisodes({ limit: 0 })).toEqual([]);
          expect(store.listEpisodes({ winner: 'DA', offset: 2, limit: 3 }).map((e) => e.id)).toEqual(['m1:4', 'm1:5', 'm1:7']);
        });

        it('rejects a negative or fractional offset or limit', () => {
          expect(() => store.listEpisodes({ offset: -1 })).toThrow(RangeError);
          expect(() => store.listEpisodes({ limit: 2.5 })).toThrow(RangeError);
        });
      });

      it('returns at most 100 episodes by default', () => {
        const { match, episodes } = fakeMatch('big', { episodes: 130, turnsPerEpisode: 1 });
        store.saveMatch(match, episodes);
        expect(store.listEpisodes()).toHaveLength(100);
        expect(store.listEpisodes({ offset: 100 })).toHaveLength(30);
        expect(store.countEpisodes()).toBe(130);
      });
    });

    describe('appendEpisode', () => {
      it('creates the match with its first episode, then adds episodes and replaces the summary', () => {
        const { match, episodes } = fakeMatch('s1', { episodes: 3 });
        const first = { ...match, wDa: 1, perScenario: [{ ...match.perScenario[0]!, episodes: 1, daWins: 1, daWinRate: 1 }] };
        store.appendEpisode(first, episodes[0]!);
        expect(store.getMatch('s1')?.wDa).toBe(1);
        expect(store.countEpisodes({ matchId: 's1' })).toBe(1);
        store.appendEpisode(match, episodes[2]!);
        store.appendEpisode(match, episodes[1]!);
        const got = store.getMatch('s1')!;
        expect(got.wDa).toBe(match.wDa);
        expect(got.perScenario).toStrictEqual(match.perScenario);
        expect(got.createdAt).toBe(match.createdAt);
        expect(store.listEpisodes({ matchId: 's1' }).map((e) => e.index)).toStrictEqual([0, 1, 2]);
        expect(store.getEpisode(episodes[1]!.id)).toStrictEqual(episodes[1]);
      });

      it('refuses an episode already stored and leaves the match as it was', () => {
        const { match, episodes } = fakeMatch('s1', { episodes: 2 });
        store.appendEpisode(match, episodes[0]!);
        const before = contents(store);
        expect(() => store.appendEpisode({ ...match, wDa: 0.123 }, episodes[0]!)).toThrow(/s1:0.*already exists/);
        expect(contents(store)).toStrictEqual(before);
        expect(store.getMatch('s1')?.wDa).toBe(match.wDa);
      });

      it('refuses a NaN term and writes neither the match nor the episode', () => {
        const { match, episodes } = fakeMatch('s1', { episodes: 1 });
        episodes[0]!.daTerms.format = Number.NaN;
        expect(() => store.appendEpisode(match, episodes[0]!)).toThrow(/format/);
        expect(store.getMatch('s1')).toBeUndefined();
      });
    });

    describe('atomicity', () => {
      let before: ReturnType<typeof contents>;
      beforeEach(() => {
        const { match, episodes } = fakeMatch('m1', { episodes: 3 });
        store.saveMatch(match, episodes);
        before = contents(store);
      });

      function expectUnchanged(): void {
        expect(contents(store)).toStrictEqual(before);
        expect(store.getMatch('m2')).toBeUndefined();
        expect(store.getEpisode('m2:0')).toBeUndefined();
      }

      it('rejects an episode of another match and stores nothing', () => {
        const { match, episodes } = fakeMatch('m2', { episodes: 5 });
        episodes[4] = fakeEpisode('m1', 4);
        expect(() => store.saveMatch(match, episodes)).toThrow(/belongs to match "m1"/);
        expectUnchanged();
      });

      it('rejects duplicate episode ids and stores nothing', () => {
        const { match, episodes } = fakeMatch('m2', { episodes: 5 });
        episodes[4] = { ...episodes[4]!, id: 'm2:1' };
        expect(() => store.saveMatch(match, episodes)).toThrow(/m2:1/);
        expectUnchanged();
      });

      it('rejects an episode id that is already stored and stores nothing', () => {
        const { match, episodes } = fakeMatch('m2', { episodes: 5 });
        episodes[4] = { ...episodes[4]!, id: 'm1:2' };
        expect(() => store.saveMatch(match, episodes)).toThrow(/m1:2/);
        expectUnchanged();
      });

      it('rejects a NaN reward and stores nothing', () => {
        const { match, episodes } = fakeMatch('m2', { episodes: 5 });
        episodes[4]!.caTerms.realism = Number.NaN;
        expect(() => store.saveMatch(match, episodes)).toThrow(/realism/);
        expectUnchanged();
      });

      it('rejects turns not numbered by position and stores nothing', () => {
        const { match, episodes } = fakeMatch('m2', { episodes: 5 });
        episodes[4]!.turns[2]!.index = 7;
        expect(() => store.saveMatch(match, episodes)).toThrow(/turn/);
        expectUnchanged();
      });

      it('rejects an unknown reward term and stores nothing', () => {
        const { match, episodes } = fakeMatch('m2', { episodes: 5 });
        (episodes[4]!.turns[1]!.rewards as Record<string, number>).bonus = 1;
        expect(() => store.saveMatch(match, episodes)).toThrow(/bonus/);
        expectUnchanged();
      });

      it('rejects saving the same match id twice and keeps the original', () => {
        const again = fakeMatch('m1', { episodes: 4, createdAt: '2030-01-01T00:00:00.000Z' });
        again.episodes = again.episodes.map((e) => ({ ...e, id: `m1:again:${e.index}` }));
        expect(() => store.saveMatch(again.match, again.episodes)).toThrow(/match "m1" already exists/);
        expectUnchanged();
      });
    });
  });
}
