/**
 * The run a screen shows (the one in the route, else the screen's default pick) with the run
 * list's loading state; loads the list once and the run's detail whenever the choice changes.
 */
import { useEffect } from 'react';
import type { RunSummary } from '../../../../core/contract/contract';
import { selectRouteId, useNavStore } from '../../nav/nav-store';
import { loadRun, loadRuns, selectRuns, selectRunsError, selectRunsStatus, useRunsStore } from './runs-store';

export function useSelectedRun(pick: (runs: readonly RunSummary[]) => string | null) {
  const routeId = useNavStore(selectRouteId);
  const runs = useRunsStore(selectRuns);
  const status = useRunsStore(selectRunsStatus);
  const error = useRunsStore(selectRunsError);
  const runId = routeId ?? pick(runs);
  useEffect(() => {
    void loadRuns();
  }, []);
  useEffect(() => {
    if (runId) void loadRun(runId);
  }, [runId]);
  return { runId, runs, status, error };
}
