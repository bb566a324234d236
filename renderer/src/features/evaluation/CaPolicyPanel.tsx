/**
 * `sparring ca-policy` on the Evaluation screen: the CA of each match of the run, per head and
 * value, the mean probability over the match's openings and (in brackets) the share of openings
 * whose greedy choice has it (core/arena/ca-policy.ts). Which factors its gyms moved, at a glance.
 */
import { ErrorState } from '../../components/StateViews';
import { Term } from '../../components/Term';
import { runCaPolicy } from './ca-policy-store';

const pct = (v: number) => `${(v * 100).toFixed(1)}%`;

export function CaPolicyPanel({ runId }: { runId: string }) {
  const s = runCaPolicy.use();
  const mine = s.key === runId;
  const loading = mine && s.status === 'loading';
  const read = () => void runCaPolicy.load(runId);
  let body = null;
  if (mine && s.status === 'error')
    body = <ErrorState title="Could not read the CA's policy" error={s.error ?? ''} actions={[{ label: 'Retry', onClick: read }]} />;
  else if (mine && s.status === 'done' && s.view) {
    const { matches } = s.view;
    const heads = matches[0]?.heads ?? [];
    body = (
      <table className="table compact" data-testid="ca-policy-table">
        <caption className="small muted">Mean probability over the match&apos;s openings (share of openings whose greedy choice has the value)</caption>
        <thead>
          <tr>
            <th>head</th>
            <th>value</th>
            {matches.map((m) => (
              <th key={m.matchId} className="num" title={`${m.ca} against ${m.da}, ${m.openings} openings`}>
                {m.matchId} · {m.ca}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {heads.flatMap((h, hi) =>
            h.values.map((v, vi) => (
              <tr key={`${h.head}/${v.value}`} data-head={h.head} data-value={v.value}>
                <td>{vi === 0 ? h.head : ''}</td>
                <td className="mono">{v.value === 'null' ? 'none' : v.value}</td>
                {matches.map((m) => {
                  const x = m.heads[hi]!.values[vi]!;
                  return (
                    <td key={m.matchId} className="num">
                      {pct(x.meanP)} <span className="muted">({pct(x.greedyShare)})</span>
                    </td>
                  );
                })}
              </tr>
            )),
          )}
        </tbody>
      </table>
    );
  }
  return (
    <section className="panel" data-testid="ca-policy">
      <header className="panel-head row">
        <h3>
          <Term term="caPolicy">The CA&apos;s policy</Term> per match
        </h3>
        <button type="button" className="btn" onClick={read} disabled={loading} data-testid="ca-policy-read">
          {loading ? 'Reading…' : mine && s.status === 'done' ? 'Read again' : "Read the CA's policy"}
        </button>
      </header>
      {body}
    </section>
  );
}
