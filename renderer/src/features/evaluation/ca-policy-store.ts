/** The CA's policy over a run's matches (`runs/caPolicy`), read when the user asks. */
import { create } from 'zustand';
import type { CaPolicyView } from '../../../../core/contract/contract';
import { errorMessage, request } from '../../engine/client';

export interface CaPolicyState {
  status: 'idle' | 'loading' | 'done' | 'error';
  runId: string | null;
  view: CaPolicyView | null;
  error: string | null;
}

export const useCaPolicyStore = create<CaPolicyState>()(() => ({ status: 'idle', runId: null, view: null, error: null }));

export const selectCaPolicy = (s: CaPolicyState) => s;

export async function loadCaPolicy(runId: string): Promise<void> {
  useCaPolicyStore.setState({ status: 'loading', runId, error: null });
  try {
    const view = await request('runs/caPolicy', { runId });
    // A later request for another run wins.
    if (useCaPolicyStore.getState().runId === runId) useCaPolicyStore.setState({ status: 'done', view });
  } catch (err) {
    if (useCaPolicyStore.getState().runId === runId) useCaPolicyStore.setState({ status: 'error', error: errorMessage(err) });
  }
}
