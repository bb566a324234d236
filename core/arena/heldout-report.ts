/**
 * A run's held-out evaluation as RL-ADA's Table 4: DA checkpoints (DA0 … final) in columns, the
 * metrics in rows, each rate with its 95% Wilson interval over the episodes it was measured on
 * (core/arena/evaluate.ts) and its change from the first checkpoint (DA0). One table against the
 * run's own latest CA and one against the scripted reference CA, then per-scenario results
 * (scenario × checkpoint). Computed here, once, for every client: the app's Evaluation screen
 * reads it from `RunDetail.heldout` and never re-derives an interval.
 */
import type { GateResult, HeldoutMetrics } from './evaluate';
import { wilsonInterval } from './evaluate';

/** What the runner stores per DA checkpoint (host/coevolution/actors.ts `CheckpointEvaluation`). */
export interface StoredCheckpointEvaluation {
  da: string;
  ca: string;
  heldout: HeldoutMetrics;
  gate: GateResult;
  reference?: { ca: string; heldout: HeldoutMetrics; gate: GateResult };
}

export type HeldoutMetricKey = 'routing' | 'strictPass' | 'fail' | 'meanReward' | 'lookupFirst' | 'gate';

/** One checkpoint's value of one metric. */
export interface HeldoutCell {
  /** A rate in [0, 1] or, for mean reward, r_DA; null when nothing was measured. */
  value: number | null;
  /** 95% Wilson interval of a rate; null for mean reward and for n = 0. */
  ci: [number, number] | null;
  /** Episodes the value was measured on. */
  n: number;
  /** value − the first checkpoint's value (rates as fractions); null in the first column. */
  delta: number | null;
  /** The deployment gate only: whether it held. */
  passed?: boolean;
}

export interface HeldoutMetricRow {
  key: HeldoutMetricKey;
  /** 'rate' values are fractions (shown as %), 'reward' is r_DA. */
  kind: 'rate' | 'reward';
  /** Whether a rise is good: FAIL is the one rate where lower is better. */
  better: 'higher' | 'lower';
  cells: HeldoutCell[];
}

/** Per-scenario results: one row per held-out scenario, one cell per checkpoint. */
export interface HeldoutScenarioRow {
  scenarioId: string;
  cells: ({ episodes: number; routingAccuracy: number; strictPass: number; meanReward: number } | null)[];
}

export interface HeldoutTable {
  /** The CA the checkpoints played: the run's latest CA's name, or 'scripted'. */
  opponent: string;
  /** Column headers, DA0 first. */
  checkpoints: string[];
  rows: HeldoutMetricRow[];
  scenarios: HeldoutScenarioRow[];
  /** The deployment gate's threshold on the DA win rate (same for every checkpoint). */
  gateThreshold: number | null;
}

export interface HeldoutReport {
  /** Against the run's own (latest) CA. */
  vsRun: HeldoutTable;
  /** Against the scripted CA: a fixed opponent, comparable across runs; null in evaluations stored before it existed. */
  vsReference: HeldoutTable | null;
}

const RATE_ROWS: {
  key: Exclude<HeldoutMetricKey, 'meanReward' | 'gate'>;
  field: 'routingAccuracy' | 'strictPass' | 'fail' | 'lookupFirst';
  better: 'higher' | 'lower';
}[] = [
  { key: 'routing', field: 'routingAccuracy', better: 'higher' },
  { key: 'strictPass', field: 'strictPass', better: 'higher' },
  { key: 'fail', field: 'fail', better: 'lower' },
  { key: 'lookupFirst', field: 'lookupFirst', better: 'higher' },
];

function rateCell(rate: number | null, n: number): Omit<HeldoutCell, 'delta'> {
  if (rate === null || !(n > 0)) return { value: rate, ci: null, n };
  // The stored rate is k/n; the interval needs k back (rounding undoes float noise).
  return { value: rate, ci: wilsonInterval(Math.round(rate * n), n), n };
}

function withDeltas(cells: Omit<HeldoutCell, 'delta'>[]): HeldoutCell[] {
  const first = cells[0]?.value ?? null;
  return cells.map((c, i) => ({ ...c, delta: i === 0 || c.value === null || first === null ? null : c.value - first }));
}

export function heldoutTable(rows: readonly { da: string; heldout: HeldoutMetrics; gate: GateResult }[], opponent: string): HeldoutTable {
  const metricRows: HeldoutMetricRow[] = [
    ...RATE_ROWS.slice(0, 3).map((r) => ({
      key: r.key,
      kind: 'rate' as const,
      better: r.better,
      cells: withDeltas(rows.map((x) => rateCell(x.heldout[r.field], x.heldout.episodes))),
    })),
    {
      key: 'meanReward',
      kind: 'reward',
      better: 'higher',
      cells: withDeltas(rows.map((x) => ({ value: x.heldout.meanReward, ci: null, n: x.heldout.episodes }))),
    },
    ...RATE_ROWS.slice(3).map((r) => ({
      key: r.key,
      kind: 'rate' as const,
      better: r.better,
      cells: withDeltas(rows.map((x) => rateCell(x.heldout[r.field], x.heldout.episodes))),
    })),
    {
      key: 'gate',
      kind: 'rate',
      better: 'higher',
      cells: withDeltas(rows.map((x) => ({ ...rateCell(x.gate.daWinRate, x.gate.episodes), passed: x.gate.passed }))),
    },
  ];
  const ids: string[] = [];
  for (const x of rows) for (const s of x.heldout.perScenario) if (!ids.includes(s.scenarioId)) ids.push(s.scenarioId);
  const scenarios = ids.map((scenarioId) => ({
    scenarioId,
    cells: rows.map((x) => {
      const s = x.heldout.perScenario.find((p) => p.scenarioId === scenarioId);
      return s ? { episodes: s.episodes, routingAccuracy: s.routingAccuracy, strictPass: s.strictPass, meanReward: s.meanReward } : null;
    }),
  }));
  return { opponent, checkpoints: rows.map((x) => x.da), rows: metricRows, scenarios, gateThreshold: rows[0]?.gate.threshold ?? null };
}

function isStored(x: unknown): x is StoredCheckpointEvaluation {
  if (typeof x !== 'object' || x === null) return false;
  const r = x as Record<string, unknown>;
  const h = r.heldout as Record<string, unknown> | undefined;
  return (
    typeof r.da === 'string' &&
    typeof h === 'object' &&
    h !== null &&
    typeof h.episodes === 'number' &&
    Array.isArray(h.perScenario) &&
    typeof r.gate === 'object' &&
    r.gate !== null
  );
}

/**
 * The report of a run's stored evaluation (`{ checkpoints: [...] }`), or null when there is none
 * or it has another shape (an evaluation stored by an older runner is shown as plain data).
 */
export function heldoutReport(evaluation: unknown): HeldoutReport | null {
  const list = (evaluation as { checkpoints?: unknown } | null)?.checkpoints;
  if (!Array.isArray(list) || list.length === 0 || !list.every(isStored)) return null;
  const evals = list;
  const refs = evals.flatMap((e) => (e.reference ? [{ da: e.da, heldout: e.reference.heldout, gate: e.reference.gate }] : []));
  return {
    vsRun: heldoutTable(evals, evals.at(-1)!.ca),
    vsReference: refs.length === evals.length ? heldoutTable(refs, evals[0]!.reference!.ca) : null,
  };
}
