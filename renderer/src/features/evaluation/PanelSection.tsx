/**
 * Counterpart shift (IB-RL) on the Evaluation screen: the run's final DA against its panel —
 * counterparts that share nothing with its training — per counterpart and averaged, and the
 * mismatch gap as bars with intervals. Shown when `sparring eval --panel` (or a study's panel
 * step) evaluated that DA.
 */
import { useMemo } from 'react';
import type { RunPanel } from '../../../../core/contract/contract';
import { useChart } from '../../charts/use-chart';
import { ChartFrame } from '../../components/ChartFrame';
import { createPanelGapChart } from './create-panel-gap-chart';
import { gapBars, panelTable } from './panel.data';
import { TableExport } from '../../components/TableExport';

export function PanelSection({ runId, panel }: { runId: string; panel: RunPanel }) {
  const rows = useMemo(() => panelTable(panel), [panel]);
  const bars = useMemo(() => gapBars(panel), [panel]);
  const ref = useChart(createPanelGapChart, bars, {});
  return (
    <>
      <section className="panel" data-testid="panel-evaluation">
        <header className="panel-head">
          <h3>Counterpart shift: {panel.da} against its panel</h3>
          <div className="panel-tools">
            <TableExport id={runId} name="panel" label={`the panel evaluation of ${panel.da}`} />
          </div>
        </header>
        <p className="small muted">
          Held-out scenarios ({panel.protocol}). Counterparts share nothing with the DA’s training: the scripted CA, other runs’ final CAs, human customer
          episodes, LLM CAs. Rates show their 95% Wilson interval over the episodes; the average and the gap, their 95% t interval over counterparts.
        </p>
        <div className="table-wrap">
          <table className="table" data-testid="panel-table">
            <thead>
              <tr>
                <th>Counterpart</th>
                <th>Kind</th>
                <th className="num">Episodes</th>
                <th className="num">Routing</th>
                <th className="num">Strict PASS</th>
                <th className="num">Mean reward</th>
                <th>Note</th>
              </tr>
            </thead>
            <tbody>
              {rows.map((r) => (
                <tr key={r.key} data-row={r.role}>
                  <td className={r.role === 'member' ? 'nowrap' : 'nowrap strong'}>{r.label}</td>
                  <td>{r.kind}</td>
                  <td className="num">{r.episodes}</td>
                  <td className="num">{r.routing}</td>
                  <td className="num">{r.strictPass}</td>
                  <td className="num">{r.meanReward}</td>
                  <td className="small muted">{r.note}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </section>
      {bars.length > 0 && (
        <ChartFrame title={`Mismatch gap · ${panel.da} · training counterpart − panel`} file={`panel-gap-${runId}-${panel.da}`}>
          <div ref={ref} data-testid="panel-gap-chart" />
        </ChartFrame>
      )}
    </>
  );
}
