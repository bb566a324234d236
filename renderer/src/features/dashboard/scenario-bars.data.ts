/** Per-scenario DA win rates of one match, CA-winnable scenarios first, fraud references after. */
import type { MatchRecord } from '../../../../core/contract/contract';

export interface ScenarioBar {
  scenarioId: string;
  rate: number;
  wins: number;
  episodes: number;
  fraud: boolean;
}

export function scenarioBars(match: Pick<MatchRecord, 'perScenario'> | null | undefined): ScenarioBar[] {
  if (!match) return [];
  const bars = match.perScenario.map((s) => ({ scenarioId: s.scenarioId, rate: s.daWinRate, wins: s.daWins, episodes: s.episodes, fraud: s.fraudReference }));
  return [...bars.filter((b) => !b.fraud), ...bars.filter((b) => b.fraud)];
}
