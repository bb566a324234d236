/**
 * An in-memory RunStore, for tests and for throwaway sessions that need no lab file. It behaves
 * like the SQLite store (test/support/store-contract.ts runs against both), including the copy semantics:
 * records are copied in and out, so no caller can change stored data by mutating an object.
 */
import type { EpisodeQuery, EpisodeRecord, EpisodeSummary, MatchRecord, RunStore } from './port';
import { checkMatchBatch, checkPage } from './validate';

export function createMemoryStore(): RunStore {
  /** In save order; listMatches sorts a copy by createdAt. */
  const matches: MatchRecord[] = [];
  const matchIds = new Set<string>();
  const episodes = new Map<string, EpisodeRecord>();
  /** matchId → its episodes by index. */
  const episodesByMatch = new Map<string, EpisodeRecord[]>();
  let closed = false;

  function open(): void {
    if (closed) throw new Error('the run store is closed');
  }

  function matchesOldestFirst(): MatchRecord[] {
    // Array.prototype.sort is stable, so equal timestamps keep save order.
    return [...matches].sort((a, b) => (a.createdAt < b.createdAt ? -1 : a.createdAt > b.createdAt ? 1 : 0));
  }

  function* matching(q: Omit<EpisodeQuery, 'offset' | 'limit'>): Generator<EpisodeRecord> {
    for (const m of matchesOldestFirst()) {
      if (q.matchId !== undefined && m.id !== q.matchId) continue;
      for (const e of episodesByMatch.get(m.id) ?? []) {
        if (q.scenarioId !== undefined && e.scenarioId !== q.scenarioId) continue;
        if (q.winner !== undefined && e.winner !== q.winner) continue;
        yield e;
      }
    }
  }

  return {
    saveMatch(match, batch) {
      open();
      checkMatchBatch(match, batch);
      if (matchIds.has(match.id)) throw new Error(`saveMatch: match "${match.id}" already exists`);
      for (const e of batch) {
        if (episodes.has(e.id)) throw new Error(`saveMatch: episode "${e.id}" already exists`);
      }
      // Everything is checked; from here on nothing can throw halfway.
      const stored = batch.map((e) => clonePlain(e)).sort((a, b) => a.index - b.index);
      matches.push(clonePlain(match));
      matchIds.add(match.id);
      episodesByMatch.set(match.id, stored);
      for (const e of stored) episodes.set(e.id, e);
    },

    appendEpisode(match, episode) {
      open();
      checkMatchBatch(match, [episode]);
      if (episodes.has(episode.id)) throw new Error(`appendEpisode: episode "${episode.id}" already exists`);
      const stored = clonePlain(episode);
      const at = matches.findIndex((m) => m.id === match.id);
      // Keep the original creation time and config: only the summary changes as episodes arrive.
      if (at >= 0) {
        const old = matches[at]!;
        matches[at] = {
          ...old,
          episodesPerScenario: match.episodesPerScenario,
          wDa: match.wDa,
          fraudRate: match.fraudRate,
          perScenario: clonePlain(match.perScenario),
        };
      } else {
        matches.push(clonePlain(match));
        matchIds.add(match.id);
      }
      const list = episodesByMatch.get(match.id) ?? [];
      list.push(stored);
      list.sort((a, b) => a.index - b.index);
      episodesByMatch.set(match.id, list);
      episodes.set(stored.id, stored);
    },

    getMatch(id) {
      open();
      const m = matches.find((x) => x.id === id);
      return m && clonePlain(m);
    },

    listMatches() {
      open();
      return matchesOldestFirst().map((m) => clonePlain(m));
    },

    listEpisodes(q = {}) {
      open();
      const { offset, limit } = checkPage(q);
      const out: EpisodeSummary[] = [];
      let skipped = 0;
      for (const e of matching(q)) {
        if (out.length >= limit) break;
        if (skipped < offset) {
          skipped++;
          continue;
        }
        out.push(summary(e));
      }
      return out;
    },

    countEpisodes(q = {}) {
      open();
      let n = 0;
      for (const _ of matching(q)) n++;
      return n;
    },

    getEpisode(id) {
      open();
      const e = episodes.get(id);
      return e && clonePlain(e);
    },

    close() {
      closed = true;
    },
  };
}

function summary(e: EpisodeRecord): EpisodeSummary {
  const { turns: _turns, ...rest } = e;
  return clonePlain(rest);
}

/**
 * A deep copy of plain data (objects, arrays, primitives). As in the SQLite store, undefined
 * properties are dropped and -0 becomes 0, so both stores hand back the same values.
 */
function clonePlain<T>(value: T): T {
  if (Array.isArray(value)) return value.map((v: unknown) => clonePlain(v)) as T;
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) if (v !== undefined) out[k] = clonePlain(v);
    return out as T;
  }
  if (Object.is(value, -0)) return 0 as T;
  return value;
}
