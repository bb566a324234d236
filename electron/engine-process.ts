/**
 * Entry of the engine's Electron utility process: the engine runs here, off the UI thread and
 * apart from main, and talks to windows over the MessagePorts main hands it.
 */
import { openRunService } from '../host/engine/run-service';
import { createEngineHost } from './engine-host';
import type { ParentMessage, PortLike } from './engine-host';

process.env.ORT_DISABLE_TELEMETRY ??= '1';

const host = createEngineHost({
  openRunService: (dbPath) => openRunService(dbPath),
  post: (m) => process.parentPort.postMessage(m),
});

process.parentPort.on('message', (e) => {
  host.receive(e.data as ParentMessage, e.ports as PortLike[]).catch((err: unknown) => {
    process.stderr.write(`sparring engine: ${err instanceof Error ? err.message : String(err)}\n`);
  });
});
