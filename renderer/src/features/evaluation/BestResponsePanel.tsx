/**
 * `sparring best-response` on the Evaluation screen: pick a match of the run, replay every episode's
 * opening with each choice of the CA's action space against the match's DA, and read what the
 * action space allows beside what the CA played (core/arena/best-response.ts).
 */
import { useMemo, useState } from 'react';
import type { MatchSummary } from '../../../../core/contract/contract';
import { ProgressBar, etaFrom, useNow } from '../../components/ProgressBar';
import { EmptyState, ErrorState } from '../../components/StateViews';
import { Term } from '../../components/Term';
import { bestResponseFactorRows, bestResponseLines } from './best-response.data';
import { runBestResponse, selectBestResponse, useBestResponseStore } from './best-response-store';

/** One decimal, as `sparring best-response` prints it (one episode of 144 moves W_DA by 0.7 points). */
const pct = (v: number) => `${(v * 100).toFixed(1)}%`;
const reward = (v: number | null) => (v === null ? '–' : v.toFixed(3));
const share = (v: number | null) => (v === null ? '–' : pct(v));

export function BestResponsePanel({ matches }: { matches: readonly MatchSummary[] }) {
  const r = useBestResponseStore(selectBestResponse);
  const [picked, setPicked] = useState<string | null>(null);
  const matchId = picked && matches.some((m) => m.matchId === picked) ? picked : (matches.at(-1)?.matchId ?? '');
  const running = r.status === 'running';
  const now = useNow(running);
  const run = () => void runBestResponse(matchId);

  let body;
  if (running)
    body = r.progress ? (
      <ProgressBar
        label={`episodes of ${r.matchId} replayed`}
        done={r.progress.done}
        total={r.progress.total}
        etaSeconds={r.startedAt ? etaFrom(r.startedAt, now, r.progress.done, r.progress.total) : null}
      />
    ) : (
      <p className="muted" data-testid="best-response-starting">
        Loading the match&apos;s checkpoints…
      </p>
    );
  else if (r.status === 'error') body = <ErrorState title="The replay failed" error={r.error ?? ''} actions={[{ label: 'Retry', onClick: run }]} />;
  else if (!r.report)
    body = (
      <EmptyState title="No replay yet" testId="best-response-empty">
        Replays each episode of the match with every opening the CA&apos;s action space allows against the match&apos;s DA: does the CA&apos;s gym find what its
        action space allows? Each episode is played once per opening (8,640), so a 24-episode match is 207,360 episodes and takes minutes; while it replays, the
        bar estimates the time left from the speed measured so far.
      </EmptyState>
    );
  else body = <BestResponseReport />;

  return (
    <section className="panel" data-testid="best-response">
      <header className="panel-head row">
        <h3>
          <Term term="bestResponse">Best response</Term> of the CA
        </h3>
        <label className="small">
          match{' '}
          <select aria-label="Best-response match" value={matchId} onChange={(e) => setPicked(e.target.value)} disabled={running || !matches.length}>
            {matches.map((m) => (
              <option key={m.matchId} value={m.matchId}>
                {m.matchId} · {m.da} vs {m.ca} · W_DA {pct(m.wDa)}
              </option>
            ))}
          </select>
        </label>
        <button type="button" className="btn primary" onClick={run} disabled={running || !matchId} data-testid="best-response-run">
          {running ? 'Replaying…' : 'Replay openings'}
        </button>
      </header>
      {body}
    </section>
  );
}

function BestResponseReport() {
  const report = useBestResponseStore((s) => s.report)!;
  const lines = useMemo(() => bestResponseLines(report), [report]);
  const factors = useMemo(() => bestResponseFactorRows(report), [report]);
  return (
    <div data-testid="best-response-report">
      <p className="muted small">
        {report.matchId}: DA <b className="mono">{report.da}</b> against CA <b className="mono">{report.ca}</b> · {report.episodes} episodes (fraud references
        left out) × {report.choices.toLocaleString('en-US')} openings · the match stored <Term term="wDa">W_DA</Term>{' '}
        {report.wDaStored === null ? '–' : pct(report.wDaStored)} (the same openings in the arena&apos;s wording)
      </p>
      <table className="table compact" data-testid="best-response-lines">
        <thead>
          <tr>
            <th>the CA opens with</th>
            <th className="num">
              <Term term="wDa">W_DA</Term>
            </th>
            <th className="num">
              <Term term="gymReward">gym reward</Term>
            </th>
          </tr>
        </thead>
        <tbody>
          {lines.map((l) => (
            <tr key={l.key} data-line={l.key}>
              <td>{l.label}</td>
              <td className="num">{pct(l.wDa)}</td>
              <td className="num">{reward(l.gymReward)}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <table className="table compact" data-testid="best-response-factors">
        <caption className="small muted">Per head and value: the share of (episode, opening) cells the CA wins, and where its own openings sit</caption>
        <thead>
          <tr>
            <th>head</th>
            <th>value</th>
            <th className="num">CA wins</th>
            <th className="num">
              <Term term="gymReward">gym reward</Term>
            </th>
            <th className="num">greedy picks it</th>
            <th className="num">CA wins, greedy with this value</th>
          </tr>
        </thead>
        <tbody>
          {factors.map((f) => (
            <tr key={`${f.head}/${f.value}`} data-head={f.head} data-value={f.value}>
              <td>{f.first ? f.head : ''}</td>
              <td className="mono">{f.value === 'null' ? 'none' : f.value}</td>
              <td className="num">{pct(f.winRate)}</td>
              <td className="num">{reward(f.meanReward)}</td>
              <td className="num">{pct(f.greedyShare)}</td>
              <td className="num">{share(f.deviation)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
