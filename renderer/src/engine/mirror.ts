/**
 * The one subscriber to the engine: connection changes and events go into the feature stores
 * (read-only mirrors of the engine's view). Nothing else listens to the transport.
 */
import type { Transport } from '../transport/transport';
import { applyArenaEvent, loadMatches } from '../features/arena/arena-store';
import { applyPlayEvent } from '../features/play/play-store';
import { applyRobustnessEvent } from '../features/evaluation/robustness-store';
import { applyBestResponseEvent } from '../features/evaluation/best-response-store';
import { applyRunEvent, loadRuns } from '../features/runs/runs-store';
import { applyCrossPlayEvent } from '../features/evaluation/crossplay-store';
import { applyStudyEvent, loadStudies } from '../features/studies/studies-store';
import { applyLabEvent, loadLabCheckpoints } from '../features/runs/lab-index-store';
import { loadEngineInfo, useEngineStore } from './engine-store';

export function startMirror(t: Transport): () => void {
  useEngineStore.setState({ transportKind: t.kind });
  let wasClosed = false;
  const offState = t.onState((connection, detail) => {
    useEngineStore.setState({ connection, connectionDetail: detail });
    if (connection === 'closed') wasClosed = true;
    if (connection === 'open' && wasClosed) {
      // Back after a drop: what happened meanwhile came as events we missed.
      wasClosed = false;
      void loadEngineInfo();
      void loadRuns();
      void loadMatches();
      void loadStudies();
      void loadLabCheckpoints();
    }
  });
  const offEvents = t.onEvent((e) => {
    applyRunEvent(e);
    applyArenaEvent(e);
    applyPlayEvent(e);
    applyCrossPlayEvent(e);
    applyRobustnessEvent(e);
    applyBestResponseEvent(e);
    applyStudyEvent(e);
    // Runs, checkpoints and policy lists follow what the runs and studies did (every picker).
    applyLabEvent(e);
    // A run's match is stored in the lab: the match lists (arena, transcript filters) follow.
    if (e.name === 'run/match') void loadMatches();
  });
  return () => {
    offState();
    offEvents();
  };
}
