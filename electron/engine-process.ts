/**
 * Entry of the engine's Electron utility process: the engine runs here, off the UI thread and
 * apart from main, and talks to windows over the MessagePorts main hands it. The co-evolution
 * runner works on a worker thread (run-worker.js, bundled beside this file), as in `sparring
 * serve`: a training step or a match never holds up this process's answers to the windows.
 */
import { openRunService } from '../host/engine/run-service';
import { RUN_WORKER_BUNDLE, createEngineHost } from './engine-host';
import type { ParentMessage, PortLike } from './engine-host';

process.env.ORT_DISABLE_TELEMETRY ??= '1';
const RUN_WORKER = new URL(`./${RUN_WORKER_BUNDLE}`, import.meta.url);

const host = createEngineHost({
  openRunService: (dbPath) => openRunService(dbPath, undefined, 'worker', RUN_WORKER),
  post: (m) => process.parentPort.postMessage(m),
});

process.parentPort.on('message', (e) => {
  host.receive(e.data as ParentMessage, e.ports as PortLike[]).catch((err: unknown) => {
    process.stderr.write(`sparring engine: ${err instanceof Error ? err.message : String(err)}\n`);
  });
});
