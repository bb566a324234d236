/** The robustness (MADS) evaluation the user asked for: its progress, report or error. */
import { create } from 'zustand';
import type { EngineEvent } from '../../../../core/contract/run-service';
import type { MadsEvaluation } from '../../../../core/contract/contract';
import { errorMessage, request } from '../../engine/client';

export interface RobustnessState {
  status: 'idle' | 'running' | 'done' | 'error';
  progress: { done: number; total: number } | null;
  startedAt: number | null;
  report: MadsEvaluation | null;
  error: string | null;
}

export const useRobustnessStore = create<RobustnessState>()(() => ({ status: 'idle', progress: null, startedAt: null, report: null, error: null }));

export const selectRobustness = (s: RobustnessState) => s;

export async function runRobustness(args: { da: string; ca: string; episodesPerScenario: number; seed: number }): Promise<void> {
  if (useRobustnessStore.getState().status === 'running') return;
  useRobustnessStore.setState({ status: 'running', progress: null, startedAt: Date.now(), error: null });
  try {
    const report = await request('eval/mads', args);
    useRobustnessStore.setState({ status: 'done', report });
  } catch (err) {
    useRobustnessStore.setState({ status: 'error', error: errorMessage(err) });
  }
}

export function applyRobustnessEvent(e: EngineEvent): void {
  if (e.name === 'eval/progress' && useRobustnessStore.getState().status === 'running') useRobustnessStore.setState({ progress: e.payload });
}
