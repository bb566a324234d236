/**
 * The lab's checkpoints, which run identities are read from (run-identity.ts), and the lists every
 * picker offers kept live: when the engine says a run changed phase, trained a checkpoint, played
 * a match, or a study moved on (its runs run in other processes, so no run event comes for them),
 * the policy lists (`engine/info`), the runs and the checkpoints are read again, a few times a
 * second at most. Applied by the one mirror; notes are written here too.
 */
import { useEffect, useMemo } from 'react';
import { create } from 'zustand';
import type { CheckpointInfo } from '../../../../core/contract/contract';
import type { EngineEvent } from '../../../../core/contract/run-service';
import { errorMessage, request } from '../../engine/client';
import { loadEngineInfo } from '../../engine/engine-store';
import { loadCheckpoints as loadCrossPlayCheckpoints, useCrossPlayStore } from '../evaluation/crossplay-store';
import type { LabIndex } from './run-identity';
import { loadRuns, selectRuns, useRunsStore } from './runs-store';
import type { LoadStatus } from './runs-store';

export interface LabIndexState {
  checkpoints: CheckpointInfo[];
  status: LoadStatus;
  /** Notes being saved, and the last refusal, per run. */
  noteBusy: Record<string, boolean>;
  noteError: Record<string, string>;
}

export const useLabIndexStore = create<LabIndexState>()(() => ({ checkpoints: [], status: 'idle', noteBusy: {}, noteError: {} }));

export const selectLabCheckpoints = (s: LabIndexState) => s.checkpoints;
export const selectNoteBusy = (runId: string) => (s: LabIndexState) => s.noteBusy[runId] ?? false;
export const selectNoteError = (runId: string) => (s: LabIndexState) => s.noteError[runId] ?? null;

export async function loadLabCheckpoints(): Promise<void> {
  useLabIndexStore.setState((s) => ({ status: s.checkpoints.length ? s.status : 'loading' }));
  try {
    useLabIndexStore.setState({ checkpoints: await request('checkpoints/list', undefined), status: 'ready' });
  } catch {
    // The pickers keep what they had; the next event or a reload reads again.
    useLabIndexStore.setState((s) => ({ status: s.checkpoints.length ? 'ready' : 'error' }));
  }
}

/** The runs and checkpoints as the engine lists them now (the identity of any run or checkpoint). */
export function useLabIndex(): LabIndex {
  const runs = useRunsStore(selectRuns);
  const checkpoints = useLabIndexStore(selectLabCheckpoints);
  // The first screen that shows an identity reads the lists; events keep them current after that.
  useEffect(() => {
    if (useLabIndexStore.getState().status === 'idle') void loadLabCheckpoints();
    if (useRunsStore.getState().runsStatus === 'idle') void loadRuns();
  }, []);
  return useMemo(() => ({ runs, checkpoints }), [runs, checkpoints]);
}

/** Write (an empty text clears) a run's note; the run lists follow from the engine's answer. */
export async function saveRunNote(runId: string, note: string): Promise<boolean> {
  useLabIndexStore.setState((s) => ({ noteBusy: { ...s.noteBusy, [runId]: true }, noteError: omit(s.noteError, runId) }));
  try {
    const run = await request('runs/note', { runId, note });
    setNote(runId, run.note ?? null);
    return true;
  } catch (err) {
    useLabIndexStore.setState((s) => ({ noteError: { ...s.noteError, [runId]: errorMessage(err) } }));
    return false;
  } finally {
    useLabIndexStore.setState((s) => ({ noteBusy: { ...s.noteBusy, [runId]: false } }));
  }
}

function setNote(runId: string, note: string | null): void {
  useRunsStore.setState((s) => ({
    runs: s.runs.map((r) => (r.id === runId ? { ...r, note } : r)),
    details: s.details[runId] ? { ...s.details, [runId]: { ...s.details[runId], note } } : s.details,
  }));
}

/** How long the lists wait after an event before reading again: several events in a burst cost one read. */
export const REFRESH_DELAY_MS = 250;
let refreshTimer: ReturnType<typeof setTimeout> | null = null;

/** Read the policy lists, the runs and the checkpoints again, once, shortly. */
export function refreshLabLists(delayMs = REFRESH_DELAY_MS): void {
  if (refreshTimer) return;
  refreshTimer = setTimeout(() => {
    refreshTimer = null;
    void loadEngineInfo();
    void loadRuns();
    void loadLabCheckpoints();
    // Evaluation's cross-play keeps its own list once it has read one.
    if (useCrossPlayStore.getState().checkpoints) void loadCrossPlayCheckpoints();
  }, delayMs);
}

/** A study's progress names its running runs and their phases: a change there is a new run or a new checkpoint. */
let lastStudyShape = new Map<string, string>();

/** Apply one engine event (called by the mirror only). */
export function applyLabEvent(e: EngineEvent): void {
  switch (e.name) {
    case 'run/note':
      return setNote(e.payload.runId, e.payload.note);
    case 'run/status':
    case 'run/gym':
    case 'run/match':
    case 'study/status':
      return refreshLabLists();
    case 'study/progress': {
      const p = e.payload.progress;
      const shape = JSON.stringify([p.finished, p.failed, p.running.map((r) => `${r.runId}:${r.phase}`)]);
      if (lastStudyShape.get(e.payload.studyId) === shape) return;
      lastStudyShape = new Map(lastStudyShape).set(e.payload.studyId, shape);
      return refreshLabLists();
    }
    default:
      return;
  }
}

function omit<T>(r: Record<string, T>, key: string): Record<string, T> {
  const { [key]: _gone, ...rest } = r;
  return rest;
}
