/** Transcript browser: filter the lab's episodes, scroll a virtual list, read one turn by turn. */
import { useEffect, useMemo } from 'react';
import { EmptyState, ErrorState, LoadingState } from '../../components/StateViews';
import { formatCount, policyLabel } from '../../format';
import { navigate, replaceParams, selectParams, useNavStore } from '../../nav/nav-store';
import { loadMatches, selectMatchCount, selectMatches, useArenaStore } from '../arena/arena-store';
import { matchesByRun } from '../runs/by-run';
import { useLabIndex } from '../runs/lab-index-store';
import { EpisodeList } from './EpisodeList';
import { DiffView } from './DiffView';
import { EpisodeView } from './EpisodeView';
import { openEpisode, reload, selectListError, selectListStatus, selectTotal, setFilters, useTranscriptsStore } from './transcripts-store';
import type { Filters } from './transcripts-store';

/** The validator filter's choices (MADS validators, stored with each episode). */
const VALIDATOR_FILTERS: { value: NonNullable<Filters['validatorFailed']>; label: string }[] = [
  { value: 'any', label: 'any' },
  { value: 'syntax', label: 'syntax' },
  { value: 'faithfulness', label: 'faithfulness' },
  { value: 'role_confusion', label: 'role confusion' },
  { value: 'task_success', label: 'task success' },
];

/** Route params ↔ episode filters. */
function filtersFrom(params: Record<string, string>): Filters {
  const f: Filters = {};
  if (params.match) f.matchId = params.match;
  if (params.scenario) f.scenarioId = params.scenario;
  if (params.winner === 'DA' || params.winner === 'CA') f.winner = params.winner;
  if (params.resolved === 'yes' || params.resolved === 'no') f.resolved = params.resolved === 'yes';
  if (params.hallucination === 'yes' || params.hallucination === 'no') f.hallucination = params.hallucination === 'yes';
  const validator = VALIDATOR_FILTERS.find((v) => v.value === params.validator);
  if (validator) f.validatorFailed = validator.value;
  return f;
}

export function TranscriptsScreen() {
  const params = useNavStore(selectParams);
  const total = useTranscriptsStore(selectTotal);
  const status = useTranscriptsStore(selectListStatus);
  const error = useTranscriptsStore(selectListError);
  const filters = useMemo(() => filtersFrom(params), [params]);
  const filtered = Object.keys(filters).length > 0;

  const matchCount = useArenaStore(selectMatchCount);
  useEffect(() => {
    void loadMatches();
  }, []);
  // On opening the screen, on every filter change, and when a match lands in the lab (the arena
  // or a run), the list reloads from the engine.
  useEffect(() => {
    void setFilters(filters, true);
  }, [filters, matchCount]);
  useEffect(() => {
    void openEpisode(params.episode ?? null);
  }, [params.episode]);

  return (
    <div className="screen transcripts" data-testid="screen-transcripts">
      <header className="screen-head">
        <div className="screen-title-row">
          <h1>Transcripts</h1>
          {params.view !== 'compare' && (
            <button className="btn" onClick={() => replaceParams({ ...params, view: 'compare' })} data-testid="open-compare">
              Compare checkpoints
            </button>
          )}
        </div>
        <p className="lede">
          Every stored episode, turn by turn: what the customer said, what the DA thought and did, what each turn earned, and what the judge concluded.
        </p>
      </header>
      <FilterBar params={params} />
      <div className="split">
        <div className="split-left panel">
          <header className="panel-head">
            <h3>Episodes</h3>
            <span className="muted small" data-testid="episode-total">
              {total === null ? '' : `${formatCount(total)} episode${total === 1 ? '' : 's'}`}
            </span>
          </header>
          {status === 'loading' && <LoadingState label="Loading episodes…" />}
          {status === 'error' && (
            <ErrorState title="Could not load episodes" error={error ?? ''} actions={[{ label: 'Retry', onClick: () => void reload() }]} />
          )}
          {status === 'ready' &&
            total === 0 &&
            (filtered ? (
              <EmptyState title="No episode matches these filters" actions={[{ label: 'Clear filters', onClick: () => replaceParams({}) }]} />
            ) : (
              <EmptyState title="No episodes in this lab yet" actions={[{ label: 'Play a match in the Arena', onClick: () => navigate('arena') }]}>
                Episodes appear here once a match has been played, from the Arena or by a co-evolution run.
              </EmptyState>
            ))}
          {status === 'ready' && (total ?? 0) > 0 && (
            <EpisodeList selectedId={params.episode ?? null} onOpen={(id) => replaceParams({ ...params, episode: id })} />
          )}
        </div>
        <div className="split-right">
          {params.view === 'compare' ? (
            <DiffView onClose={() => replaceParams({ ...params, view: undefined })} />
          ) : (
            <EpisodeView onCompare={() => replaceParams({ ...params, view: 'compare' })} />
          )}
        </div>
      </div>
    </div>
  );
}

function FilterBar({ params }: { params: Record<string, string> }) {
  const matches = useArenaStore(selectMatches);
  const runs = useLabIndex().runs;
  const set = (key: string, value: string) => replaceParams({ ...params, [key]: value || undefined, episode: undefined });
  const clear = () => replaceParams(params.view ? { view: params.view } : {});
  const scenarioIds = useMemo(() => {
    const source = params.match ? matches.filter((m) => m.id === params.match) : matches;
    return [...new Set(source.flatMap((m) => m.perScenario.map((s) => s.scenarioId)))].sort();
  }, [matches, params.match]);
  return (
    <div className="filter-bar panel" data-testid="filters">
      <label>
        Match
        <select value={params.match ?? ''} onChange={(e) => set('match', e.target.value)} data-testid="filter-match">
          <option value="">all matches</option>
          {matchesByRun(matches, runs).map((g) => (
            <optgroup key={`run:${g.runId ?? ''}`} label={g.label}>
              {g.items.map((m) => (
                <option key={m.id} value={m.id}>
                  {m.id} · {policyLabel(m.daSpec, m.daCheckpoint)} vs {policyLabel(m.caSpec, m.caCheckpoint)}
                </option>
              ))}
            </optgroup>
          ))}
        </select>
      </label>
      <label>
        Scenario
        <select value={params.scenario ?? ''} onChange={(e) => set('scenario', e.target.value)} data-testid="filter-scenario">
          <option value="">all scenarios</option>
          {scenarioIds.map((s) => (
            <option key={s}>{s}</option>
          ))}
        </select>
      </label>
      <label>
        Winner
        <select value={params.winner ?? ''} onChange={(e) => set('winner', e.target.value)} data-testid="filter-winner">
          <option value="">either</option>
          <option value="DA">DA won</option>
          <option value="CA">CA won (DA failed)</option>
        </select>
      </label>
      <label>
        Judge: resolved
        <select value={params.resolved ?? ''} onChange={(e) => set('resolved', e.target.value)} data-testid="filter-resolved">
          <option value="">any</option>
          <option value="yes">resolved</option>
          <option value="no">not resolved</option>
        </select>
      </label>
      <label>
        Judge: hallucination
        <select value={params.hallucination ?? ''} onChange={(e) => set('hallucination', e.target.value)} data-testid="filter-hallucination">
          <option value="">any</option>
          <option value="yes">hallucinated</option>
          <option value="no">none</option>
        </select>
      </label>
      <label>
        Validator failed
        <select value={params.validator ?? ''} onChange={(e) => set('validator', e.target.value)} data-testid="filter-validator">
          <option value="">—</option>
          {VALIDATOR_FILTERS.map((v) => (
            <option key={v.value} value={v.value}>
              {v.label}
            </option>
          ))}
        </select>
      </label>
      {Object.keys(params).some((k) => k !== 'episode' && k !== 'view') && (
        <button className="btn tiny" onClick={clear}>
          Clear
        </button>
      )}
    </div>
  );
}
