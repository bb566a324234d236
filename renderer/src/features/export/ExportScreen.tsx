/** Data out: episodes as JSONL (OpenAI chat format with tool calls) or CSV, and every chart as SVG/PNG. */
import { useEffect, useState } from 'react';
import { EmptyState, ErrorState, LoadingState } from '../../components/StateViews';
import { policyLabel } from '../../format';
import { navigate } from '../../nav/nav-store';
import { ScenarioBarsPanel } from '../arena/ArenaScreen';
import { loadMatches, selectMatch, selectMatches, selectMatchesError, selectMatchesStatus, selectSelectedMatch, useArenaStore } from '../arena/arena-store';
import { GymCurves, PhaseTimeline, WinRates } from '../dashboard/DashboardScreen';
import { loadRun, loadRuns, selectDetail, selectRuns, useRunsStore } from '../runs/runs-store';
import { matchesByRun } from '../runs/by-run';
import { defaultChartMatch } from './export.data';
import { loadStudies, selectStudies, useStudiesStore } from '../studies/studies-store';
import { exportEpisodes, selectExportBusy, selectExportError, selectLastExport, useExportStore } from './export-store';

export function ExportScreen() {
  useEffect(() => {
    void loadMatches();
    void loadRuns();
  }, []);
  return (
    <div className="screen" data-testid="screen-export">
      <header className="screen-head">
        <h1>Export</h1>
        <p className="lede">Episodes for training elsewhere or for analysis, and the lab&apos;s charts for papers and notes.</p>
      </header>
      <EpisodesExport />
      <ChartsExport />
    </div>
  );
}

function EpisodesExport() {
  const matches = useArenaStore(selectMatches);
  const status = useArenaStore(selectMatchesStatus);
  const error = useArenaStore(selectMatchesError);
  const busy = useExportStore(selectExportBusy);
  const exportError = useExportStore(selectExportError);
  const last = useExportStore(selectLastExport);
  const [matchId, setMatchId] = useState('');
  const runs = useRunsStore(selectRuns);
  const studies = useStudiesStore(selectStudies);
  useEffect(() => {
    void loadStudies();
  }, []);
  const [format, setFormat] = useState<'jsonl' | 'csv'>('jsonl');

  let body;
  if (status === 'loading' || status === 'idle') body = <LoadingState label="Loading matches…" />;
  else if (status === 'error')
    body = <ErrorState title="Could not load the matches" error={error ?? ''} actions={[{ label: 'Retry', onClick: () => void loadMatches() }]} />;
  else if (matches.length === 0)
    body = (
      <EmptyState title="Nothing to export yet" actions={[{ label: 'Play a match in the Arena', onClick: () => navigate('arena') }]}>
        Episodes come from matches; this lab has none.
      </EmptyState>
    );
  else
    body = (
      <>
        <div className="form-row">
          <label>
            Episodes of
            <select value={matchId} onChange={(e) => setMatchId(e.target.value)} data-testid="export-match">
              <option value="">every match</option>
              {runs.length > 0 && (
                <optgroup label="A run (all its matches)">
                  {runs.map((r) => (
                    <option key={r.id} value={r.id}>
                      run {r.id}
                    </option>
                  ))}
                </optgroup>
              )}
              {studies.length > 0 && (
                <optgroup label="A study (every run of it)">
                  {studies.map((st) => (
                    <option key={st.id} value={st.id}>
                      study {st.id}
                    </option>
                  ))}
                </optgroup>
              )}
              {matchesByRun(matches, runs).map((g) => (
                <optgroup key={`run:${g.runId ?? ''}`} label={g.label}>
                  {g.items.map((m) => (
                    <option key={m.id} value={m.id}>
                      {m.id} · {policyLabel(m.daSpec, m.daCheckpoint)} vs {policyLabel(m.caSpec, m.caCheckpoint)} ·{' '}
                      {m.perScenario.reduce((s, p) => s + p.episodes, 0)} episodes
                    </option>
                  ))}
                </optgroup>
              ))}
            </select>
          </label>
          <fieldset className="radios">
            <legend>Format</legend>
            <label>
              <input type="radio" name="format" checked={format === 'jsonl'} onChange={() => setFormat('jsonl')} data-testid="format-jsonl" /> JSONL (chat +
              tool calls)
            </label>
            <label>
              <input type="radio" name="format" checked={format === 'csv'} onChange={() => setFormat('csv')} data-testid="format-csv" /> CSV (one row per
              episode, every reward term)
            </label>
          </fieldset>
          <button className="btn primary" disabled={busy} onClick={() => void exportEpisodes(matchId || undefined, format)} data-testid="export-download">
            {busy ? 'Exporting…' : 'Download'}
          </button>
        </div>
        <p className="hint">
          JSONL: one episode a line, <span className="mono">{'{messages, tools, metadata}'}</span> — system, customer as <i>user</i>, the DA&apos;s tool calls
          as
          <i> assistant</i> tool_calls with <i>tool</i> results, its words as assistant content; outcome, rewards and the DA&apos;s thinking in metadata.
        </p>
        {exportError && (
          <ErrorState
            title="The export failed"
            error={exportError}
            actions={[{ label: 'Try again', onClick: () => void exportEpisodes(matchId || undefined, format) }]}
          />
        )}
        {last && !exportError && (
          <p className="ok-text small" data-testid="export-done">
            Saved {last.filename}: {last.episodes} episode{last.episodes === 1 ? '' : 's'}, {(last.bytes / 1024).toFixed(1)} KiB.
          </p>
        )}
      </>
    );
  return (
    <section className="panel">
      <header className="panel-head">
        <h3>Episodes</h3>
      </header>
      {body}
    </section>
  );
}

function ChartsExport() {
  const runs = useRunsStore(selectRuns);
  const matches = useArenaStore(selectMatches);
  const selected = useArenaStore(selectSelectedMatch);
  const picked = useArenaStore((s) => s.selectedMatchId);
  const [runId, setRunId] = useState<string | null>(null);
  // Nobody has picked a match yet: show the newest one with a chart worth exporting.
  useEffect(() => {
    const first = picked === null ? defaultChartMatch(matches) : null;
    if (first) selectMatch(first);
  }, [picked, matches]);
  const id = runId ?? runs.at(-1)?.id ?? null;
  const detail = useRunsStore(selectDetail(id));
  useEffect(() => {
    if (id) void loadRun(id);
  }, [id]);
  return (
    <>
      <section className="panel">
        <header className="panel-head">
          <h3>Charts</h3>
        </header>
        <p className="hint">Every chart has SVG and PNG buttons in its corner, here and on the dashboard.</p>
        <div className="form-row">
          {matches.length > 0 && (
            <label>
              Arena match
              <select value={selected?.id ?? ''} onChange={(e) => selectMatch(e.target.value)}>
                {matches.map((m) => (
                  <option key={m.id}>{m.id}</option>
                ))}
              </select>
            </label>
          )}
          {runs.length > 0 && (
            <label>
              Run
              <select value={id ?? ''} onChange={(e) => setRunId(e.target.value)}>
                {runs.map((r) => (
                  <option key={r.id}>{r.id}</option>
                ))}
              </select>
            </label>
          )}
        </div>
        {matches.length === 0 && runs.length === 0 && <EmptyState title="No charts yet">Charts appear once the lab has a match or a run.</EmptyState>}
      </section>
      {selected && <ScenarioBarsPanel key={selected.id} />}
      {detail && (
        <>
          <PhaseTimeline d={detail} />
          <WinRates d={detail} />
          <GymCurves runId={detail.id} />
        </>
      )}
    </>
  );
}
