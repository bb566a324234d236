/**
 * The checkpoint comparison: what to replay (role, the two policies, the opponent, scenario and
 * seed) and the engine's answer. The engine replays on demand, so an answer is dropped when the
 * form has changed since it was asked.
 */
import { create } from 'zustand';
import type { CheckpointInfo, DiffArgs, EpisodeDiff, MatchRecord } from '../../../../core/contract/contract';
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

/** A SPEC the replay can play: a person's seat (`human:ana`) cannot be replayed, the scripted policy stands in. */
const replayable = (spec: string) => (spec.startsWith('human:') ? 'scripted' : spec);

/**
 * The comparison an episode opens: its scenario and seed, its match's DA (the checkpoint it
 * resolved to, not `latest`) as A, the DA it was trained from as B (else the newest other DA of
 * its run, else the scripted DA), and its match's own CA as the opponent, so the replay meets
 * the customer the episode met.
 */
export function formFromEpisode(
  e: { scenarioId: string; seed: number },
  match: Pick<MatchRecord, 'daSpec' | 'caSpec' | 'daCheckpoint' | 'caCheckpoint'> | null,
  checkpoints: readonly CheckpointInfo[],
): Partial<DiffArgs> {
  const at = { role: 'DA' as const, scenarioId: e.scenarioId, seed: e.seed };
  if (!match) return at;
  const a = replayable(match.daCheckpoint?.name ?? match.daSpec);
  const own = checkpoints.find((c) => c.name === a && c.role === 'DA');
  const parent = own?.parent ? checkpoints.find((c) => c.name === own.parent && c.role === 'DA') : undefined;
  const sibling = own?.runId ? checkpoints.filter((c) => c.role === 'DA' && c.runId === own.runId && c.name !== a).at(-1) : undefined;
  const b = parent?.name ?? sibling?.name ?? (a === 'scripted' ? 'sft' : 'scripted');
  return { ...at, a, b, opponent: replayable(match.caCheckpoint?.name ?? match.caSpec) };
}

/** Prefill the comparison from a stored episode and its match (formFromEpisode). */
export function compareFrom(
  e: { scenarioId: string; seed: number },
  match: Pick<MatchRecord, 'daSpec' | 'caSpec' | 'daCheckpoint' | 'caCheckpoint'> | null,
  checkpoints: readonly CheckpointInfo[],
): void {
  useDiffStore.setState((s) => ({
    form: { ...s.form, ...formFromEpisode(e, match, checkpoints) },
    status: 'idle',
    diff: null,
    error: null,
  }));
}
