/**
 * "Overlay two runs" beyond W_DA: the held-out figures of the two runs side by side (first and
 * final DA against each run's own CA, the final DA against the scripted CA: a fixed opponent, the
 * same for both), the CA's tactic measures per match, and each run's tables as CSV/JSON.
 */
import type { HeldoutMetricKey, HeldoutTable, RunDetail } from '../../../../core/contract/contract';
import { TableExport } from '../../components/TableExport';

const METRICS: [HeldoutMetricKey, string][] = [
  ['routing', 'Tool-routing accuracy'],
  ['strictPass', 'Strict PASS'],
  ['fail', 'FAIL'],
  ['meanReward', 'Mean reward r_DA'],
  ['lookupFirst', 'Lookup first'],
  ['gate', 'Deployment gate (DA win rate)'],
];

const TACTICS: ['meanTokens' | 'meanEntityDensity' | 'decoyRate' | 'hedgeRate', string, boolean][] = [
  ['decoyRate', 'decoy rate', true],
  ['hedgeRate', 'hedge rate', true],
  ['meanEntityDensity', 'entity density', false],
  ['meanTokens', 'opening tokens', false],
];

/** A cell of a held-out table: "91.7%" or "8.32"; "–" when absent. */
function cell(t: HeldoutTable | null | undefined, key: HeldoutMetricKey, col: 'first' | 'last'): string {
  const row = t?.rows.find((r) => r.key === key);
  const c = row ? (col === 'first' ? row.cells[0] : row.cells.at(-1)) : undefined;
  if (!row || !c || c.value === null) return '–';
  return row.kind === 'rate' ? `${(c.value * 100).toFixed(1)}%` : c.value.toFixed(2);
}

const num = (v: number | null | undefined, rate: boolean) =>
  v === null || v === undefined ? '–' : rate ? `${(v * 100).toFixed(1)}%` : v.toFixed(rate ? 1 : 3);

export function RunCompare({ a, b }: { a: RunDetail; b: RunDetail }) {
  const runs = [a, b];
  const heldoutShown = runs.filter((r) => r.heldout && !r.arenaOnly);
  const matches = Math.max(a.matchSummaries.length, b.matchSummaries.length);
  return (
    <div data-testid="overlay-compare">
      <h4>Held-out evaluation side by side</h4>
      {heldoutShown.length === 0 ? (
        <p className="muted small">Neither run has a held-out evaluation to show (still running, or made arena-only).</p>
      ) : (
        <div className="table-wrap">
          <table className="table compact" data-testid="overlay-heldout">
            <thead>
              <tr>
                <th>Metric</th>
                {heldoutShown.map((r) => (
                  <th key={r.id} colSpan={3} className="num">
                    {r.id}
                  </th>
                ))}
              </tr>
              <tr>
                <th />
                {heldoutShown.flatMap((r) => [
                  <th key={`${r.id}-0`} className="num">
                    {r.heldout!.vsRun.checkpoints[0]} · own CA
                  </th>,
                  <th key={`${r.id}-1`} className="num">
                    {r.heldout!.vsRun.checkpoints.at(-1)} · own CA
                  </th>,
                  <th key={`${r.id}-2`} className="num">
                    {r.heldout!.vsRun.checkpoints.at(-1)} · scripted CA
                  </th>,
                ])}
              </tr>
            </thead>
            <tbody>
              {METRICS.map(([k, label]) => (
                <tr key={k} data-metric={k}>
                  <td className="nowrap">{label}</td>
                  {heldoutShown.flatMap((r) => [
                    <td key={`${r.id}-0`} className="num">
                      {cell(r.heldout!.vsRun, k, 'first')}
                    </td>,
                    <td key={`${r.id}-1`} className="num">
                      {cell(r.heldout!.vsRun, k, 'last')}
                    </td>,
                    <td key={`${r.id}-2`} className="num">
                      {cell(r.heldout!.vsReference, k, 'last')}
                    </td>,
                  ])}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <h4>W_DA and the CA&apos;s tactic measures per match</h4>
      <div className="table-wrap">
        <table className="table compact" data-testid="overlay-tactics">
          <thead>
            <tr>
              <th>Match</th>
              {[['wDa', 'W_DA'] as const, ...TACTICS.map(([k, l]) => [k, l] as const)].flatMap(([k, l]) =>
                runs.map((r) => (
                  <th key={`${k}-${r.id}`} className="num">
                    {l} · {r.id}
                  </th>
                )),
              )}
            </tr>
          </thead>
          <tbody>
            {Array.from({ length: matches }, (_, i) => (
              <tr key={i}>
                <td>{i + 1}</td>
                {runs.map((r) => (
                  <td key={`wDa-${r.id}`} className="num">
                    {num(r.matchSummaries[i]?.wDa, true)}
                  </td>
                ))}
                {TACTICS.flatMap(([k, , rate]) =>
                  runs.map((r) => (
                    <td key={`${k}-${r.id}`} className="num">
                      {num(r.matchSummaries[i]?.tactics[k], rate)}
                    </td>
                  )),
                )}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <p className="small table-exports" data-testid="overlay-exports">
        <span className="muted">Export:</span>
        {runs.flatMap((r) => [
          ...(r.heldout && !r.arenaOnly
            ? [
                <span key={`${r.id}-t4`} className="nowrap">
                  {' '}
                  Table 4 of {r.id} <TableExport id={r.id} name="table4" label={`Table 4 of ${r.id}`} />
                </span>,
              ]
            : []),
          <span key={`${r.id}-m`} className="nowrap">
            {' '}
            matches of {r.id} <TableExport id={r.id} name="matches" label={`the matches of ${r.id}`} />
          </span>,
        ])}
      </p>
    </div>
  );
}
