/** Evaluation's cross-play heat map: DA checkpoint × CA checkpoint win rates per arena scenario. */
import { useEffect, useMemo } from 'react';
import { ChartFrame } from '../../components/ChartFrame';
import { ProgressBar } from '../../components/ProgressBar';
import { EmptyState, ErrorState, LoadingState } from '../../components/StateViews';
import { useChart } from '../../charts/use-chart';
import { navigate } from '../../nav/nav-store';
import { createCrossPlayHeatmapChart } from './create-crossplay-heatmap-chart';
import { defaultSides, heatmapData } from './crossplay.data';
import {
  loadCheckpoints,
  playCrossPlay,
  selectCheckpoints,
  selectCheckpointsError,
  selectCheckpointsStatus,
  selectCrossPlay,
  selectCrossPlayError,
  selectCrossPlayProgress,
  selectCrossPlayStatus,
  selectEpisodesPerScenario,
  setEpisodesPerScenario,
  useCrossPlayStore,
} from './crossplay-store';

/** Every pair plays the same seeded worlds, so cells compare like with like. */
const SEED = 1;
const EPISODE_CHOICES = [2, 4, 8, 18];

export function CrossPlayPanel({ runId }: { runId: string | null }) {
  const checkpoints = useCrossPlayStore(selectCheckpoints);
  const cpStatus = useCrossPlayStore(selectCheckpointsStatus);
  const cpError = useCrossPlayStore(selectCheckpointsError);
  const status = useCrossPlayStore(selectCrossPlayStatus);
  const error = useCrossPlayStore(selectCrossPlayError);
  const progress = useCrossPlayStore(selectCrossPlayProgress);
  const result = useCrossPlayStore(selectCrossPlay);
  const n = useCrossPlayStore(selectEpisodesPerScenario);
  useEffect(() => {
    void loadCheckpoints();
  }, [runId]);
  const sides = useMemo(() => defaultSides(checkpoints ?? [], runId), [checkpoints, runId]);
  const shown = result && sameList(result.das, sides.das) && sameList(result.cas, sides.cas) && result.episodesPerScenario === n ? result : null;
  const data = useMemo(() => (shown ? heatmapData(shown) : { das: [], cas: [], panels: [] }), [shown]);
  const ref = useChart(createCrossPlayHeatmapChart, data, {
    onSelectCell: (_da: string, _ca: string, scenario: string) => scenario !== 'W_DA' && navigate('transcripts', null, { scenario }),
  });
  const play = () => void playCrossPlay(sides.das, sides.cas, SEED);
  const ready = sides.das.length > 0 && sides.cas.length > 0;

  const controls = (
    <>
      <label className="small">
        episodes / scenario{' '}
        <select value={n} onChange={(e) => setEpisodesPerScenario(Number(e.target.value))} data-testid="crossplay-episodes">
          {EPISODE_CHOICES.map((c) => (
            <option key={c}>{c}</option>
          ))}
        </select>
      </label>
      <button className="btn tiny primary" disabled={!ready || status === 'loading'} onClick={play} data-testid="crossplay-play">
        {shown ? 'Replay' : 'Play cross-play'}
      </button>
    </>
  );

  let body;
  if (cpStatus === 'error')
    body = <ErrorState title="Could not list checkpoints" error={cpError ?? ''} actions={[{ label: 'Retry', onClick: () => void loadCheckpoints() }]} />;
  else if (!checkpoints) body = <LoadingState label="Loading checkpoints…" />;
  else if (!ready)
    body = (
      <EmptyState
        title="No DA and CA checkpoints to cross-play"
        testId="crossplay-empty"
        actions={[{ label: 'Start a run', onClick: () => navigate('experiments') }]}
      >
        A co-evolution run stores DA and CA checkpoints at bootstrap and after each gym; the heat map plays every DA against every CA on the arena scenarios.
      </EmptyState>
    );
  else if (status === 'loading')
    body = progress ? (
      <ProgressBar label="Cross-play" done={progress.done} total={progress.total} etaSeconds={null} />
    ) : (
      <LoadingState label="Loading the policies…" />
    );
  else if (status === 'error') body = <ErrorState title="Cross-play failed" error={error ?? ''} actions={[{ label: 'Retry', onClick: play }]} />;
  else if (!shown)
    body = (
      <EmptyState title="Not played yet" testId="crossplay-idle" actions={[{ label: 'Play cross-play', onClick: play }]}>
        {sides.das.length} DA × {sides.cas.length} CA checkpoints ({sides.das.join(', ')} × {sides.cas.join(', ')}), {n} episodes per arena scenario:{' '}
        {sides.das.length * sides.cas.length * n * 10} episodes, played by the engine now (nothing is stored as a match).
      </EmptyState>
    );

  return (
    <ChartFrame title="Cross-play: DA × CA win rate per scenario" file={`crossplay-${runId ?? 'lab'}`} aside={controls}>
      {body}
      <div ref={ref} className="chart" data-testid="crossplay-heatmap" hidden={!shown} />
      {shown && (
        <p className="hint">
          Rows: DA checkpoints; columns: CA checkpoints; {shown.episodesPerScenario} episodes per scenario, seed {shown.seed}
          {shown.cached ? ' (from the engine’s cache)' : ''}. Click a cell to read that scenario’s transcripts.
        </p>
      )}
    </ChartFrame>
  );
}

function sameList(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}
