/** What the Export screen offers first. */
import type { MatchRecord } from '../../../../core/contract/contract';

/** Episodes a match needs before its per-scenario chart says something (a human match has one). */
export const MIN_CHART_EPISODES = 2;

const episodesOf = (m: Pick<MatchRecord, 'perScenario'>) => m.perScenario.reduce((n, s) => n + s.episodes, 0);

/**
 * The match whose chart the picker shows first: the newest with at least MIN_CHART_EPISODES
 * episodes (matches are listed oldest first), else the newest; null when there is none.
 */
export function defaultChartMatch(matches: readonly Pick<MatchRecord, 'id' | 'perScenario'>[]): string | null {
  for (let i = matches.length - 1; i >= 0; i--) if (episodesOf(matches[i]!) >= MIN_CHART_EPISODES) return matches[i]!.id;
  return matches.at(-1)?.id ?? null;
}
