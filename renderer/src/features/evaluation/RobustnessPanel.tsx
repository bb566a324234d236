/** MADS robustness of a DA on request: L-1 and L-2 by complexity and adversity, tables and a chart; then the scenarios it plays. */
import { useMemo, useState } from 'react';
import { ChartFrame } from '../../components/ChartFrame';
import { ProgressBar, etaFrom, useNow } from '../../components/ProgressBar';
import { EmptyState, ErrorState } from '../../components/StateViews';
import { useChart } from '../../charts/use-chart';
import { selectInfo, useEngineStore } from '../../engine/engine-store';
import { pct as formatPct } from '../../charts/chart-kit';
import { createRobustnessChart } from './create-robustness-chart';
import { robustnessBars, robustnessView } from './robustness.data';
import type { RobustnessRow } from './robustness.data';
import { ScenarioBrowser } from './ScenarioBrowser';
import { runRobustness, selectRobustness, useRobustnessStore } from './robustness-store';
import { Term } from '../../components/Term';
import { useLabIndex } from '../runs/lab-index-store';
import { policyOptionLabel } from '../runs/run-identity';
import { CheckpointIdentity } from '../runs/RunIdentity';
import { checkWholeNumber } from '../../whole-number';

export function RobustnessPanel() {
  const info = useEngineStore(selectInfo);
  const r = useRobustnessStore(selectRobustness);
  const das = info?.policies.da ?? ['scripted'];
  const cas = info?.policies.ca ?? ['scripted'];
  const lab = useLabIndex();
  const [da, setDa] = useState(das.includes('latest') ? 'latest' : 'scripted');
  const [ca, setCa] = useState('scripted');
  const [episodes, setEpisodes] = useState('2');
  const checked = checkWholeNumber(episodes, 'Episodes per scenario', { min: 1, max: 100, why: '0 would play nothing' });
  const running = r.status === 'running';
  const now = useNow(running);
  const run = () => {
    if (checked.ok) void runRobustness({ da, ca, episodesPerScenario: checked.value, seed: 1 });
  };

  let body;
  if (running)
    body = r.progress ? (
      <ProgressBar
        label="robustness episodes"
        done={r.progress.done}
        total={r.progress.total}
        etaSeconds={r.startedAt ? etaFrom(r.startedAt, now, r.progress.done, r.progress.total) : null}
      />
    ) : (
      <p className="muted" data-testid="robustness-starting">
        Loading the policies…
      </p>
    );
  else if (r.status === 'error')
    body = <ErrorState title="The robustness evaluation failed" error={r.error ?? ''} actions={[{ label: 'Retry', onClick: run }]} />;
  else if (!r.report)
    body = (
      <EmptyState title="No robustness evaluation yet" testId="robustness-empty">
        Plays the DA against the CA on the robustness scenarios (normal, unhappy and impossible, with MADS adversities) and reports MADS L-1 (against reference
        actions) and L-2 (turns before the first error).
      </EmptyState>
    );
  else body = <RobustnessReport />;

  return (
    <>
      <section className="panel" data-testid="robustness">
        <header className="panel-head row">
          <h3>Robustness (MADS L-1 / L-2)</h3>
          <label className="small">
            DA{' '}
            <select aria-label="Robustness DA" className="identity-select" value={da} onChange={(e) => setDa(e.target.value)} disabled={running}>
              {das.map((p) => (
                <option key={p} value={p}>
                  {policyOptionLabel(p, 'DA', lab)}
                </option>
              ))}
            </select>
          </label>
          <label className="small">
            CA{' '}
            <select aria-label="Robustness CA" className="identity-select" value={ca} onChange={(e) => setCa(e.target.value)} disabled={running}>
              {cas.map((p) => (
                <option key={p} value={p}>
                  {policyOptionLabel(p, 'CA', lab)}
                </option>
              ))}
            </select>
          </label>
          <label className="small">
            episodes/scenario{' '}
            <input
              aria-label="Episodes per scenario"
              inputMode="numeric"
              value={episodes}
              onChange={(e) => setEpisodes(e.target.value)}
              aria-invalid={!checked.ok}
              disabled={running}
              style={{ width: 56 }}
              data-testid="robustness-episodes"
            />
          </label>
          <button type="button" className="btn primary" onClick={run} disabled={running || !checked.ok} data-testid="robustness-run">
            {running ? 'Evaluating…' : 'Evaluate'}
          </button>
        </header>
        <CheckpointIdentity spec={da} role="DA" testId="robustness-da-identity" />
        <CheckpointIdentity spec={ca} role="CA" testId="robustness-ca-identity" />
        {!checked.ok && (
          <p className="inline-error" role="alert" data-testid="robustness-episodes-problem">
            {checked.problem}
          </p>
        )}
        {body}
      </section>
      <ScenarioBrowser />
    </>
  );
}

function RobustnessReport() {
  const report = useRobustnessStore((s) => s.report)!;
  const view = useMemo(() => robustnessView(report), [report]);
  const bars = useMemo(() => robustnessBars(view), [view]);
  const ref = useChart(createRobustnessChart, bars, {});
  return (
    <div data-testid="robustness-report">
      <p className="muted small">
        DA <b className="mono">{report.da}</b> against CA <b className="mono">{report.ca}</b> · {report.scenarios.length} robustness scenarios ×{' '}
        {report.episodesPerScenario} · seed {report.seed}
      </p>
      <RowsTable title="By complexity" rows={[view.overall, ...view.byComplexity]} testId="robustness-complexity" />
      <RowsTable title="By adversity (episodes in which it fired)" rows={view.byAdversity} testId="robustness-adversity" />
      <ChartFrame title="L-2 success by complexity and adversity" file={`robustness-${report.da}`}>
        <div ref={ref} className="chart" />
      </ChartFrame>
    </div>
  );
}

function RowsTable({ title, rows, testId }: { title: string; rows: RobustnessRow[]; testId: string }) {
  const l1 = (r: RobustnessRow, f: (x: NonNullable<RobustnessRow['l1']>) => string) => (r.l1 ? f(r.l1) : '–');
  return (
    <table className="table compact" data-testid={testId}>
      <caption className="small muted">{title}</caption>
      <thead>
        <tr>
          <th>group</th>
          <th>
            <Term term="episodes">episodes</Term>
          </th>
          <th>
            <Term term="L2">L-2</Term>
          </th>
          <th>
            <Term term="L2complete">all actions done</Term>
          </th>
          <th>
            <Term term="actionRecall">action recall</Term>
          </th>
          <th>
            <Term term="toolF1">tool F1</Term>
          </th>
          <th>
            <Term term="paramEM">arguments exact</Term>
          </th>
          <th>
            <Term term="responseSim">response similarity</Term>
          </th>
        </tr>
      </thead>
      <tbody>
        {rows.map((r) => (
          <tr key={r.key} data-group={r.key}>
            <td>{r.label}</td>
            <td className="num">{r.episodes}</td>
            <td className="num">{formatPct(r.l2)}</td>
            <td className="num">{formatPct(r.l2Complete)}</td>
            <td className="num">{l1(r, (x) => formatPct(x.actionTypeRecall))}</td>
            <td className="num">{l1(r, (x) => formatPct(x.toolF1))}</td>
            <td className="num">{l1(r, (x) => formatPct(x.paramExactMatch))}</td>
            <td className="num">{l1(r, (x) => x.responseSimilarity.toFixed(2))}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
