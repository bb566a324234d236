/**
 * Web mode with the simulated runner (test/e2e only): `node --import tsx serve-simulated.ts DB`
 * prints {url, token} like `sparring serve --json` and serves until SIGTERM.
 */
import { createEngine } from '../../../host/engine/engine';
import { RENDERER_DIST } from '../../../host/web/renderer-build';
import { startWebServer } from '../../../host/web/server';
import { simulatedRunService } from './simulated-run-service';

const dbPath = process.argv[2];
if (!dbPath) throw new Error('usage: serve-simulated.ts DB');
const engine = createEngine({ dbPath, runService: simulatedRunService(dbPath) });
const server = await startWebServer({ engine, staticDir: RENDERER_DIST, port: 0 });
process.stdout.write(`${JSON.stringify({ url: server.url, token: server.token })}\n`);
await new Promise((r) => process.once('SIGTERM', r));
await server.close();
engine.close();
