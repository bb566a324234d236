/** The engine process's protocol with fake ports: init, connect a window, answer, shut down. */
import { EventEmitter } from 'node:events';
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ServerMessage } from '../core/contract/contract';
import { unavailableRunService } from '../host/engine/runs-unavailable';
import { createEngineHost } from './engine-host';
import type { ChildMessage, PortLike } from './engine-host';

class FakePort extends EventEmitter implements PortLike {
  sent: ServerMessage[] = [];
  started = false;
  closed = false;
  postMessage(m: unknown) {
    this.sent.push(m as ServerMessage);
  }
  start() {
    this.started = true;
  }
  close() {
    this.closed = true;
    this.emit('close');
  }
  /** What the window sends. */
  send(data: unknown) {
    this.emit('message', { data });
  }
}

const until = async (f: () => boolean) => {
  for (let i = 0; i < 200 && !f(); i++) await new Promise((r) => setTimeout(r, 10));
  expect(f()).toBe(true);
};

describe('engine host (utility process protocol)', () => {
  it('opens the lab on init, serves each connected port, and closes on shutdown', async () => {
    const dbPath = path.join(mkdtempSync(path.join(os.tmpdir(), 'sparring-host-')), 'lab.db');
    const posted: ChildMessage[] = [];
    const host = createEngineHost({ openRunService: () => ({ service: unavailableRunService(), close: async () => {} }), post: (m) => posted.push(m) });
    await host.receive({ type: 'init', dbPath }, []);
    const port = new FakePort();
    await host.receive({ type: 'connect' }, [port]);
    expect(port.started).toBe(true);
    expect(posted[0]).toMatchObject({ type: 'ready', dbPath, runsUnavailable: expect.stringMatching(/not available/) });

    port.send({ kind: 'request', id: 1, name: 'episodes/list', args: { limit: 1 } });
    await until(() => port.sent.length === 1);
    expect(port.sent[0]).toEqual({ kind: 'response', id: 1, ok: true, result: { total: 0, items: [] } });

    await host.receive({ type: 'shutdown' }, []);
    expect(port.closed).toBe(true);
  });

  it('reports a lab that cannot be opened, and refuses connections to it', async () => {
    const posted: ChildMessage[] = [];
    const host = createEngineHost({ openRunService: () => ({ service: unavailableRunService(), close: async () => {} }), post: (m) => posted.push(m) });
    const notADb = path.join(mkdtempSync(path.join(os.tmpdir(), 'sparring-host-')));
    await host.receive({ type: 'init', dbPath: notADb }, []);
    const port = new FakePort();
    await host.receive({ type: 'connect' }, [port]);
    expect(posted[0]).toMatchObject({ type: 'failed', error: expect.stringMatching(/cannot open lab database/) });
    expect(port.closed).toBe(true);
  });
});
