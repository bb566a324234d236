/** Held-out evaluation of a run across its DA checkpoints: what the runner recorded, as a table. */
import { useMemo } from 'react';
import type { RunSummary } from '../../../../core/contract/contract';
import { EmptyState, ErrorState, LoadingState } from '../../components/StateViews';
import { selectRunsUnavailable, useEngineStore } from '../../engine/engine-store';
import { navigate } from '../../nav/nav-store';
import { loadRun, loadRuns, selectDetail, selectDetailError, selectDetailStatus, useRunsStore } from '../runs/runs-store';
import { useSelectedRun } from '../runs/use-selected-run';
import { CrossPlayPanel } from './CrossPlayPanel';
import { evaluationView, formatCell } from './evaluation.data';
import { RobustnessPanel } from './RobustnessPanel';

/** Evaluation shows the newest finished run (it has the held-out table), else the newest. */
const newestFinished = (runs: readonly RunSummary[]) => [...runs].reverse().find((r) => r.status === 'finished')?.id ?? runs.at(-1)?.id ?? null;

export function EvaluationScreen() {
  const { runId, runs, status, error } = useSelectedRun(newestFinished);
  const unavailable = useEngineStore(selectRunsUnavailable);

  let body;
  if (runId) body = <RunEvaluation runId={runId} />;
  else if (status === 'loading' || status === 'idle') body = <LoadingState label="Loading runs…" />;
  else if (status === 'error') body = <ErrorState title="Could not load runs" error={error ?? ''} actions={[{ label: 'Retry', onClick: () => void loadRuns() }]} />;
  else
    body = (
      <div className="panel">
        <EmptyState
          title="No run has been evaluated"
          testId="evaluation-empty"
          actions={unavailable ? [{ label: 'Play an arena match', onClick: () => navigate('arena') }] : [{ label: 'Start a run', onClick: () => navigate('experiments') }]}
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
          <select value={runId ?? ''} onChange={(e) => navigate('evaluation', e.target.value)} aria-label="Run">
            {[...runs].reverse().map((r) => (
              <option key={r.id} value={r.id}>
                {r.id} · {r.status}
              </option>
            ))}
          </select>
        )}
      </header>
      {body}
      <CrossPlayPanel runId={runId} />
      <RobustnessPanel />
    </div>
  );
}

function RunEvaluation({ runId }: { runId: string }) {
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
