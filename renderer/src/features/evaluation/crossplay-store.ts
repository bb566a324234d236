/**
 * Cross-play for the heat map: the lab's checkpoints, the pairs to play, the engine's progress
 * (`crossplay/progress` events, mirrored here) and its answer. The engine plays on request and
 * caches answers, so asking again for the same pairs is instant.
 */
import { create } from 'zustand';
import type { CheckpointInfo, CrossPlay } from '../../../../core/contract/contract';
import type { EngineEvent } from '../../../../core/contract/run-service';
import { errorMessage, request } from '../../engine/client';
import type { LoadStatus } from '../runs/runs-store';

export interface CrossPlayState {
  checkpoints: CheckpointInfo[] | null;
  checkpointsStatus: LoadStatus;
  checkpointsError: string | null;
  episodesPerScenario: number;
  status: LoadStatus;
  error: string | null;
  progress: { done: number; total: number } | null;
  result: CrossPlay | null;
  /** Bumped per request, so a late answer to an older one is dropped. */
  generation: number;
}

export const useCrossPlayStore = create<CrossPlayState>()(() => ({
  checkpoints: null,
  checkpointsStatus: 'idle',
  checkpointsError: null,
  episodesPerScenario: 4,
  status: 'idle',
  error: null,
  progress: null,
  result: null,
  generation: 0,
}));

export const selectCheckpoints = (s: CrossPlayState) => s.checkpoints;
export const selectCheckpointsStatus = (s: CrossPlayState) => s.checkpointsStatus;
export const selectCheckpointsError = (s: CrossPlayState) => s.checkpointsError;
export const selectEpisodesPerScenario = (s: CrossPlayState) => s.episodesPerScenario;
export const selectCrossPlayStatus = (s: CrossPlayState) => s.status;
export const selectCrossPlayError = (s: CrossPlayState) => s.error;
export const selectCrossPlayProgress = (s: CrossPlayState) => s.progress;
export const selectCrossPlay = (s: CrossPlayState) => s.result;

export async function loadCheckpoints(): Promise<void> {
  useCrossPlayStore.setState({ checkpointsStatus: 'loading', checkpointsError: null });
  try {
    const checkpoints = await request('checkpoints/list', undefined);
    useCrossPlayStore.setState({ checkpoints, checkpointsStatus: 'ready' });
  } catch (err) {
    useCrossPlayStore.setState({ checkpointsStatus: 'error', checkpointsError: errorMessage(err) });
  }
}

export function setEpisodesPerScenario(n: number): void {
  useCrossPlayStore.setState({ episodesPerScenario: n });
}

export async function playCrossPlay(das: string[], cas: string[], seed: number): Promise<void> {
  const { episodesPerScenario, generation } = useCrossPlayStore.getState();
  const mine = generation + 1;
  useCrossPlayStore.setState({ generation: mine, status: 'loading', error: null, progress: null });
  try {
    const result = await request('evaluation/crossplay', { das, cas, episodesPerScenario, seed });
    if (useCrossPlayStore.getState().generation === mine) useCrossPlayStore.setState({ result, status: 'ready', progress: null });
  } catch (err) {
    if (useCrossPlayStore.getState().generation === mine) useCrossPlayStore.setState({ status: 'error', error: errorMessage(err), progress: null });
  }
}

export function applyCrossPlayEvent(e: EngineEvent): void {
  if (e.name !== 'crossplay/progress' || useCrossPlayStore.getState().status !== 'loading') return;
  useCrossPlayStore.setState({ progress: { done: e.payload.done, total: e.payload.total } });
}
