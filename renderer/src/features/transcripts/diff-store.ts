/**
 * The checkpoint comparison: what to replay (role, the two policies, the opponent, scenario and
 * seed) and the engine's answer. The engine replays on demand, so an answer is dropped when the
 * form has changed since it was asked.
 */
import { create } from 'zustand';
import type { DiffArgs, EpisodeDiff } from '../../../../core/contract/contract';
import { errorMessage, request } from '../../engine/client';
import type { LoadStatus } from '../runs/runs-store';

export interface DiffState {
  form: DiffArgs;
  status: LoadStatus;
  error: string | null;
  diff: EpisodeDiff | null;
  /** Bumped on every request, so a late answer to an older one is dropped. */
  generation: number;
}

export const useDiffStore = create<DiffState>()(() => ({
  form: { role: 'DA', a: 'scripted', b: 'sft', opponent: 'scripted', scenarioId: '', seed: 1 },
  status: 'idle',
  error: null,
  diff: null,
  generation: 0,
}));

export const selectDiffForm = (s: DiffState) => s.form;
export const selectDiffStatus = (s: DiffState) => s.status;
export const selectDiffError = (s: DiffState) => s.error;
export const selectDiff = (s: DiffState) => s.diff;

export function editDiffForm(patch: Partial<DiffArgs>): void {
  useDiffStore.setState((s) => ({ form: { ...s.form, ...patch } }));
}

export async function replayDiff(): Promise<void> {
  const { form, generation } = useDiffStore.getState();
  const mine = generation + 1;
  useDiffStore.setState({ generation: mine, status: 'loading', error: null });
  try {
    const diff = await request('episodes/diff', form);
    if (useDiffStore.getState().generation === mine) useDiffStore.setState({ diff, status: 'ready' });
  } catch (err) {
    if (useDiffStore.getState().generation === mine) useDiffStore.setState({ status: 'error', error: errorMessage(err) });
  }
}

/** Prefill the comparison from a stored episode: its scenario and seed, its match's policy as A. */
export function compareFrom(e: { scenarioId: string; seed: number }, matchPolicy: string | null): void {
  useDiffStore.setState((s) => ({
    form: { ...s.form, role: 'DA', scenarioId: e.scenarioId, seed: e.seed, ...(matchPolicy ? { a: matchPolicy } : {}) },
    status: 'idle',
    diff: null,
    error: null,
  }));
}
