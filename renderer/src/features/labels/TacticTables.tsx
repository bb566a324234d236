/**
 * RL-ADA Table 5 as a table (tactic shares per match, matches in order) and the confusion matrix of
 * the rule-based classifier against the annotators' consensus, each with CSV/JSON export: the
 * tables `sparring export QUEUE --table table5|confusion` writes, as the engine builds them.
 */
import { useEffect, useState } from 'react';
import type { CellValue, DataTable, TacticReport } from '../../../../core/contract/contract';
import { TableExport } from '../../components/TableExport';
import { errorMessage, request } from '../../engine/client';

const pct = (x: CellValue) => (typeof x === 'number' ? `${(x * 100).toFixed(1)}%` : String(x ?? ''));

export function TacticTables({ report }: { report: TacticReport }) {
  const [tables, setTables] = useState<DataTable[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  // The report changes as labels come in: the tables follow it.
  useEffect(() => {
    let live = true;
    request('results/tables', { id: report.queueId })
      .then((t) => live && (setTables(t), setError(null)))
      .catch((e: unknown) => live && setError(errorMessage(e)));
    return () => {
      live = false;
    };
  }, [report]);
  if (error) return <p className="bad-text small">Table 5 could not be built: {error}</p>;
  const t5 = tables?.find((t) => t.name === 'table5');
  const confusion = tables?.find((t) => t.name === 'confusion');
  if (!t5 || !confusion) return null;
  const labelled = confusion.rows.reduce((n, r) => n + r.slice(1).reduce<number>((a, v) => a + Number(v), 0), 0);
  return (
    <>
      <section className="panel" data-testid="table5">
        <header className="panel-head">
          <h3>Table 5: tactic shares per match</h3>
          <div className="panel-tools">
            <TableExport id={report.queueId} name="table5" label={`Table 5 of ${report.queueId}`} />
          </div>
        </header>
        <div className="table-wrap">
          <table className="table compact">
            <thead>
              <tr>
                {t5.columns.map((c, i) => (
                  <th key={c} className={i >= 2 ? 'num' : undefined}>
                    {c}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {t5.rows.map((r) => (
                <tr key={String(r[0])}>
                  {r.map((v, i) => (
                    <td key={t5.columns[i]} className={i >= 2 ? 'num' : i === 1 ? 'mono' : undefined}>
                      {i >= 3 ? pct(v) : String(v ?? '')}
                    </td>
                  ))}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </section>
      <section className="panel" data-testid="tactic-confusion">
        <header className="panel-head">
          <h3>Classifier against the consensus</h3>
          <div className="panel-tools">
            <TableExport id={report.queueId} name="confusion" label={`the confusion matrix of ${report.queueId}`} />
          </div>
        </header>
        <p className="hint">
          Rows: the rule-based classifier&apos;s tactic; columns: the annotators&apos; consensus; cells: items ({labelled} with a consensus).
        </p>
        <div className="table-wrap">
          <table className="table compact">
            <thead>
              <tr>
                {confusion.columns.map((c, i) => (
                  <th key={c} className={i ? 'num' : undefined}>
                    {c}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {confusion.rows.map((r) => (
                <tr key={String(r[0])}>
                  <th scope="row">{String(r[0])}</th>
                  {r.slice(1).map((v, i) => (
                    <td key={confusion.columns[i + 1]} className={`num${r[0] === confusion.columns[i + 1] ? ' strong' : ''}`}>
                      {String(v)}
                    </td>
                  ))}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </section>
    </>
  );
}
