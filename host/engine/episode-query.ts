/**
 * `episodes/list`: one page of episode summaries and the total that matches the filter, in the
 * store's order (matches by creation, then index), fast at any depth of a large lab.
 *
 * SQL OFFSET walks every row before the page, so page 1,000 of 100,000 episodes cost a join over
 * the whole table, and a count(*) ran with every page. Instead each filter gets a directory: how
 * many matching episodes each match holds, in match order (one grouped scan, cached until a match
 * is added). A page then binary-searches the directory for the match holding its first row and
 * reads that match's rows by the (match_id, idx) key (or the winner / scenario index), so a page
 * costs the same at the end of the list as at the start, and the total comes from the directory.
 */
import type { Statement } from 'better-sqlite3';
import type { EpisodeFilter } from '../../core/contract/contract';
import type { EpisodeSummary } from '../../core/store/port';
import type { EpisodeRow } from '../store/rows';
import { episodeSummary } from '../store/sqlite-store';
import type { SqliteRunStore } from '../store/sqlite-store';
import { ANY_VALIDATOR, VALIDATOR_BITS, backfillValidatorFailures } from '../store/episode-validation';

export const DEFAULT_EPISODE_PAGE = 100;

export interface EpisodePage {
  total: number;
  items: EpisodeSummary[];
}

type Filters = Omit<EpisodeFilter, 'offset' | 'limit' | 'matchId'>;

interface Directory {
  /** Lab version it was built for (matches count and newest seq). */
  version: string;
  matchIds: string[];
  /** starts[i]: filtered episodes before matchIds[i]; starts.at(-1) is the total. */
  starts: number[];
}

/** Directories kept per filter combination (values included); oldest dropped first. */
const MAX_DIRECTORIES = 32;

export function createEpisodeQuery(store: SqliteRunStore): (f: EpisodeFilter) => EpisodePage {
  const db = store.db;
  const statements = new Map<string, Statement>();
  const prepared = (sql: string) => {
    let s = statements.get(sql);
    if (!s) statements.set(sql, (s = db.prepare(sql)));
    return s;
  };
  const directories = new Map<string, Directory>();

  function where(f: Filters): string[] {
    const w: string[] = [];
    if (f.scenarioId !== undefined) w.push('scenario_id = @scenarioId');
    if (f.winner !== undefined) w.push('winner = @winner');
    if (f.resolved !== undefined) w.push('judge_resolved = @resolved');
    if (f.hallucination !== undefined) w.push('judge_hallucination = @hallucination');
    if (f.validatorFailed !== undefined) w.push('(validator_failed & @validatorBits) != 0');
    return w;
  }

  function params(f: Filters): Record<string, string | number> {
    const p: Record<string, string | number> = {};
    if (f.scenarioId !== undefined) p.scenarioId = f.scenarioId;
    if (f.winner !== undefined) p.winner = f.winner;
    if (f.resolved !== undefined) p.resolved = f.resolved ? 1 : 0;
    if (f.hallucination !== undefined) p.hallucination = f.hallucination ? 1 : 0;
    if (f.validatorFailed !== undefined) p.validatorBits = f.validatorFailed === 'any' ? ANY_VALIDATOR : VALIDATOR_BITS[f.validatorFailed];
    return p;
  }

  function directory(f: Filters): Directory {
    const version = prepared("SELECT count(*) || ':' || ifnull(max(seq), 0) FROM matches").pluck().get() as string;
    const key = JSON.stringify(params(f));
    const hit = directories.get(key);
    if (hit && hit.version === version) return hit;
    const w = where(f);
    const counts = new Map(
      (
        prepared(`SELECT match_id AS m, count(*) AS n FROM episodes ${w.length ? `WHERE ${w.join(' AND ')}` : ''} GROUP BY match_id`).all(params(f)) as {
          m: string;
          n: number;
        }[]
      ).map((r) => [r.m, r.n]),
    );
    const matchIds: string[] = [];
    const starts: number[] = [0];
    for (const id of prepared('SELECT id FROM matches ORDER BY created_at, seq').pluck().all() as string[]) {
      const n = counts.get(id);
      if (!n) continue;
      matchIds.push(id);
      starts.push(starts.at(-1)! + n);
    }
    const dir = { version, matchIds, starts };
    directories.delete(key);
    directories.set(key, dir);
    if (directories.size > MAX_DIRECTORIES) directories.delete(directories.keys().next().value!);
    return dir;
  }

  /** Up to `limit` filtered rows of one match from position `skip` within it, by index. */
  function rowsOf(matchId: string, f: Filters, skip: number, limit: number): EpisodeSummary[] {
    const w = ['match_id = @matchId', ...where(f)];
    const rows = prepared(`SELECT * FROM episodes WHERE ${w.join(' AND ')} ORDER BY idx LIMIT @limit OFFSET @skip`).all({ ...params(f), matchId, skip, limit });
    return (rows as EpisodeRow[]).map(episodeSummary);
  }

  return (f) => {
    const offset = f.offset ?? 0;
    const limit = f.limit ?? DEFAULT_EPISODE_PAGE;
    const { matchId, offset: _o, limit: _l, ...filters } = f;
    // Verdicts missing (older episodes, an edited custom scenario) are computed once, here.
    if (filters.validatorFailed !== undefined && backfillValidatorFailures(db, (id) => store.getEpisode(id)) > 0) directories.clear();
    if (matchId !== undefined) {
      const w = ['match_id = @matchId', ...where(filters)];
      const total = prepared(`SELECT count(*) FROM episodes WHERE ${w.join(' AND ')}`)
        .pluck()
        .get({ ...params(filters), matchId }) as number;
      return { total, items: rowsOf(matchId, filters, offset, limit) };
    }
    const dir = directory(filters);
    const total = dir.starts.at(-1)!;
    const items: EpisodeSummary[] = [];
    // The last match whose first filtered row is at or before `offset`.
    let lo = 0;
    let hi = dir.matchIds.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (dir.starts[mid]! <= offset) lo = mid;
      else hi = mid - 1;
    }
    for (let i = lo; i < dir.matchIds.length && items.length < limit && offset < total; i++) {
      const skip = Math.max(0, offset - dir.starts[i]!);
      items.push(...rowsOf(dir.matchIds[i]!, filters, skip, limit - items.length));
    }
    return { total, items };
  };
}
