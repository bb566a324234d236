/**
 * The co-evolution runner for a lab (host/coevolution/service.ts). If it cannot start (a lab
 * from an incompatible version, a broken model runtime), the engine still serves matches,
 * transcripts and export, and `engine/info` says why runs are unavailable — never silently.
 */
import type { RunService } from '../../core/contract/run-service';
import type { ProviderChoice } from '../../core/contract/device';
import { createRunService } from '../coevolution/service';
import { createWorkerRunService } from '../coevolution/worker-service';
import { unavailableRunService } from './runs-unavailable';

export interface OpenedRunService {
  service: RunService;
  /** Stop live runs (each resumes from its last phase boundary) and close the runner's connection. */
  close(): Promise<void>;
}

/**
 * `thread: 'worker'` runs the runner on a worker thread, so the event loop that answers queries
 * stays free (web mode's server, the desktop app's engine process; `workerUrl` names a bundled
 * worker module); 'inline' in this thread (the CLI's `run`). `provider`: the device of runs whose
 * config names none (`sparring serve --provider`).
 */
export function openRunService(
  dbPath: string,
  warn: (line: string) => void = (l) => process.stderr.write(`${l}\n`),
  thread: 'inline' | 'worker' = 'inline',
  workerUrl?: URL,
  provider?: ProviderChoice,
): OpenedRunService {
  try {
    const p = provider ? { provider } : {};
    const service = thread === 'worker' ? createWorkerRunService({ dbPath, workerUrl, ...p }) : createRunService({ dbPath, ...p });
    return { service, close: () => service.close() };
  } catch (err) {
    const reason = `runs are not available: the co-evolution runner failed to start (${err instanceof Error ? err.message : String(err)})`;
    warn(`sparring: ${reason}`);
    return { service: unavailableRunService(reason), close: async () => {} };
  }
}
