/**
 * `episodes/list`: one page of episode summaries and the total that matches the filter. Filters
 * the RunStore knows (match, scenario, winner) go to it; the judge filters (resolved,
 * hallucination) are not part of the store port, so they page over the lab's episodes table here,
 * in the store's order (match by creation, then index), and only the page is loaded.
 */
import type { Statement } from 'better-sqlite3';
import type { EpisodeFilter } from '../../core/contract/contract';
import type { EpisodeSummary } from '../../core/store/port';
import type { SqliteRunStore } from '../store/sqlite-store';

export const DEFAULT_EPISODE_PAGE = 100;

export interface EpisodePage {
  total: number;
  items: EpisodeSummary[];
}

export function createEpisodeQuery(store: SqliteRunStore): (f: EpisodeFilter) => EpisodePage {
  const statements = new Map<string, Statement>();
  function statement(f: EpisodeFilter, what: 'ids' | 'count'): Statement {
    const where: string[] = [];
    if (f.matchId !== undefined) where.push('e.match_id = @matchId');
    if (f.scenarioId !== undefined) where.push('e.scenario_id = @scenarioId');
    if (f.winner !== undefined) where.push('e.winner = @winner');
    if (f.resolved !== undefined) where.push('e.judge_resolved = @resolved');
    if (f.hallucination !== undefined) where.push('e.judge_hallucination = @hallucination');
    const key = `${what}:${where.join(',')}`;
    let stmt = statements.get(key);
    if (!stmt) {
      const filter = where.length ? `WHERE ${where.join(' AND ')}` : '';
      const sql =
        what === 'count'
          ? `SELECT count(*) FROM episodes e ${filter}`
          : `SELECT e.id FROM matches m CROSS JOIN episodes e ON e.match_id = m.id ${filter}
             ORDER BY m.created_at, m.seq, e.idx LIMIT @limit OFFSET @offset`;
      stmt = store.db.prepare(sql);
      if (what === 'count' || what === 'ids') stmt.pluck();
      statements.set(key, stmt);
    }
    return stmt;
  }

  return (f) => {
    const offset = f.offset ?? 0;
    const limit = f.limit ?? DEFAULT_EPISODE_PAGE;
    const { matchId, scenarioId, winner } = f;
    if (f.resolved === undefined && f.hallucination === undefined) {
      return {
        total: store.countEpisodes({ matchId, scenarioId, winner }),
        items: store.listEpisodes({ matchId, scenarioId, winner, offset, limit }),
      };
    }
    const params: Record<string, string | number> = {};
    if (matchId !== undefined) params.matchId = matchId;
    if (scenarioId !== undefined) params.scenarioId = scenarioId;
    if (winner !== undefined) params.winner = winner;
    if (f.resolved !== undefined) params.resolved = f.resolved ? 1 : 0;
    if (f.hallucination !== undefined) params.hallucination = f.hallucination ? 1 : 0;
    const total = statement(f, 'count').get(params) as number;
    const ids = statement(f, 'ids').all({ ...params, offset, limit }) as string[];
    const items = ids.map((id) => {
      // getEpisode also reads the turns; a page is at most MAX_EPISODE_PAGE episodes.
      const { turns: _turns, ...summary } = store.getEpisode(id)!;
      return summary;
    });
    return { total, items };
  };
}
