/**
 * Starts two servers on temporary labs and hands their URLs to the specs through environment
 * variables: the real `sparring serve` (which builds the renderer first if it needs to) for
 * lab.spec.ts, and web mode with a simulated co-evolution runner (support/) for
 * dashboard.spec.ts. Also asks the real engine whether runs are available. Returns the teardown.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import WebSocket from 'ws';
import { ROOT, startServer as start, stopServer as stop } from './support/servers';

async function engineInfo(url: string): Promise<{ runsUnavailable: string | null }> {
  const u = new URL(url);
  const ws = new WebSocket(`ws://${u.host}/ws?token=${u.searchParams.get('token')}`);
  try {
    await new Promise((resolve, reject) => (ws.once('open', resolve), ws.once('error', reject)));
    return await new Promise((resolve, reject) => {
      ws.once('message', (d) => {
        const m = JSON.parse((Array.isArray(d) ? Buffer.concat(d) : Buffer.isBuffer(d) ? d : Buffer.from(d)).toString('utf8')) as {
          ok: boolean;
          result?: { runsUnavailable: string | null };
          error?: string;
        };
        if (m.ok && m.result) resolve(m.result);
        else reject(new Error(`engine/info failed: ${m.error}`));
      });
      ws.send(JSON.stringify({ kind: 'request', id: 1, name: 'engine/info', args: undefined }));
    });
  } finally {
    ws.close();
  }
}

export default async function globalSetup(): Promise<() => Promise<void>> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'sparring-e2e-'));
  const db = path.join(dir, 'lab.db');
  const real = await start('serve', [path.join(ROOT, 'bin', 'sparring.js'), 'serve', '--db', db, '--port', '0', '--json']);
  const sim = await start('simulated', ['--import', 'tsx', path.join(ROOT, 'test', 'e2e', 'support', 'serve-simulated.ts'), path.join(dir, 'simulated.db')]);
  const info = await engineInfo(real.url);
  process.env.SPARRING_E2E_URL = real.url;
  // The real server's lab file, for specs that check what the UI stored (read-only).
  process.env.SPARRING_E2E_DB = db;
  process.env.SPARRING_E2E_SIM_URL = sim.url;
  process.env.SPARRING_E2E_RUNS_UNAVAILABLE = info.runsUnavailable ?? '';
  process.stderr.write(`[e2e] sparring serve on ${db} at ${real.url}${info.runsUnavailable ? ` (runs unavailable: ${info.runsUnavailable})` : ''}\n`);
  process.stderr.write(`[e2e] simulated runner at ${sim.url}\n`);

  return async () => {
    await Promise.all([stop(real.child), stop(sim.child)]);
    rmSync(dir, { recursive: true, force: true });
  };
}
