/**
 * The CA's policy, read when the user asks: over a run's matches (`runs/caPolicy`, the Evaluation
 * screen) and over a study's arms, first match → last (`studies/caPolicy`, the Studies screen).
 */
import { create } from 'zustand';
import type { CaPolicyView, StudyCaPolicyArm } from '../../../../core/contract/contract';
import { errorMessage, request } from '../../engine/client';

/** A view read for one key (a run, a study) at a time. */
export interface OnRequestState<V> {
  status: 'idle' | 'loading' | 'done' | 'error';
  /** The key the view or the request in flight is for. */
  key: string | null;
  view: V | null;
  error: string | null;
}

/** A store of one view read on request; a later request for another key wins over one in flight. */
function onRequestStore<V>(read: (key: string) => Promise<V>) {
  const use = create<OnRequestState<V>>()(() => ({ status: 'idle', key: null, view: null, error: null }));
  async function load(key: string): Promise<void> {
    use.setState({ status: 'loading', key, error: null });
    try {
      const view = await read(key);
      if (use.getState().key === key) use.setState({ status: 'done', view });
    } catch (err) {
      if (use.getState().key === key) use.setState({ status: 'error', error: errorMessage(err) });
    }
  }
  return { use, load };
}

export const runCaPolicy = onRequestStore<CaPolicyView>((runId) => request('runs/caPolicy', { runId }));
export const studyCaPolicy = onRequestStore<StudyCaPolicyArm[]>((studyId) => request('studies/caPolicy', { studyId }));
