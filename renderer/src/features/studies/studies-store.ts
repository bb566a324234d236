/**
 * Studies as the engine reports them: the list (with live progress), each opened study's tables,
 * the arms a study can compare, and the two runs of the overlay. Events update it through the mirror.
 */
import { create } from 'zustand';
import type { ArmInfo, EstimateScenarios, EstimateSlice, RunDetail, StudyDetail, StudyInfo } from '../../../../core/contract/contract';
import type { EngineEvent } from '../../../../core/contract/run-service';
import { errorMessage, request } from '../../engine/client';

export interface StudiesState {
  studies: StudyInfo[];
  listError: string | null;
  details: Record<string, StudyDetail>;
  detailError: Record<string, string>;
  arms: ArmInfo[];
  starting: boolean;
  startError: string | null;
  /** Runs opened for the overlay, by id. */
  overlayRuns: Record<string, RunDetail>;
  overlayError: string | null;
  /** `studies/estimate` in flight, by study: runs estimated so far and the match playing. */
  estimating: Record<string, { speak: EstimateSlice; scenarios?: EstimateScenarios; done: number; total: number; label: string | null }>;
  estimateError: Record<string, string>;
}

export const useStudiesStore = create<StudiesState>()(() => ({
  studies: [],
  listError: null,
  details: {},
  detailError: {},
  arms: [],
  starting: false,
  startError: null,
  overlayRuns: {},
  overlayError: null,
  estimating: {},
  estimateError: {},
}));

export const selectStudies = (s: StudiesState) => s.studies;
export const selectListError = (s: StudiesState) => s.listError;
export const selectStudy = (id: string | null) => (s: StudiesState) => (id ? s.details[id] : undefined);
export const selectStudyError = (id: string | null) => (s: StudiesState) => (id ? (s.detailError[id] ?? null) : null);
export const selectArms = (s: StudiesState) => s.arms;
export const selectStarting = (s: StudiesState) => s.starting;
export const selectStartError = (s: StudiesState) => s.startError;
export const selectOverlayRuns = (s: StudiesState) => s.overlayRuns;
export const selectOverlayError = (s: StudiesState) => s.overlayError;
export const selectEstimating = (id: string) => (s: StudiesState) => s.estimating[id] ?? null;
export const selectEstimateError = (id: string) => (s: StudiesState) => s.estimateError[id] ?? null;

export async function loadStudies(): Promise<void> {
  try {
    useStudiesStore.setState({ studies: await request('studies/list', undefined), listError: null });
  } catch (err) {
    useStudiesStore.setState({ listError: errorMessage(err) });
  }
}

/** Arena-only studies whose held-out and panel figures this window asked for by name (`studies/get`'s `heldout`). */
const heldoutAsked = new Set<string>();

export async function loadStudy(studyId: string): Promise<void> {
  try {
    const d = await request('studies/get', heldoutAsked.has(studyId) ? { studyId, heldout: true } : { studyId });
    useStudiesStore.setState((s) => ({ details: { ...s.details, [studyId]: d }, detailError: omit(s.detailError, studyId) }));
  } catch (err) {
    useStudiesStore.setState((s) => ({ detailError: { ...s.detailError, [studyId]: errorMessage(err) } }));
  }
}

/** An arena-only study's tables with its held-out and panel figures, from now on in this window. */
export async function showHeldout(studyId: string): Promise<void> {
  heldoutAsked.add(studyId);
  await loadStudy(studyId);
}

export async function loadArms(): Promise<void> {
  try {
    useStudiesStore.setState({ arms: await request('studies/arms', undefined) });
  } catch (err) {
    useStudiesStore.setState({ startError: errorMessage(err) });
  }
}

/** A refusal answers the form as it was: a form opened again (or changed) starts without it. */
export function clearStartError(): void {
  if (useStudiesStore.getState().startError !== null) useStudiesStore.setState({ startError: null });
}

export async function startStudy(args: {
  preset: string;
  seeds: number | string;
  arms: string[];
  workers?: number;
  customArms?: { name: string; overlay: string }[];
  estimate?: EstimateSlice;
  arenaOnly?: boolean;
}): Promise<string | null> {
  useStudiesStore.setState({ starting: true, startError: null });
  try {
    const { studyId } = await request('studies/start', args);
    await loadStudies();
    return studyId;
  } catch (err) {
    useStudiesStore.setState({ startError: errorMessage(err) });
    return null;
  } finally {
    useStudiesStore.setState({ starting: false });
  }
}

export async function resumeStudy(studyId: string): Promise<void> {
  try {
    await request('studies/resume', { studyId });
    await loadStudies();
  } catch (err) {
    useStudiesStore.setState((s) => ({ detailError: { ...s.detailError, [studyId]: errorMessage(err) } }));
  }
}

/** Studies whose estimate this window asked for and awaits (the others' progress comes from a study started with one). */
const requested = new Set<string>();

/** Plays what is missing of the study's estimate on `speak` and `scenarios` (the arena's by default), then reloads its tables. */
export async function estimateStudy(studyId: string, speak: EstimateSlice, scenarios: EstimateScenarios = 'arena'): Promise<void> {
  requested.add(studyId);
  useStudiesStore.setState((s) => ({
    estimating: { ...s.estimating, [studyId]: { speak, scenarios, done: 0, total: 0, label: null } },
    estimateError: omit(s.estimateError, studyId),
  }));
  try {
    await request('studies/estimate', { studyId, speak, scenarios });
    await loadStudy(studyId);
  } catch (err) {
    useStudiesStore.setState((s) => ({ estimateError: { ...s.estimateError, [studyId]: errorMessage(err) } }));
  } finally {
    requested.delete(studyId);
    useStudiesStore.setState((s) => ({ estimating: omit(s.estimating, studyId) }));
  }
}

export async function loadOverlayRun(runId: string): Promise<void> {
  try {
    const d = await request('runs/get', { runId });
    useStudiesStore.setState((s) => ({ overlayRuns: { ...s.overlayRuns, [runId]: d }, overlayError: null }));
  } catch (err) {
    useStudiesStore.setState({ overlayError: errorMessage(err) });
  }
}

/** Progress and status events: the list follows at once; an opened study reloads its tables when a run settles. */
export function applyStudyEvent(e: EngineEvent): void {
  const s = useStudiesStore.getState();
  if (e.name === 'study/progress') {
    const { studyId, progress } = e.payload;
    const before = s.studies.find((x) => x.id === studyId)?.progress;
    useStudiesStore.setState({ studies: s.studies.map((x) => (x.id === studyId ? { ...x, progress, live: true } : x)) });
    if (!s.studies.some((x) => x.id === studyId) || before?.finished !== progress.finished || before?.failed !== progress.failed) {
      void loadStudies();
      if (s.details[studyId]) void loadStudy(studyId);
    }
  } else if (e.name === 'study/estimate') {
    // Asked for here, or played by the engine once a study started with an estimate finished its runs.
    const { studyId, error, ...p } = e.payload;
    if (error !== undefined) useStudiesStore.setState({ estimating: omit(s.estimating, studyId), estimateError: { ...s.estimateError, [studyId]: error } });
    else useStudiesStore.setState({ estimating: { ...s.estimating, [studyId]: p } });
  } else if (e.name === 'study/status') {
    // A study's status is told last, after the estimate it was started with.
    if (!requested.has(e.payload.studyId)) useStudiesStore.setState({ estimating: omit(s.estimating, e.payload.studyId) });
    void loadStudies();
    if (s.details[e.payload.studyId]) void loadStudy(e.payload.studyId);
  }
}

function omit<T>(r: Record<string, T>, k: string): Record<string, T> {
  const { [k]: _gone, ...rest } = r;
  return rest;
}
