/**
 * The co-evolution runner on its own thread (started by worker-service.ts): the same
 * createRunService, driven by messages. Training steps and matches block this thread's event
 * loop, not the web server's. Messages: {id, method, args} in, {id, ok, result | error} and
 * {event} out.
 */
import { parentPort, workerData } from 'node:worker_threads';
import type { ProviderChoice } from '../../core/contract/device';
import { createRunService } from './service';

export type WorkerRequest =
  | { id: number; method: 'start'; args: { preset: string; configJson?: string; seed?: number; inherit?: string } }
  | { id: number; method: 'pause' | 'resume' | 'stop'; args: string }
  | { id: number; method: 'close'; args: null };

const port = parentPort;
if (!port) throw new Error('run-worker.ts runs as a worker thread (see worker-service.ts)');
const data = workerData as { dbPath: string; provider?: ProviderChoice };
const service = createRunService({ dbPath: data.dbPath, ...(data.provider ? { provider: data.provider } : {}) });
service.subscribe((event) => port.postMessage({ event }));

port.on('message', (m: WorkerRequest) => {
  void (async () => {
    try {
      let result: unknown = null;
      if (m.method === 'start') result = await service.start(m.args);
      else if (m.method === 'pause') service.pause(m.args);
      else if (m.method === 'resume') await service.resume(m.args);
      else if (m.method === 'stop') service.stop(m.args);
      else if (m.method === 'close') await service.close();
      port.postMessage({ id: m.id, ok: true, result });
      // Closed: let the thread end once its event loop drains (a model call in flight returns).
      if (m.method === 'close') port.close();
    } catch (err) {
      port.postMessage({ id: m.id, ok: false, error: err instanceof Error ? err.message : String(err) });
    }
  })();
});
