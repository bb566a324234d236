/**
 * Checks shared by every RunStore implementation, made before anything is written.
 */
import { CA_TERMS, DA_TERMS } from '../rewards/terms';
import type { EpisodeQuery, EpisodeRecord, MatchRecord } from './port';

const DEFAULT_LIMIT = 100;
/** A turn's rewards may name any term; its role says whose reward it is. */
const TURN_TERMS: readonly string[] = [...new Set<string>([...DA_TERMS, ...CA_TERMS])];

/** Offset and limit of a query, defaulted and checked. */
export function checkPage(q: EpisodeQuery): { offset: number; limit: number } {
  const offset = q.offset ?? 0;
  const limit = q.limit ?? DEFAULT_LIMIT;
  if (!Number.isSafeInteger(offset) || offset < 0) {
    throw new RangeError(`listEpisodes: offset must be a non-negative integer, got ${offset}`);
  }
  if (!Number.isSafeInteger(limit) || limit < 0) {
    throw new RangeError(`listEpisodes: limit must be a non-negative integer, got ${limit}`);
  }
  return { offset, limit };
}

/**
 * The checks every RunStore makes on a match before writing any of it: the batch must be
 * internally consistent (episodes belong to the match, ids and indexes are unique, turns are
 * numbered by position, reward terms are the known ones) and no number may be NaN, which SQLite
 * cannot store. Checks against what is already stored are each store's own.
 */
export function checkMatchBatch(match: MatchRecord, episodes: readonly EpisodeRecord[]): void {
  const fail = (what: string): never => {
    throw new Error(`saveMatch("${match.id}"): ${what}; nothing was written`);
  };
  const num = (where: string, v: number | null) => {
    if (typeof v === 'number' && Number.isNaN(v)) fail(`${where} is NaN`);
  };

  num('seed', match.seed);
  num('episodesPerScenario', match.episodesPerScenario);
  num('wDa', match.wDa);
  num('fraudRate', match.fraudRate);
  const scenarios = new Set<string>();
  for (const s of match.perScenario) {
    if (scenarios.has(s.scenarioId)) fail(`perScenario lists scenario "${s.scenarioId}" twice`);
    scenarios.add(s.scenarioId);
    num(`perScenario "${s.scenarioId}" episodes`, s.episodes);
    num(`perScenario "${s.scenarioId}" daWins`, s.daWins);
    num(`perScenario "${s.scenarioId}" daWinRate`, s.daWinRate);
  }

  const ids = new Set<string>();
  const indexes = new Set<number>();
  for (const e of episodes) {
    const at = `episode "${e.id}"`;
    if (e.matchId !== match.id) fail(`${at} belongs to match "${e.matchId}", not to this match`);
    if (ids.has(e.id)) fail(`duplicate episode id "${e.id}"`);
    ids.add(e.id);
    if (indexes.has(e.index)) fail(`two episodes have index ${e.index}`);
    indexes.add(e.index);
    num(`${at} index`, e.index);
    num(`${at} seed`, e.seed);
    num(`${at} rDa`, e.rDa);
    num(`${at} rCa`, e.rCa);
    num(`${at} judge.score`, e.judge.score);
    checkTerms(`${at} daTerms`, e.daTerms, DA_TERMS, true);
    checkTerms(`${at} caTerms`, e.caTerms, CA_TERMS, true);
    e.turns.forEach((t, i) => {
      if (t.index !== i) fail(`${at} turn at position ${i} has index ${t.index}; turns are numbered 0, 1, 2, …`);
      checkTerms(`${at} turn ${i} rewards`, t.rewards, TURN_TERMS, false);
    });
  }

  function checkTerms(where: string, terms: object, known: readonly string[], complete: boolean): void {
    for (const [k, v] of Object.entries(terms)) {
      if (v === undefined && !complete) continue;
      if (!known.includes(k)) fail(`${where} has unknown term "${k}" (known: ${known.join(', ')})`);
      if (typeof v !== 'number' || Number.isNaN(v)) fail(`${where}.${k} is ${String(v)}, not a number`);
    }
    if (complete) {
      for (const k of known) if (!(k in terms)) fail(`${where} lacks term "${k}"`);
    }
  }
}
