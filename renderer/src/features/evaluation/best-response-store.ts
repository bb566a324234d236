/** The best-response replay the user asked for (`matches/bestResponse`): its progress, report or error. */
import { create } from 'zustand';
import type { BestResponseView } from '../../../../core/contract/contract';
import type { EngineEvent } from '../../../../core/contract/run-service';
import { errorMessage, request } from '../../engine/client';

export interface BestResponseState {
  status: 'idle' | 'running' | 'done' | 'error';
  /** The match being (or last) replayed. */
  matchId: string | null;
  progress: { done: number; total: number } | null;
  startedAt: number | null;
  report: BestResponseView | null;
  error: string | null;
}

export const useBestResponseStore = create<BestResponseState>()(() => ({
  status: 'idle',
  matchId: null,
  progress: null,
  startedAt: null,
  report: null,
  error: null,
}));

export const selectBestResponse = (s: BestResponseState) => s;

export async function runBestResponse(matchId: string): Promise<void> {
  if (useBestResponseStore.getState().status === 'running') return;
  useBestResponseStore.setState({ status: 'running', matchId, progress: null, startedAt: Date.now(), error: null });
  try {
    const report = await request('matches/bestResponse', { matchId });
    useBestResponseStore.setState({ status: 'done', report });
  } catch (err) {
    useBestResponseStore.setState({ status: 'error', error: errorMessage(err) });
  }
}

export function applyBestResponseEvent(e: EngineEvent): void {
  if (e.name !== 'bestResponse/progress') return;
  const s = useBestResponseStore.getState();
  if (s.status === 'running' && s.matchId === e.payload.matchId) useBestResponseStore.setState({ progress: { done: e.payload.done, total: e.payload.total } });
}
