/**
 * Smoke tests of the desktop build. The engine-process bundle runs under plain Node with a
 * stand-in for Electron's parent port (so this runs everywhere); launching the real app needs
 * Electron's binary and a display, and is skipped, with the reason, where they are missing.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { ELECTRON_DIST, buildDesktop } from './build';
import { findElectronBinary } from './electron-binary';

const HARNESS = `
import { EventEmitter } from 'node:events';
const parent = new EventEmitter();
parent.postMessage = (m) => process.stdout.write('PARENT ' + JSON.stringify(m) + '\\n');
process.parentPort = parent;
await import(process.env.BUNDLE);
const { port1, port2 } = new MessageChannel();
// Electron's MessagePortMain wraps data as {data}; Node's port does not.
const wrapped = { on: (ev, f) => port1.on(ev, ev === 'message' ? (data) => f({ data }) : f), postMessage: (m) => port1.postMessage(m), start: () => port1.start(), close: () => port1.close() };
parent.emit('message', { data: { type: 'init', dbPath: process.env.DB }, ports: [] });
parent.emit('message', { data: { type: 'connect' }, ports: [wrapped] });
// After the match, a co-evolution run on the bundled runner thread; shut down once it is running.
let started = false;
let running = false;
port2.on('message', (m) => {
  process.stdout.write('PORT ' + JSON.stringify(m) + '\\n');
  if (m.kind === 'response' && m.id === 2) port2.postMessage({ kind: 'request', id: 3, name: 'runs/start', args: { preset: 'smoke', seed: 1 } });
  started ||= m.kind === 'response' && m.id === 3;
  running ||= m.kind === 'event' && m.name === 'run/status' && m.payload.status === 'running';
  if (started && running) {
    parent.emit('message', { data: { type: 'shutdown' }, ports: [] });
    port2.close();
  }
});
port2.postMessage({ kind: 'request', id: 1, name: 'engine/info', args: undefined });
port2.postMessage({ kind: 'request', id: 2, name: 'matches/play', args: { da: 'scripted', ca: 'scripted', episodesPerScenario: 1, scenarios: 'fraud', seed: 3 } });
`;

describe('desktop build', () => {
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'sparring-desktop-'));
  beforeAll(async () => {
    await buildDesktop();
  }, 180_000);

  it('bundles an engine process that opens the lab, plays a match over a port, and runs co-evolution on its worker thread', async () => {
    const out = await new Promise<string>((resolve, reject) => {
      const child = spawn(process.execPath, ['--input-type=module', '-e', HARNESS], {
        env: { ...process.env, BUNDLE: path.join(ELECTRON_DIST, 'engine-process.js'), DB: path.join(tmp, 'lab.db') },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (d) => (stdout += d));
      child.stderr.on('data', (d) => (stderr += d));
      const timer = setTimeout(() => child.kill('SIGKILL'), 90_000);
      child.on('exit', (code) => {
        clearTimeout(timer);
        if (code === 0) resolve(stdout);
        else reject(new Error(`engine bundle exited with ${code}:\n${stderr}\n${stdout}`));
      });
    });
    expect(out).toMatch(/PARENT \{"type":"ready","dbPath":"[^"]*","runsUnavailable":null\}/);
    expect(out).toMatch(/PORT \{"kind":"response","id":1,"ok":true/);
    expect(out).toMatch(/PORT \{"kind":"event","name":"episodes\/completed"/);
    expect(out).toMatch(/PORT \{"kind":"response","id":2,"ok":true,"result":\{"matchId":"M1"\}\}/);
    // A run starts in the bundled engine (on its runner thread, dist/electron/run-worker.js) and streams here.
    expect(out).toMatch(/PORT \{"kind":"response","id":3,"ok":true,"result":\{"runId":"R1"\}\}/);
    expect(out).toMatch(/PORT \{"kind":"event","name":"run\/status","payload":\{"runId":"R1","status":"running"/);
  }, 120_000);

  const bin = findElectronBinary();
  const noDisplay = process.platform === 'linux' && !process.env.DISPLAY && !process.env.WAYLAND_DISPLAY;
  const skip = !bin.ok ? bin.reason : noDisplay ? 'no display (set DISPLAY, e.g. under xvfb-run)' : null;
  it.skipIf(skip !== null)(
    `launches the desktop app and talks to the engine${skip ? ` — skipped: ${skip}` : ''}`,
    async () => {
      if (!bin.ok) return;
      const sandbox = process.platform === 'linux' && process.getuid?.() === 0 ? ['--no-sandbox'] : [];
      const out = await new Promise<string>((resolve, reject) => {
        const child = spawn(bin.path, [...sandbox, path.join(ELECTRON_DIST, 'main.js')], {
          env: { ...process.env, SPARRING_SMOKE: '1', SPARRING_DB: path.join(tmp, 'desktop.db') },
          stdio: ['ignore', 'pipe', 'pipe'],
        });
        let stdout = '';
        child.stdout.on('data', (d) => (stdout += d));
        const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
        child.on('exit', () => (clearTimeout(timer), resolve(stdout)));
        child.on('error', reject);
      });
      expect(out).toContain(`SPARRING_SMOKE_OK ${path.join(tmp, 'desktop.db')}`);
    },
    90_000,
  );
});
