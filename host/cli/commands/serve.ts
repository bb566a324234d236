/**
 * `sparring serve`: the lab UI in a browser (web mode). Prints the URL with its per-launch token
 * (or `{url, token}` with --json) and serves until interrupted.
 */
import type { Command } from 'commander';
import { InvalidArgumentError } from 'commander';
import { createEngine } from '../../engine/engine';
import { openRunService } from '../../engine/run-service';
import { RENDERER_DIST, ensureRendererBuilt } from '../../web/renderer-build';
import { startWebServer } from '../../web/server';
import { addDeviceOptions, deviceSession } from '../device';
import type { DeviceOptions } from '../device';
import type { GlobalOptions } from '../global-options';

interface ServeOptions extends DeviceOptions {
  port: number;
  host: string;
  build: boolean;
}

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '::1']);

function portNumber(value: string): number {
  if (!/^\d+$/.test(value) || Number(value) > 65535) throw new InvalidArgumentError(`--port must be 0–65535 (0: any free port), got "${value}".`);
  return Number(value);
}

export function registerServe(program: Command, globals: () => GlobalOptions): void {
  addDeviceOptions(
    program
      .command('serve')
      .description('the lab UI in a browser (web mode), on 127.0.0.1 with a per-launch token')
      .option('--port <n>', 'TCP port (0: any free port)', portNumber, 7317)
      .option('--host <host>', 'address to listen on; anything but loopback exposes the lab to your network (explicit opt-in)', '127.0.0.1')
      .option('--no-build', 'do not build the renderer when it is missing or stale (see `npm run build:renderer`)'),
    'matches, play, replays and runs whose config names no device',
  ).action(async (opts: ServeOptions) => {
    const g = globals();
    const log = (line: string) => process.stderr.write(`${line}\n`);
    if (opts.build) await ensureRendererBuilt(log);
    if (!LOOPBACK.has(opts.host)) {
      log(
        `sparring serve: WARNING: listening on ${opts.host}, not on loopback. Anyone who can reach this machine and ` +
          `learns the token can read and change this lab. Prefer an SSH tunnel to 127.0.0.1.`,
      );
    }
    const { session, device } = await deviceSession(opts, log);
    const runs = openRunService(g.db, log, 'worker', undefined, device.provider);
    const engine = createEngine({ dbPath: g.db, runService: runs.service, session });
    let server;
    try {
      server = await startWebServer({ engine, staticDir: RENDERER_DIST, host: opts.host, port: opts.port });
    } catch (err) {
      engine.close();
      await runs.close();
      const e = err as NodeJS.ErrnoException;
      if (e.code === 'EADDRINUSE') throw new Error(`port ${opts.port} on ${opts.host} is in use; pick another with --port (0: any free port)`, { cause: err });
      throw err;
    }
    if (g.json) process.stdout.write(`${JSON.stringify({ url: server.url, token: server.token })}\n`);
    else process.stdout.write(`Sparring lab (${g.db}) at\n  ${server.url}\n`);
    log('sparring serve: Ctrl-C stops the server');

    await new Promise<void>((resolve) => {
      process.once('SIGINT', resolve);
      process.once('SIGTERM', resolve);
    });
    await server.close();
    engine.close();
    // Live runs stop now; Resume continues each from its last phase boundary.
    await runs.close();
  });
}
