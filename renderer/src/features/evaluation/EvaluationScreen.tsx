/**
 * Held-out evaluation of a run across its DA checkpoints, as RL-ADA's Table 4: checkpoints in
 * columns, metrics in rows with their 95% intervals and Δ from DA0, against the run's CA or the
 * scripted reference; then per-scenario results as a heat map.
 */
import { sameOutcomeNotes } from './heldout-same.data';
import { useMemo, useState } from 'react';
import type { HeldoutReport, RunSummary } from '../../../../core/contract/contract';
import { useChart } from '../../charts/use-chart';
import { ChartFrame } from '../../components/ChartFrame';
import { Term } from '../../components/Term';
import { EmptyState, ErrorState, LoadingState } from '../../components/StateViews';
import { selectRunsUnavailable, useEngineStore } from '../../engine/engine-store';
import { navigate } from '../../nav/nav-store';
import { loadRun, loadRuns, selectDetail, selectDetailError, selectDetailStatus, useRunsStore } from '../runs/runs-store';
import { useSelectedRun } from '../runs/use-selected-run';
import { CrossPlayPanel } from './CrossPlayPanel';
import { createScenarioHeatmapChart } from './create-scenario-heatmap-chart';
import { TableExport } from '../../components/TableExport';
import { evaluationView, formatCell } from './evaluation.data';
import { SCENARIO_MEASURES, scenarioHeatmap, tableView } from './heldout-table.data';
import type { ScenarioMeasure } from './heldout-table.data';
import { PanelSection } from './PanelSection';
import { RobustnessPanel } from './RobustnessPanel';
import { BestResponsePanel } from './BestResponsePanel';
import { CaPolicyPanel } from './CaPolicyPanel';
import { runOptionLabel } from '../runs/run-identity';
import { RunIdentity } from '../runs/RunIdentity';

/** Evaluation shows the newest finished run (it has the held-out table), else the newest. */
const newestFinished = (runs: readonly RunSummary[]) => [...runs].reverse().find((r) => r.status === 'finished')?.id ?? runs.at(-1)?.id ?? null;

export function EvaluationScreen() {
  const { runId, runs, status, error } = useSelectedRun(newestFinished);
  const unavailable = useEngineStore(selectRunsUnavailable);

  let body;
  if (runId) body = <RunEvaluation runId={runId} />;
  else if (status === 'loading' || status === 'idle') body = <LoadingState label="Loading runs…" />;
  else if (status === 'error')
    body = <ErrorState title="Could not load runs" error={error ?? ''} actions={[{ label: 'Retry', onClick: () => void loadRuns() }]} />;
  else
    body = (
      <div className="panel">
        <EmptyState
          title="No run has been evaluated"
          testId="evaluation-empty"
          actions={
            unavailable
              ? [{ label: 'Play an arena match', onClick: () => navigate('arena') }]
              : [{ label: 'Start a run', onClick: () => navigate('experiments') }]
          }
        >
          {unavailable
            ? `Held-out evaluation belongs to co-evolution runs, which are not available in this build (${unavailable}).`
            : 'A run evaluates its DA checkpoints on the 12 held-out scenarios when the stopping rule ends it: routing accuracy, strict PASS, FAIL, mean reward, lookup-first.'}
        </EmptyState>
      </div>
    );

  return (
    <div className="screen" data-testid="screen-evaluation">
      <header className="screen-head row">
        <h1>Evaluation</h1>
        {runs.length > 0 && (
          <select className="identity-select" value={runId ?? ''} onChange={(e) => navigate('evaluation', e.target.value)} aria-label="Run">
            {[...runs].reverse().map((r) => (
              <option key={r.id} value={r.id}>
                {runOptionLabel(r)}
                {r.arenaOnly ? ' · arena only' : ''}
              </option>
            ))}
          </select>
        )}
      </header>
      {runId && <RunIdentity runId={runId} testId="evaluation-run-identity" />}
      {body}
      {runId && <RunBestResponse runId={runId} />}
      <CrossPlayPanel runId={runId} />
      <RobustnessPanel />
    </div>
  );
}

function RunEvaluation({ runId }: { runId: string }) {
  const [shown, setShown] = useState<string | null>(null);
  const detail = useRunsStore(selectDetail(runId));
  const status = useRunsStore(selectDetailStatus(runId));
  const error = useRunsStore(selectDetailError(runId));
  const view = useMemo(() => evaluationView(detail?.evaluation), [detail?.evaluation]);
  if (!detail && (status === 'loading' || status === 'idle')) return <LoadingState label={`Loading ${runId}…`} />;
  if (!detail) return <ErrorState title={`Could not open ${runId}`} error={error ?? ''} actions={[{ label: 'Retry', onClick: () => void loadRun(runId) }]} />;
  if (!view)
    return (
      <div className="panel">
        <EmptyState title={`${runId} has no held-out evaluation yet`} actions={[{ label: 'Open its dashboard', onClick: () => navigate('runs', runId) }]}>
          {detail.status === 'running' || detail.status === 'paused'
            ? `It is in the ${detail.phase} phase; the evaluation runs when the stopping rule ends the run.`
            : `It ended as “${detail.status}” before reaching the evaluation phase.`}
        </EmptyState>
      </div>
    );
  if (detail.arenaOnly && shown !== runId)
    return (
      <div className="panel" data-testid="heldout-left-out">
        <EmptyState
          title={`${runId} was made for choosing settings on the arena`}
          actions={[{ label: 'Show its held-out figures (not for choosing settings)', onClick: () => setShown(runId) }]}
        >
          It played and stored its held-out evaluation as any run does; this screen leaves it out, as `sparring run` and `sparring report {runId}` do for it
          (`--heldout` shows them there).
        </EmptyState>
      </div>
    );
  if (detail.heldout)
    return (
      <>
        <HeldoutTables runId={runId} report={detail.heldout} />
        {detail.panel && <PanelSection runId={runId} panel={detail.panel} />}
      </>
    );
  return (
    <>
      {view.tables.map((table) => (
        <section className="panel" key={table.title}>
          <header className="panel-head">
            <h3>{table.title}</h3>
          </header>
          {table.common.length > 0 && (
            <p className="common-values">
              {table.common.map((c) => (
                <span key={c.key} title={c.key}>
                  {c.label} <b>{formatCell(c.key, c.value)}</b>
                </span>
              ))}
            </p>
          )}
          <div className="table-wrap">
            <table className="table" data-testid="evaluation-table">
              <thead>
                <tr>
                  <th>{table.rowKey}</th>
                  {table.columns.map((c) => (
                    <th key={c.key} className="num" title={c.key}>
                      {c.label}
                    </th>
                  ))}
                </tr>
              </thead>
              <tbody>
                {table.rows.map((r) => (
                  <tr key={r.key}>
                    <td className="mono nowrap">{r.key}</td>
                    {table.columns.map((c) => (
                      <td key={c.key} className="num">
                        {formatCell(c.key, r.cells[c.key] ?? null)}
                      </td>
                    ))}
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        </section>
      ))}
      {Object.keys(view.rest).length > 0 && (
        <section className="panel">
          <header className="panel-head">
            <h3>{view.tables.length ? 'Also recorded' : 'Evaluation'}</h3>
          </header>
          <pre className="code">{JSON.stringify(view.rest, null, 2)}</pre>
        </section>
      )}
    </>
  );
}

type Opponent = 'run' | 'reference';

/** Table 4 and the per-scenario heat map of one run, against its own CA or the scripted one. */
function HeldoutTables({ runId, report }: { runId: string; report: HeldoutReport }) {
  const [against, setAgainst] = useState<Opponent>('run');
  const [measure, setMeasure] = useState<ScenarioMeasure>('routingAccuracy');
  const table = against === 'reference' && report.vsReference ? report.vsReference : report.vsRun;
  const view = useMemo(() => tableView(table), [table]);
  const heat = useMemo(() => scenarioHeatmap(table, measure), [table, measure]);
  const ref = useChart(createScenarioHeatmapChart, heat, {});
  const opponentName = against === 'run' ? `the run’s CA (${report.vsRun.opponent})` : 'the scripted CA';
  return (
    <>
      <section className="panel" data-testid="heldout-panel">
        <header className="panel-head">
          <h3>Held-out evaluation (RL-ADA Table 4)</h3>
          <div className="panel-tools" role="group" aria-label="Opponent">
            <span className="small muted">against</span>
            {(['run', 'reference'] as const).map((o) => (
              <button
                key={o}
                className={`btn tiny${against === o ? ' primary' : ''}`}
                aria-pressed={against === o}
                disabled={o === 'reference' && !report.vsReference}
                title={o === 'reference' && !report.vsReference ? 'This evaluation was stored before reference results were recorded' : undefined}
                onClick={() => setAgainst(o)}
                data-testid={`heldout-against-${o}`}
              >
                {o === 'run' ? `run’s CA (${report.vsRun.opponent})` : 'scripted CA'}
              </button>
            ))}
            <TableExport id={runId} name="table4" label={`Table 4 of ${runId} (both opponents)`} />
          </div>
        </header>
        <p className="small muted">
          Each <Term term="DA">DA</Term> checkpoint of run {runId} on the held-out scenarios against {opponentName}. Rates show their{' '}
          <Term term="wilson">95% interval</Term> in brackets and the <Term term="delta">change from {view.checkpoints[0] ?? 'DA0'}</Term>
          {view.checkpoints[0] && view.checkpoints[0] !== 'DA0'
            ? ` (run ${runId}'s first DA; checkpoint names are lab-wide)`
            : ` (run ${runId}'s first DA)`}{' '}
          below.
        </p>
        <div className="table-wrap">
          <table className="table heldout-table" data-testid="evaluation-table">
            <thead>
              <tr>
                <th>Metric</th>
                {view.checkpoints.map((c) => (
                  <th key={c} className="num">
                    {c}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {view.rows.map((r) => (
                <tr key={r.key} data-metric={r.key}>
                  <td className="nowrap">
                    <Term term={r.term}>{r.label}</Term>
                  </td>
                  {r.cells.map((c, i) => (
                    <td key={view.checkpoints[i]} className="num" title={c.title}>
                      <span className="heldout-value">{c.value}</span>
                      {c.ci && <span className="heldout-ci"> {c.ci}</span>}
                      {c.gate && <span className={`heldout-gate ${c.gate === 'held' ? 'ok-text' : 'bad-text'}`}> {c.gate}</span>}
                      {c.delta && <div className={`heldout-delta ${c.tone ?? ''}`}>{c.delta}</div>}
                    </td>
                  ))}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
        <p className="small muted" data-testid="heldout-note">
          {view.note}.
        </p>
        {sameOutcomeNotes(report).map((n) => (
          <p key={n} className="small muted" data-testid="heldout-same-note">
            {n}
          </p>
        ))}
      </section>
      <ChartFrame
        title={`Per scenario · run ${runId} · against ${against === 'run' ? report.vsRun.opponent : 'the scripted CA'}`}
        file={`heldout-scenarios-${runId}-${against === 'run' ? report.vsRun.opponent : 'scripted'}`}
        aside={
          <>
            <select value={measure} onChange={(e) => setMeasure(e.target.value as ScenarioMeasure)} aria-label="Measure" data-testid="heatmap-measure">
              {SCENARIO_MEASURES.map((m) => (
                <option key={m.key} value={m.key}>
                  {m.label}
                </option>
              ))}
            </select>
            <TableExport id={runId} name="scenarios" label={`the per-scenario results of ${runId}`} />
          </>
        }
      >
        <div ref={ref} data-testid="heldout-heatmap" />
      </ChartFrame>
    </>
  );
}

/** The best-response and CA-policy panels over the run's matches (shown once the run has played one). */
function RunBestResponse({ runId }: { runId: string }) {
  const detail = useRunsStore(selectDetail(runId));
  if (!detail?.matchSummaries.length) return null;
  return (
    <>
      <BestResponsePanel matches={detail.matchSummaries} />
      <CaPolicyPanel runId={runId} />
    </>
  );
}
