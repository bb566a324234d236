/**
 * The held-out report (RL-ADA Table 4, computed by the engine: `RunDetail.heldout`) as what the
 * Evaluation screen draws: cell texts, Δ from DA0 with its tone, and the per-scenario heat map.
 * Intervals and deltas come from the engine; this only words and lays them out.
 */
import type { HeldoutCell, HeldoutMetricKey, HeldoutMetricRow, HeldoutTable } from '../../../../core/contract/contract';
import type { GlossaryTerm } from '../../glossary/glossary';

export const METRIC_LABELS: Record<HeldoutMetricKey, { label: string; term: GlossaryTerm }> = {
  routing: { label: 'Tool-routing accuracy', term: 'routing' },
  strictPass: { label: 'Strict PASS', term: 'strictPass' },
  fail: { label: 'FAIL', term: 'fail' },
  meanReward: { label: 'Mean reward r_DA', term: 'meanReward' },
  lookupFirst: { label: 'Lookup first', term: 'lookupFirst' },
  gate: { label: 'Deployment gate', term: 'gate' },
};

export interface CellView {
  /** "91.7%" or "3.25"; "—" when nothing was measured. */
  value: string;
  /** "[74–98]" (the 95% Wilson interval, in %), or null. */
  ci: string | null;
  /** "+8.3 pts" / "−0.40" / null in DA0's column. */
  delta: string | null;
  /** Whether the change is an improvement (FAIL falling is one). */
  tone: 'better' | 'worse' | 'same' | null;
  /** The gate only: "held" or "not held". */
  gate: string | null;
  /** A sentence for the tooltip: the value, its interval and the episodes behind it. */
  title: string;
}

export interface RowView {
  key: HeldoutMetricKey;
  label: string;
  term: GlossaryTerm;
  cells: CellView[];
}

export interface TableView {
  opponent: string;
  checkpoints: string[];
  rows: RowView[];
  /** Episodes per checkpoint, said once under the table ("24 held-out episodes per checkpoint"). */
  note: string;
}

const pct1 = (x: number) => `${(x * 100).toFixed(1)}%`;
/** A signed number with a real minus sign. */
const signed = (x: number, digits: number) => `${x > 0 ? '+' : x < 0 ? '−' : '±'}${Math.abs(x).toFixed(digits)}`;

export function cellView(row: Pick<HeldoutMetricRow, 'key' | 'kind' | 'better'>, c: HeldoutCell, threshold: number | null): CellView {
  const rate = row.kind === 'rate';
  const value = c.value === null ? '—' : rate ? pct1(c.value) : c.value.toFixed(2);
  const ci = c.ci ? `[${Math.round(c.ci[0] * 100)}–${Math.round(c.ci[1] * 100)}]` : null;
  let delta: string | null = null;
  let tone: CellView['tone'] = null;
  if (c.delta !== null) {
    // Rounded as shown, so a change too small to print reads as none rather than "+0.0".
    const shown = rate ? Math.round(c.delta * 1000) / 10 : Math.round(c.delta * 100) / 100;
    delta = shown === 0 ? '±0' : rate ? `${signed(shown, 1)} pts` : signed(shown, 2);
    tone = shown === 0 ? 'same' : shown > 0 === (row.better === 'higher') ? 'better' : 'worse';
  }
  const gate = row.key === 'gate' && c.value !== null ? (c.passed ? 'held' : 'not held') : null;
  const what =
    row.key === 'gate'
      ? `DA win rate ${value} on ${c.n} gate episodes${threshold !== null ? ` (needs ≥ ${pct1(threshold)})` : ''}`
      : `${value} over ${c.n} episodes`;
  const title = ci ? `${what}; 95% interval ${ci.slice(1, -1).replace('–', '% to ')}%` : what;
  return { value, ci, delta, tone, gate, title };
}

export function tableView(t: HeldoutTable): TableView {
  const ns = [...new Set(t.rows.find((r) => r.key === 'routing')?.cells.map((c) => c.n) ?? [])];
  const gateN = t.rows.find((r) => r.key === 'gate')?.cells[0]?.n;
  const note = [
    ns.length === 1 ? `${ns[0]} held-out episodes per checkpoint` : `held-out episodes per checkpoint: ${ns.join(', ')}`,
    gateN ? `${gateN} gate episodes${t.gateThreshold !== null ? `, gate threshold ${pct1(t.gateThreshold)}` : ''}` : null,
  ]
    .filter(Boolean)
    .join(' · ');
  return {
    opponent: t.opponent,
    checkpoints: t.checkpoints,
    rows: t.rows.map((r) => ({ key: r.key, ...METRIC_LABELS[r.key], cells: r.cells.map((c) => cellView(r, c, t.gateThreshold)) })),
    note,
  };
}

export type ScenarioMeasure = 'routingAccuracy' | 'strictPass' | 'meanReward';

export const SCENARIO_MEASURES: { key: ScenarioMeasure; label: string }[] = [
  { key: 'routingAccuracy', label: 'Tool-routing accuracy' },
  { key: 'strictPass', label: 'Strict PASS' },
  { key: 'meanReward', label: 'Mean reward r_DA' },
];

export interface HeatCell {
  scenarioId: string;
  checkpoint: string;
  /** The measure's value; null: the checkpoint has no result for the scenario. */
  value: number | null;
  /** Position on the colour scale, 0 (worst) … 1 (best). */
  t: number | null;
  text: string;
  title: string;
}

export interface ScenarioHeatmap {
  scenarios: string[];
  checkpoints: string[];
  cells: HeatCell[];
  measure: ScenarioMeasure;
  /** Legend ends, as printed. */
  legend: [string, string];
}

/** Scenario × checkpoint of one measure. Rates colour on [0, 1]; reward on the range measured. */
export function scenarioHeatmap(t: HeldoutTable, measure: ScenarioMeasure): ScenarioHeatmap {
  const rate = measure !== 'meanReward';
  const values = t.scenarios.flatMap((s) => s.cells.map((c) => (c ? c[measure] : null))).filter((v): v is number => v !== null);
  const lo = rate ? 0 : Math.min(0, ...values);
  const hi = rate ? 1 : Math.max(lo + 1e-9, ...values);
  const label = SCENARIO_MEASURES.find((m) => m.key === measure)!.label;
  const fmt = (v: number) => (rate ? `${Math.round(v * 100)}%` : v.toFixed(1));
  const cells = t.scenarios.flatMap((s) =>
    s.cells.map((c, i): HeatCell => {
      const checkpoint = t.checkpoints[i]!;
      if (!c) return { scenarioId: s.scenarioId, checkpoint, value: null, t: null, text: '–', title: `${s.scenarioId} · ${checkpoint}: not evaluated` };
      const v = c[measure];
      return {
        scenarioId: s.scenarioId,
        checkpoint,
        value: v,
        t: (v - lo) / (hi - lo),
        text: fmt(v),
        title: `${s.scenarioId} · ${checkpoint}: ${label} ${fmt(v)} over ${c.episodes} episodes`,
      };
    }),
  );
  return { scenarios: t.scenarios.map((s) => s.scenarioId), checkpoints: t.checkpoints, cells, measure, legend: [fmt(lo), fmt(hi)] };
}
