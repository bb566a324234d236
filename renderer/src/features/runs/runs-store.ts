/**
 * Co-evolution runs as the engine reports them: the list, each opened run's detail, its gym
 * metric series and its matches' records. Live events are applied here by the one mirror.
 */
import { create } from 'zustand';
import type { MatchRecord, MetricPoint, RunDetail, RunSummary } from '../../../../core/contract/contract';
import type { EngineEvent } from '../../../../core/contract/run-service';
import { errorMessage, request } from '../../engine/client';

export type LoadStatus = 'idle' | 'loading' | 'ready' | 'error';

export interface RunsState {
  runs: RunSummary[];
  runsStatus: LoadStatus;
  runsError: string | null;
  details: Record<string, RunDetail>;
  detailStatus: Record<string, LoadStatus>;
  detailError: Record<string, string>;
  /** Gym metric series by run, then registry key. */
  metrics: Record<string, Record<string, MetricPoint[]>>;
  /** The run's matches as stored (per-scenario results). */
  matchRecords: Record<string, MatchRecord[]>;
  /** A command (pause/resume/stop) in flight or failed, per run. */
  commandBusy: Record<string, boolean>;
  commandError: Record<string, string>;
}

export const useRunsStore = create<RunsState>()(() => ({
  runs: [],
  runsStatus: 'idle',
  runsError: null,
  details: {},
  detailStatus: {},
  detailError: {},
  metrics: {},
  matchRecords: {},
  commandBusy: {},
  commandError: {},
}));

export const selectRuns = (s: RunsState) => s.runs;
export const selectRunsStatus = (s: RunsState) => s.runsStatus;
export const selectRunsError = (s: RunsState) => s.runsError;
export const selectDetail = (id: string | null) => (s: RunsState) => (id ? s.details[id] : undefined);
export const selectDetailStatus = (id: string | null) => (s: RunsState) => (id ? (s.detailStatus[id] ?? 'idle') : 'idle');
export const selectDetailError = (id: string | null) => (s: RunsState) => (id ? (s.detailError[id] ?? null) : null);
export const selectMetrics = (id: string | null) => (s: RunsState) => (id ? s.metrics[id] : undefined);
export const selectMatchRecords = (id: string | null) => (s: RunsState) => (id ? s.matchRecords[id] : undefined);
export const selectCommandBusy = (id: string | null) => (s: RunsState) => (id ? (s.commandBusy[id] ?? false) : false);
export const selectCommandError = (id: string | null) => (s: RunsState) => (id ? (s.commandError[id] ?? null) : null);

/** Gym metrics the dashboard plots. */
export const GYM_METRIC_KEYS = ['gym/reward_mean', 'gym/reward_std', 'gym/kl', 'gym/loss'];

export async function loadRuns(): Promise<void> {
  useRunsStore.setState((s) => ({ runsStatus: s.runs.length ? s.runsStatus : 'loading', runsError: null }));
  try {
    const runs = await request('runs/list', undefined);
    useRunsStore.setState({ runs, runsStatus: 'ready' });
  } catch (err) {
    useRunsStore.setState({ runsStatus: 'error', runsError: errorMessage(err) });
  }
}

export async function loadRun(runId: string): Promise<void> {
  useRunsStore.setState((s) => ({ detailStatus: { ...s.detailStatus, [runId]: s.details[runId] ? 'ready' : 'loading' } }));
  try {
    const [detail, metrics, matches] = await Promise.all([
      request('runs/get', { runId }),
      request('metrics/series', { runId, keys: GYM_METRIC_KEYS }),
      request('matches/list', { runId }),
    ]);
    useRunsStore.setState((s) => ({
      details: { ...s.details, [runId]: detail },
      detailStatus: { ...s.detailStatus, [runId]: 'ready' },
      detailError: omit(s.detailError, runId),
      metrics: { ...s.metrics, [runId]: metrics },
      matchRecords: { ...s.matchRecords, [runId]: matches },
    }));
  } catch (err) {
    useRunsStore.setState((s) => ({ detailStatus: { ...s.detailStatus, [runId]: 'error' }, detailError: { ...s.detailError, [runId]: errorMessage(err) } }));
  }
}

export async function runCommand(runId: string, what: 'pause' | 'resume' | 'stop'): Promise<void> {
  useRunsStore.setState((s) => ({ commandBusy: { ...s.commandBusy, [runId]: true }, commandError: omit(s.commandError, runId) }));
  try {
    await request(`runs/${what}`, { runId });
  } catch (err) {
    useRunsStore.setState((s) => ({ commandError: { ...s.commandError, [runId]: `${what}: ${errorMessage(err)}` } }));
  } finally {
    useRunsStore.setState((s) => ({ commandBusy: { ...s.commandBusy, [runId]: false } }));
  }
}

/** Re-read a run's stored matches (after a match lands, or when one the dashboard shows is missing). */
export async function refreshMatchRecords(runId: string): Promise<void> {
  try {
    const matches = await request('matches/list', { runId });
    useRunsStore.setState((s) => ({ matchRecords: { ...s.matchRecords, [runId]: matches } }));
  } catch {
    // The next event or a reload retries; the dashboard keeps what it has.
  }
}

const ENDED: readonly string[] = ['finished', 'failed', 'stopped'];

/** Apply one engine event (called by the mirror only). */
export function applyRunEvent(e: EngineEvent): void {
  const s = useRunsStore.getState();
  switch (e.name) {
    case 'run/status': {
      const { runId, status, phase, pauseRequested } = e.payload;
      if (!s.runs.some((r) => r.id === runId)) void loadRuns();
      useRunsStore.setState({
        runs: s.runs.map((r) => (r.id === runId ? { ...r, status, phase, pauseRequested } : r)),
        details: s.details[runId] ? { ...s.details, [runId]: { ...s.details[runId], status, phase, pauseRequested } } : s.details,
      });
      // The event carries no error nor results: an open run that ended is read again, so a failed
      // run shows why it failed (the list follows through the lab index's refresh).
      if (s.details[runId] && ENDED.includes(status)) void loadRun(runId);
      return;
    }
    case 'run/match': {
      const { runId, match } = e.payload;
      useRunsStore.setState({
        runs: s.runs.map((r) => (r.id === runId ? { ...r, matches: Math.max(r.matches, match.index), lastWDa: match.wDa } : r)),
        details: s.details[runId]
          ? {
              ...s.details,
              [runId]: {
                ...s.details[runId],
                matches: match.index,
                lastWDa: match.wDa,
                matchSummaries: upsert(s.details[runId].matchSummaries, match, (m) => m.matchId),
              },
            }
          : s.details,
      });
      if (s.details[runId]) void refreshMatchRecords(runId);
      return;
    }
    case 'run/gym': {
      const { runId, gym } = e.payload;
      const d = s.details[runId];
      if (d) useRunsStore.setState({ details: { ...s.details, [runId]: { ...d, gyms: upsert(d.gyms, gym, (g) => `${g.role}:${g.afterMatch}:${g.to}`) } } });
      // A gym an external trainer ended: its job's final state is in the lab.
      if (d?.gymJobs?.some((j) => j.status === 'waiting')) void loadRun(runId);
      return;
    }
    case 'run/trainer': {
      const { runId, job } = e.payload;
      const d = s.details[runId];
      if (d) useRunsStore.setState({ details: { ...s.details, [runId]: { ...d, gymJobs: upsert(d.gymJobs ?? [], job, (j) => j.id) } } });
      return;
    }
    case 'run/progress': {
      const { runId, progress } = e.payload;
      const d = s.details[runId];
      if (d) useRunsStore.setState({ details: { ...s.details, [runId]: { ...d, progress } } });
      return;
    }
    case 'run/metrics': {
      const { runId, points } = e.payload;
      if (!s.metrics[runId]) return;
      // One copy per key per event (a batch holds hundreds of points; copying per point was quadratic).
      const added = new Map<string, MetricPoint[]>();
      for (const p of points) {
        const list = added.get(p.key);
        const point: MetricPoint = p.phase === undefined ? { step: p.step, value: p.value } : { step: p.step, value: p.value, phase: p.phase };
        if (list) list.push(point);
        else added.set(p.key, [point]);
      }
      const next = { ...s.metrics[runId] };
      for (const [key, list] of added) next[key] = (next[key] ?? []).concat(list);
      useRunsStore.setState({ metrics: { ...s.metrics, [runId]: next } });
      return;
    }
    case 'episodes/completed':
      return;
  }
}

function upsert<T>(list: T[], item: T, key: (t: T) => string): T[] {
  const k = key(item);
  return list.some((x) => key(x) === k) ? list.map((x) => (key(x) === k ? item : x)) : [...list, item];
}

function omit<T>(r: Record<string, T>, key: string): Record<string, T> {
  const { [key]: _gone, ...rest } = r;
  return rest;
}
