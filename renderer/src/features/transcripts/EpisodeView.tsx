/** One episode, turn by turn: thinking, tool calls and results, every reward term, the judge. */
import { useMemo } from 'react';
import type { EpisodeView } from '../../../../core/contract/contract';
import { Badge } from '../../components/Badge';
import { EmptyState, ErrorState, LoadingState } from '../../components/StateViews';
import { TakeOverButton } from '../play/TakeOverButton';
import { selectMatches, useArenaStore } from '../arena/arena-store';
import { compareFrom } from './diff-store';
import { useLabIndex } from '../runs/lab-index-store';
import { openEpisode, selectEpisode, selectEpisodeError, selectEpisodeStatus, selectSelectedId, useTranscriptsStore } from './transcripts-store';
import { adversitiesByTurn, episodeTerms, signed, termDefinition, termLabel, turnViews } from './transcript.data';
import type { TermValue, TurnView } from './transcript.data';
import { ValidatorVerdicts } from './ValidatorVerdicts';

export function EpisodeView({ onCompare }: { onCompare: () => void }) {
  const id = useTranscriptsStore(selectSelectedId);
  const episode = useTranscriptsStore(selectEpisode);
  const status = useTranscriptsStore(selectEpisodeStatus);
  const error = useTranscriptsStore(selectEpisodeError);
  if (!id) {
    return (
      <div className="panel">
        <EmptyState title="Select an episode" testId="episode-empty">
          Pick one from the list to read it turn by turn. Filter by <b>Winner: CA won</b> to study the DA&apos;s failures.
        </EmptyState>
      </div>
    );
  }
  if (status === 'loading' && episode?.id !== id)
    return (
      <div className="panel">
        <LoadingState label={`Loading ${id}…`} />
      </div>
    );
  if (status === 'error' || !episode) {
    return (
      <div className="panel">
        <ErrorState title={`Could not open ${id}`} error={error ?? 'unknown error'} actions={[{ label: 'Retry', onClick: () => void reopen(id) }]} />
      </div>
    );
  }
  return <Episode e={episode} onCompare={onCompare} />;
}

async function reopen(id: string) {
  await openEpisode(null);
  await openEpisode(id);
}

export function Episode({ e, onCompare }: { e: EpisodeView; onCompare?: () => void }) {
  const matches = useArenaStore(selectMatches);
  const checkpoints = useLabIndex().checkpoints;
  const compare = () => {
    compareFrom(e, matches.find((m) => m.id === e.matchId) ?? null, checkpoints);
    onCompare?.();
  };
  const turns = useMemo(() => turnViews(e), [e]);
  const terms = useMemo(() => episodeTerms(e), [e]);
  const fired = useMemo(() => adversitiesByTurn(e), [e]);
  const misrouted = e.routedTool !== e.expectedTool;
  return (
    <div className="episode" data-testid="episode-view" data-episode={e.id}>
      <section className="panel episode-head">
        <div className="episode-title">
          <h2 className="mono">{e.id}</h2>
          <Badge tone={e.winner === 'DA' ? 'da' : 'ca'}>{e.winner} won</Badge>
          {e.fraudReference && <Badge tone="fraud">fraud reference</Badge>}
          {e.adversities && (
            <Badge tone="warn">
              {e.adversities.length} adversit{e.adversities.length === 1 ? 'y' : 'ies'} fired
            </Badge>
          )}
          <Badge>{e.endReason === 'end_call' ? 'ended by the DA' : 'hit the turn limit'}</Badge>
          {e.llm && (
            <Badge>
              <span data-testid="episode-llm-cost">
                {e.llm.calls} LLM call{e.llm.calls === 1 ? '' : 's'}
                {e.llm.cached ? ` (${e.llm.cached} cached)` : ''} · {e.llm.tokensIn} tokens in, {e.llm.tokensOut} out · {(e.llm.latencyMs / 1000).toFixed(1)} s
                {e.llm.judge && (
                  <span data-testid="episode-llm-judge-cost">
                    {' '}
                    (judge: {e.llm.judge.calls} call{e.llm.judge.calls === 1 ? '' : 's'}, {e.llm.judge.tokensIn} tokens in, {e.llm.judge.tokensOut} out,{' '}
                    {(e.llm.judge.latencyMs / 1000).toFixed(1)} s)
                  </span>
                )}
              </span>
            </Badge>
          )}
          {onCompare && (
            <button className="btn tiny push-right" onClick={compare} data-testid="compare-episode" title="replay this scenario and seed with two checkpoints">
              Compare checkpoints
            </button>
          )}
        </div>
        <dl className="facts">
          <div>
            <dt>Scenario</dt>
            <dd>{e.scenarioId}</dd>
          </div>
          <div>
            <dt>Hidden intent</dt>
            <dd className="mono">{e.intent}</dd>
          </div>
          <div>
            <dt>Expected tool</dt>
            <dd className="mono">{e.expectedTool}</dd>
          </div>
          <div>
            <dt>Routed to</dt>
            <dd className={`mono ${misrouted ? 'bad-text' : 'ok-text'}`}>{e.routedTool ?? 'no domain tool'}</dd>
          </div>
          <div>
            <dt>Seed</dt>
            <dd className="mono">{e.seed}</dd>
          </div>
        </dl>
      </section>
      <div className="episode-grid">
        <section className="panel" data-testid="reward-terms">
          <header className="panel-head">
            <h3>Reward terms</h3>
          </header>
          <div className="terms">
            <TermTable title="DA" total={terms.rDa} totalLabel="r_DA" rows={terms.da} testId="da-terms" />
            <TermTable title="CA" total={terms.rCa} totalLabel="r_CA" rows={terms.ca} testId="ca-terms" />
          </div>
        </section>
        <section className="panel" data-testid="judge">
          <header className="panel-head">
            <h3>Judge</h3>
          </header>
          <div className="judge">
            <div className="judge-score">
              <span className="big">{signed(e.judge.score)}</span>
              <span className="muted">J in [−2, +2] · tier {e.judge.tier}/4</span>
            </div>
            <div className="judge-flags">
              <Badge tone={e.judge.resolved ? 'ok' : 'warn'}>{e.judge.resolved ? 'resolved' : 'not resolved'}</Badge>
              <Badge tone={e.judge.hallucination ? 'bad' : 'ok'}>{e.judge.hallucination ? 'hallucination' : 'no hallucination'}</Badge>
            </div>
            <p className="rationale" data-testid="judge-rationale">
              {e.judge.rationale}
            </p>
            {e.judge.hallucinations.length > 0 && (
              <ul className="claims">
                {e.judge.hallucinations.map((h, i) => (
                  <li key={i}>
                    turn {h.turn}: <q>{h.claim}</q>
                  </li>
                ))}
              </ul>
            )}
          </div>
        </section>
      </div>
      <ValidatorVerdicts episodeId={e.id} />
      <section className="panel">
        <header className="panel-head">
          <h3>Turns</h3>
          <span className="muted small">{e.turns.length} turns</span>
        </header>
        <ol className="turns" data-testid="turns">
          {turns.map((t) => (
            <Turn key={t.index} t={t} episodeId={e.id} fired={fired.get(t.index) ?? []} />
          ))}
        </ol>
      </section>
    </div>
  );
}

function TermTable({ title, rows, total, totalLabel, testId }: { title: string; rows: TermValue[]; total: number; totalLabel: string; testId: string }) {
  return (
    <table className="table compact" data-testid={testId}>
      <thead>
        <tr>
          <th>{title} term</th>
          <th className="num">value</th>
        </tr>
      </thead>
      <tbody>
        {rows.map((r) => (
          <tr key={r.term} className={r.value === 0 ? 'zero' : undefined} data-term={r.term}>
            <td title={termDefinition(r.term)}>{termLabel(r.term)}</td>
            <td className={`num ${r.value > 0 ? 'ok-text' : r.value < 0 ? 'bad-text' : ''}`}>{signed(r.value)}</td>
          </tr>
        ))}
      </tbody>
      <tfoot>
        <tr>
          <td>{totalLabel}</td>
          <td className="num" data-testid={`${testId}-total`}>
            {signed(total)}
          </td>
        </tr>
      </tfoot>
    </table>
  );
}

function Turn({ t, episodeId, fired }: { t: TurnView; episodeId: string; fired: string[] }) {
  return (
    <li className={`turn ${t.role}`} data-turn={t.index}>
      <div className="turn-side">
        <span className="turn-role">{t.role === 'customer' ? 'Customer' : 'Agent'}</span>
        <span className="muted mono">#{t.index}</span>
        <TakeOverButton episodeId={episodeId} turn={t.index} />
      </div>
      <div className="turn-body">
        {fired.map((f) => (
          <Badge key={f} tone="warn" title="a MADS adversity fired at this turn">
            {f}
          </Badge>
        ))}
        {t.thinking && (
          <div className="thinking" title="the DA's thinking">
            {t.thinking}
          </div>
        )}
        {t.actionType && <Badge tone={t.actionType === 'tool_call' ? 'da' : 'neutral'}>{t.actionType}</Badge>}
        {t.said !== null && <div className="said">{t.said}</div>}
        {t.tool && (
          <div className="tool-call">
            <span className="tool-name">{t.tool}</span>
            {t.toolArgs && t.toolArgs !== '{}' ? <pre className="code">{t.toolArgs}</pre> : <span className="muted small"> no arguments</span>}
          </div>
        )}
        {t.toolResult && (
          <details className={`tool-result ${t.toolResult.ok ? 'ok' : 'err'}`} open={!t.toolResult.ok}>
            <summary>{t.toolResult.ok ? 'result' : `error · ${t.toolResult.error}`}</summary>
            <pre className="code">{t.toolResult.text}</pre>
          </details>
        )}
        {t.parseError && (
          <div className="parse-error">
            <b>Unparseable output:</b> {t.parseError}
            {t.raw && <pre className="code">{t.raw}</pre>}
          </div>
        )}
      </div>
      <div className="turn-rewards" data-testid="turn-rewards">
        {t.rewards.length === 0 ? (
          <span className="muted small">no reward</span>
        ) : (
          t.rewards.map((r) => (
            <span key={r.term} className={`chip ${r.value > 0 ? 'pos' : r.value < 0 ? 'neg' : ''}`} title={termDefinition(r.term)}>
              {termLabel(r.term)} {signed(r.value)}
            </span>
          ))
        )}
      </div>
    </li>
  );
}
