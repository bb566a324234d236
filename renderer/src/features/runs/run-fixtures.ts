/** Test fixtures: a run summary and a checkpoint as the lab index lists them (for the runs feature's tests). */
import type { CheckpointInfo, RunSummary } from '../../../../core/contract/contract';

export const runSummary = (id: string, o: Partial<RunSummary> = {}): RunSummary => ({
  id,
  createdAt: '',
  status: 'finished',
  phase: 'done',
  preset: 'quick',
  seed: 1,
  matches: 3,
  lastWDa: 0.5,
  error: null,
  live: false,
  pauseRequested: false,
  study: null,
  configChange: [],
  note: null,
  ...o,
});

/** A checkpoint of run `runId` (a gym's), or of no run (imported). */
export const checkpointInfo = (name: string, runId: string | null, role: 'DA' | 'CA' = 'DA'): CheckpointInfo => ({
  name,
  role,
  createdAt: '',
  runId,
  parent: null,
  generation: 0,
  source: runId ? 'gym' : 'imported',
  humanEpisodes: 0,
});
