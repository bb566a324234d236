/**
 * The engine's side of the desktop app, as plain Node: main sends `init` (which lab to open) and,
 * for every window load, `connect` with a MessagePort; each port becomes a contract session.
 * Electron-free (ports are structural), so tests drive it with fake ports.
 */
import type { ServerMessage } from '../core/contract/contract';
import { createEngine } from '../host/engine/engine';
import type { Engine } from '../host/engine/engine';
import type { OpenedRunService } from '../host/engine/run-service';
import { createSession } from '../host/engine/session';

/** The runner's worker thread, bundled beside the engine process (electron/vite.config.ts names the entry). */
export const RUN_WORKER_BUNDLE = 'run-worker.js';

export type ParentMessage = { type: 'init'; dbPath: string } | { type: 'connect' } | { type: 'shutdown' };

/** What the engine process tells main. */
export type ChildMessage = { type: 'ready'; dbPath: string; runsUnavailable: string | null } | { type: 'failed'; error: string };

/** The parts of Electron's MessagePortMain a session needs. */
export interface PortLike {
  on(event: 'message', listener: (e: { data: unknown }) => void): unknown;
  on(event: 'close', listener: () => void): unknown;
  postMessage(message: unknown): void;
  start(): void;
  close(): void;
}

export interface EngineHostDeps {
  openRunService(dbPath: string): OpenedRunService;
  post(message: ChildMessage): void;
}

export function createEngineHost(deps: EngineHostDeps) {
  let engine: Engine | null = null;
  let runs: OpenedRunService | null = null;
  let ready: Promise<Engine> | null = null;
  const ports = new Set<PortLike>();

  async function init(dbPath: string): Promise<Engine> {
    try {
      runs = deps.openRunService(dbPath);
      engine = createEngine({ dbPath, runService: runs.service });
      const info = await engine.handlers['engine/info'](undefined);
      deps.post({ type: 'ready', dbPath, runsUnavailable: info.runsUnavailable });
      return engine;
    } catch (err) {
      deps.post({ type: 'failed', error: err instanceof Error ? err.message : String(err) });
      throw err;
    }
  }

  function attach(e: Engine, port: PortLike): void {
    const session = createSession(e, (m: ServerMessage) => port.postMessage(m));
    ports.add(port);
    port.on('message', (ev) => void session.receive(ev.data));
    port.on('close', () => {
      session.close();
      ports.delete(port);
    });
    port.start();
  }

  return {
    /** Handle one message from main (with the ports it transferred). */
    async receive(message: ParentMessage, transferred: readonly PortLike[]): Promise<void> {
      switch (message.type) {
        case 'init':
          ready ??= init(message.dbPath);
          ready.catch(() => undefined);
          return;
        case 'connect': {
          const port = transferred[0];
          if (!port) return;
          if (!ready) throw new Error('engine host: connect before init');
          try {
            attach(await ready, port);
          } catch {
            port.close();
          }
          return;
        }
        case 'shutdown':
          for (const p of ports) p.close();
          ports.clear();
          engine?.close();
          engine = null;
          await runs?.close();
          runs = null;
          return;
      }
    },
  };
}
