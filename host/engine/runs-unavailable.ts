/**
 * The RunService used when the co-evolution runner cannot run: starting a run fails with a
 * message that says why, and every list is empty. The engine reports `runsUnavailable` in
 * `engine/info`, so the UI explains the gap instead of showing an inexplicably empty lab.
 */
import type { RunService } from '../../core/contract/run-service';

export interface UnavailableRunService extends RunService {
  /** Why runs are not available, in words for people. */
  readonly unavailable: string;
}

export const RUNS_UNAVAILABLE = 'runs are not available in this build: it has no co-evolution runner';

export function unavailableRunService(reason = RUNS_UNAVAILABLE): UnavailableRunService {
  const fail = (): never => {
    throw new Error(reason);
  };
  return {
    unavailable: reason,
    presets: () => [],
    start: async () => fail(),
    pause: fail,
    resume: async () => fail(),
    stop: fail,
    list: () => [],
    get: (runId) => {
      throw new Error(`no run "${runId}": ${reason}`);
    },
    metrics: () => ({}),
    subscribe: () => () => {},
  };
}

export function isUnavailable(s: RunService): s is UnavailableRunService {
  return typeof (s as Partial<UnavailableRunService>).unavailable === 'string';
}
