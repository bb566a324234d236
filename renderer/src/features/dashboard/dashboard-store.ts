/** View state of the dashboard: which match the scenario panel shows, per run. */
import { create } from 'zustand';

export interface DashboardState {
  selectedMatch: Record<string, string>;
}

export const useDashboardStore = create<DashboardState>()(() => ({ selectedMatch: {} }));

export const selectSelectedMatchOf = (runId: string) => (s: DashboardState) => s.selectedMatch[runId] ?? null;

export function selectRunMatch(runId: string, matchId: string): void {
  useDashboardStore.setState((s) => ({ selectedMatch: { ...s.selectedMatch, [runId]: matchId } }));
}
