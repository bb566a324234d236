/**
 * The runs as the lab stores them, read for the run service, the worker's web server, reports and
 * gym exports: a run's summary and detail (its phase from the machine's snapshot, its stopping
 * constants and settings, its gym jobs and panel), overlaid with what is live in this process.
 */
import type { GymSummary, MatchSummary, RunContext } from '../../core/coevolution/run.machine';
import { sparringConfigOf, storedRunConfig } from '../../core/coevolution/run-config';
import type { RunConfig } from '../../core/coevolution/run-config';
import { runSettings } from '../../core/coevolution/run-settings';
import { DEFAULT_CONFIG } from '../../core/config';
import type { StoppingConfig } from '../../core/config';
import { heldoutReport } from '../../core/arena/heldout-report';
import type { MetricPoint, ProgressReport, RunDetail, RunPhase, RunStatus, RunSummary } from '../../core/contract/contract';
import type { DeviceRecord } from '../../core/contract/device';
import { storedPanel } from '../panel/panel-eval';
import type { RunMetricRow, RunRow } from '../store/rows';
import type { SqliteRunStore } from '../store/sqlite-store';
import { gymJobsOf } from './external-gym';
import { runIdentityReader } from './run-identity';

/** A run's status from its machine's state. */
export function statusOf(value: string): RunStatus {
  if (value === 'done') return 'finished';
  if (value === 'failed') return 'failed';
  if (value === 'stopped') return 'stopped';
  if (value === 'paused') return 'paused';
  return 'running';
}

/**
 * The stopping constants of a stored run config. A config stored before a schema change that no
 * longer parses still shows its own stopping block over the defaults (the run ran under it).
 */
export function stoppingOf(configJson: string, runId: string, parsed = storedRunConfig(configJson, `run ${runId}`)): StoppingConfig {
  if (parsed) return sparringConfigOf(parsed).stopping;
  let stored: Partial<StoppingConfig> = {};
  try {
    stored = (JSON.parse(configJson) as { stopping?: Partial<StoppingConfig> }).stopping ?? {};
  } catch {
    /* not JSON: the defaults */
  }
  return { ...DEFAULT_CONFIG.stopping, ...stored };
}

/** What a reader needs of a live run: its machine's snapshot now and its latest progress report. */
export interface LiveView {
  /** The machine's snapshot now; absent: the lab's copy (persisted at the latest phase boundary). */
  snapshot?: unknown;
  progress: ProgressReport | null;
  /** A pause asked for and not yet taken (the lab's copy of the snapshot lags until the phase ends). */
  pauseRequested?: boolean;
}

/**
 * The runs as stored in the lab, overlaid with what is live in this process (`liveOf`). Reads
 * only, so the web server can answer run queries from its own connection while the runner works
 * on another thread.
 */
export function createRunReader(db: SqliteRunStore['db'], dbPath: string, liveOf: (runId: string) => LiveView | undefined) {
  const getRow = db.prepare<[string], RunRow>('SELECT * FROM runs WHERE id = ?');
  function row(runId: string): RunRow {
    const r = getRow.get(runId);
    if (!r) throw new Error(`no run "${runId}" in ${dbPath}`);
    return r;
  }
  function snapshotOf(r: RunRow, l: LiveView | undefined): { value: string; context: RunContext } | null {
    if (l?.snapshot) return l.snapshot as { value: string; context: RunContext };
    return r.snapshot_json ? (JSON.parse(r.snapshot_json) as { value: string; context: RunContext }) : null;
  }
  const identity = runIdentityReader(db);
  function summary(r: RunRow, l = liveOf(r.id)): RunSummary {
    const snap = snapshotOf(r, l);
    const value = (snap?.value ?? 'bootstrap') as RunPhase;
    // A run whose process died mid-phase still says 'running' in the table; it is resumable.
    const status = snap ? statusOf(value) : (r.status as RunStatus);
    return {
      id: r.id,
      createdAt: r.created_at,
      status,
      phase: value,
      preset: r.preset,
      seed: r.seed,
      matches: snap?.context.matches.length ?? 0,
      lastWDa: snap?.context.matches.at(-1)?.wDa ?? null,
      error: snap?.context.error ?? r.error,
      live: l !== undefined,
      device: r.device_json ? (JSON.parse(r.device_json) as DeviceRecord) : null,
      pauseRequested: status === 'running' && (l?.pauseRequested ?? snap?.context.pauseRequested ?? false),
      validationShare: (JSON.parse(r.config_json) as Partial<RunConfig>).validation?.bankShare ?? null,
      arenaOnly: r.arena_only === 1,
      ...identity(r),
    };
  }
  const listRows = db.prepare<[], RunRow>('SELECT * FROM runs ORDER BY created_at, rowid');
  const metricRows = db.prepare<[string, string], Pick<RunMetricRow, 'step' | 'value' | 'phase'>>(
    'SELECT step, value, phase FROM run_metrics WHERE run_id = ? AND key = ? ORDER BY step',
  );
  return {
    row,
    // Arrow properties, not methods: the services hand these out unbound (`list: reader.list`).
    list: (): RunSummary[] => listRows.all().map((r) => summary(r)),
    get: (runId: string): RunDetail => {
      const r = row(runId);
      const l = liveOf(runId);
      const s = summary(r, l);
      const snap = snapshotOf(r, l);
      const matchSummaries: MatchSummary[] = snap?.context.matches ?? [];
      const gyms: GymSummary[] = snap?.context.gyms ?? [];
      // The final DA (the last match's) and its panel evaluation, when `eval --panel` or a study's panel step ran one.
      const finalDa = matchSummaries.at(-1)?.da;
      const panel = finalDa ? storedPanel(db, finalDa) : null;
      const gymJobs = gymJobsOf({ db, path: dbPath }, runId);
      // Parsed once for both: the stopping constants and the settings the run runs with.
      const config = storedRunConfig(r.config_json, `run ${runId}`);
      return {
        ...s,
        configJson: r.config_json,
        stopping: stoppingOf(r.config_json, runId, config),
        settings: config && runSettings(config, r.seed),
        matchSummaries,
        gyms,
        progress: l?.progress ?? null,
        evaluation: snap?.context.evaluation ?? null,
        heldout: heldoutReport(snap?.context.evaluation),
        panel,
        ...(gymJobs.length ? { gymJobs } : {}),
      };
    },
    metrics: (runId: string, keys: readonly string[]): Record<string, MetricPoint[]> => {
      row(runId);
      const out: Record<string, MetricPoint[]> = {};
      for (const key of keys) out[key] = metricRows.all(runId, key);
      return out;
    },
  };
}
