/** Play one arena match (any DA against any CA), watch it stream, and compare matches. */
import { useEffect, useMemo, useState } from 'react';
import type { ArgsOf } from '../../../../core/contract/contract';
import { Badge } from '../../components/Badge';
import { Term } from '../../components/Term';
import { GLOSSARY } from '../../glossary/glossary';
import { ChartFrame } from '../../components/ChartFrame';
import { ProgressBar, etaFrom, useNow } from '../../components/ProgressBar';
import { EmptyState, ErrorState, LoadingState } from '../../components/StateViews';
import { formatCount, formatTime, llmCost, policyLabel } from '../../format';
import { useChart } from '../../charts/use-chart';
import { loadEngineInfo, selectInfo, useEngineStore } from '../../engine/engine-store';
import { navigate } from '../../nav/nav-store';
import { loadRuns, selectRuns, useRunsStore } from '../runs/runs-store';
import { useLabIndex } from '../runs/lab-index-store';
import { policyOptionLabel, runOptionLabel } from '../runs/run-identity';
import { CheckpointIdentity } from '../runs/RunIdentity';
import { createScenarioBarsChart } from '../dashboard/create-scenario-bars-chart';
import { scenarioBars } from '../dashboard/scenario-bars.data';
import {
  loadMatches,
  playMatch,
  selectMatch,
  selectMatches,
  selectMatchesError,
  selectMatchesStatus,
  selectPlayError,
  selectPlaying,
  selectProgress,
  selectSelectedMatch,
  useArenaStore,
} from './arena-store';

type ScenarioSet = ArgsOf<'matches/play'>['scenarios'];

export function ArenaScreen() {
  const matches = useArenaStore(selectMatches);
  const status = useArenaStore(selectMatchesStatus);
  const error = useArenaStore(selectMatchesError);
  const selected = useArenaStore(selectSelectedMatch);

  useEffect(() => {
    void loadMatches();
  }, []);

  return (
    <div className="screen" data-testid="screen-arena">
      <header className="screen-head">
        <h1>Arena</h1>
        <p className="lede">
          One match: the DA against the CA, N episodes per scenario. W_DA counts the CA-winnable scenarios; fraud-escalation scenarios are a separate reference.
        </p>
      </header>
      <PlayForm />
      <section className="panel">
        <header className="panel-head">
          <h3>Matches in this lab</h3>
          <button className="btn tiny" onClick={() => void loadMatches()}>
            Refresh
          </button>
        </header>
        {status === 'loading' && <LoadingState label="Loading matches…" />}
        {status === 'error' && (
          <ErrorState title="Could not load the matches" error={error ?? ''} actions={[{ label: 'Retry', onClick: () => void loadMatches() }]} />
        )}
        {status === 'ready' && matches.length === 0 && (
          <EmptyState title="No matches in this lab yet">
            Play one above: the scripted agents need nothing else, and a 2-episode match takes a few seconds.
          </EmptyState>
        )}
        {matches.length > 0 && <MatchesTable />}
      </section>
      {selected && <ScenarioBarsPanel key={selected.id} />}
    </div>
  );
}

function PlayForm() {
  const info = useEngineStore(selectInfo);
  const playing = useArenaStore(selectPlaying);
  const playError = useArenaStore(selectPlayError);
  const progress = useArenaStore(selectProgress);
  const [da, setDa] = useState('scripted');
  const [ca, setCa] = useState('scripted');
  const [episodes, setEpisodes] = useState(4);
  const [scenarios, setScenarios] = useState<ScenarioSet>('arena');
  const [seed, setSeed] = useState(1);
  const [run, setRun] = useState('');
  const [speak, setSpeak] = useState<'train' | 'validation'>('train');
  const runs = useRunsStore(selectRuns);
  const lab = useLabIndex();
  // A run that keeps a validation slice (validation.bankShare) can have its CA speak it.
  const validationShare = runs.find((r) => r.id === run)?.validationShare ?? null;
  const now = useNow(playing);
  // The pickers list the lab's checkpoints and runs as they are now, not as they were when the app opened.
  useEffect(() => {
    void loadEngineInfo();
    void loadRuns();
  }, []);

  const args: ArgsOf<'matches/play'> = {
    da,
    ca,
    episodesPerScenario: episodes,
    scenarios,
    seed,
    ...(run ? { run } : {}),
    ...(run && validationShare !== null && speak === 'validation' ? { speak } : {}),
  };
  const valid = Number.isInteger(episodes) && episodes >= 1 && episodes <= 1000 && Number.isInteger(seed);
  return (
    <section className="panel">
      <header className="panel-head">
        <h3>Play a match</h3>
      </header>
      <form
        className="form-row"
        onSubmit={(e) => {
          e.preventDefault();
          if (valid && !playing) void playMatch(args);
        }}
      >
        <label>
          DA
          <select className="identity-select" value={da} onChange={(e) => setDa(e.target.value)} data-testid="play-da">
            {(info?.policies.da ?? ['scripted']).map((p) => (
              <option key={p} value={p}>
                {policyOptionLabel(p, 'DA', lab)}
              </option>
            ))}
          </select>
        </label>
        <label>
          CA
          <select className="identity-select" value={ca} onChange={(e) => setCa(e.target.value)} data-testid="play-ca">
            {(info?.policies.ca ?? ['scripted']).map((p) => (
              <option key={p} value={p}>
                {policyOptionLabel(p, 'CA', lab)}
              </option>
            ))}
          </select>
        </label>
        <label>
          Episodes per scenario
          <input type="number" min={1} max={1000} value={episodes} onChange={(e) => setEpisodes(e.target.valueAsNumber)} data-testid="play-episodes" />
        </label>
        <label>
          Scenarios
          <select value={scenarios} onChange={(e) => setScenarios(e.target.value as ScenarioSet)} data-testid="play-scenarios">
            <option value="arena">arena (10)</option>
            <option value="heldout">held-out (12)</option>
            <option value="fraud">fraud references</option>
            <option value="all">all</option>
            <option value="robustness">robustness (MADS, with custom)</option>
          </select>
        </label>
        <label>
          Seed
          <input type="number" value={seed} onChange={(e) => setSeed(e.target.valueAsNumber)} data-testid="play-seed" />
        </label>
        <label title="As that run's own matches play: its config, adversities and judge, and a CA speaking the run's train slice of the bank. Otherwise a checkpoint CA speaks the whole bank, held-out slice included.">
          As in run
          <select className="identity-select" value={run} onChange={(e) => setRun(e.target.value)} data-testid="play-run">
            <option value="">— (whole bank)</option>
            {runs.map((r) => (
              <option key={r.id} value={r.id}>
                {runOptionLabel(r)}
              </option>
            ))}
          </select>
        </label>
        {validationShare !== null && (
          <label title="Which of the run's bank slices a checkpoint CA speaks: its train slice, or the validation slice its config kept out of everything the run trained on (for choosing settings without the held-out slice).">
            CA speaks
            <select value={speak} onChange={(e) => setSpeak(e.target.value as 'train' | 'validation')} data-testid="play-speak">
              <option value="train">train slice</option>
              <option value="validation">validation slice ({Math.round(validationShare * 100)}% of train)</option>
            </select>
          </label>
        )}
        <button type="submit" className="btn primary" disabled={!valid || playing} data-testid="play-match">
          {playing ? 'Playing…' : 'Play match'}
        </button>
      </form>
      <CheckpointIdentity spec={da} role="DA" testId="arena-da-identity" />
      <CheckpointIdentity spec={ca} role="CA" testId="arena-ca-identity" />
      {!valid && <div className="inline-error">Episodes per scenario must be a whole number from 1 to 1000, and the seed a whole number.</div>}
      {playing &&
        (progress ? (
          <ProgressBar
            label={`Match ${progress.matchId}`}
            done={progress.done}
            total={progress.total}
            etaSeconds={etaFrom(progress.startedAt, now, progress.done, progress.total)}
          />
        ) : (
          <LoadingState label="Starting the match…" />
        ))}
      {playError && !playing && (
        <ErrorState title="The match did not run" error={playError} actions={[{ label: 'Try again', onClick: () => void playMatch(args) }]} />
      )}
    </section>
  );
}

function pct(x: number | null): string {
  return x === null ? '—' : `${(x * 100).toFixed(1)}%`;
}

function MatchesTable() {
  const matches = useArenaStore(selectMatches);
  const selected = useArenaStore(selectSelectedMatch);
  return (
    <div className="table-wrap">
      <table className="table" data-testid="matches-table">
        <thead>
          <tr>
            <th>Match</th>
            <th>Played</th>
            <th>DA</th>
            <th>CA</th>
            <th>Scenarios</th>
            <th className="num">N</th>
            <th className="num">W_DA</th>
            <th className="num">W_CA</th>
            <th className="num">
              <Term term="fraudRate">Fraud scenarios won</Term>
            </th>
            <th title="Tokens in and out of the LLM calls behind the match, and their mean latency (where a model from the Models screen played)">LLM calls</th>
            <th />
          </tr>
        </thead>
        <tbody>
          {[...matches].reverse().map((m) => (
            <tr key={m.id} className={selected?.id === m.id ? 'selected' : undefined} onClick={() => selectMatch(m.id)} data-testid={`match-row-${m.id}`}>
              <td className="mono">{m.id}</td>
              <td>{formatTime(m.createdAt)}</td>
              <td>{policyLabel(m.daSpec, m.daCheckpoint)}</td>
              <td>{policyLabel(m.caSpec, m.caCheckpoint)}</td>
              <td>{m.scenarioSet}</td>
              <td className="num">{m.episodesPerScenario}</td>
              <td className="num">{pct(m.wDa)}</td>
              <td className="num">{pct(m.wDa === null ? null : 1 - m.wDa)}</td>
              <td className="num">{pct(m.fraudRate)}</td>
              <td className="small" data-testid="match-llm-cost">
                {m.llm ? (
                  <span title={`${formatCount(m.llm.calls)} calls, ${(m.llm.latencyMs / 1000).toFixed(1)} s in all`}>{llmCost(m.llm)}</span>
                ) : (
                  <span className="muted">—</span>
                )}
              </td>
              <td className="actions">
                <button
                  className="btn tiny"
                  onClick={(e) => {
                    e.stopPropagation();
                    navigate('transcripts', null, { match: m.id });
                  }}
                >
                  Transcripts
                </button>
                <button
                  className="btn tiny"
                  onClick={(e) => {
                    e.stopPropagation();
                    navigate('transcripts', null, { match: m.id, winner: 'CA' });
                  }}
                  title="Episodes the CA won"
                >
                  CA wins
                </button>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

export function ScenarioBarsPanel() {
  const match = useArenaStore(selectSelectedMatch);
  const data = useMemo(() => ({ bars: scenarioBars(match), tau: 0.6 }), [match]);
  const ref = useChart(createScenarioBarsChart, data, {
    onSelectScenario: (scenarioId: string) => match && navigate('transcripts', null, { match: match.id, scenario: scenarioId }),
  });
  if (!match) return null;
  return (
    <ChartFrame
      title={`DA win rate per scenario · ${match.id}`}
      file={`scenario-win-rates-${match.id}`}
      aside={
        <span className="muted small">
          <Badge tone="da">W_DA {pct(match.wDa)}</Badge>{' '}
          <Badge tone="fraud" title={GLOSSARY.fraudRate}>
            fraud scenarios won {pct(match.fraudRate)}
          </Badge>
        </span>
      }
    >
      <div ref={ref} className="chart" data-testid="scenario-bars" />
      <p className="hint">Click a scenario to read its transcripts. The dashed line is τ_DA.</p>
    </ChartFrame>
  );
}
