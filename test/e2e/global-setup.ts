/**
 * Starts two servers on temporary labs and hands their URLs to the specs through environment
 * variables: the real `sparring serve` (which builds the renderer first if it needs to) for
 * lab.spec.ts, and web mode with a simulated co-evolution runner (support/) for
 * dashboard.spec.ts. Also asks the real engine whether runs are available. Returns the teardown.
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import WebSocket from 'ws';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

async function engineInfo(url: string): Promise<{ runsUnavailable: string | null }> {
  const u = new URL(url);
  const ws = new WebSocket(`ws://${u.host}/ws?token=${u.searchParams.get('token')}`);
  try {
    await new Promise((resolve, reject) => (ws.once('open', resolve), ws.once('error', reject)));
    return await new Promise((resolve, reject) => {
      ws.once('message', (d) => {
        const m = JSON.parse(d.toString()) as { ok: boolean; result?: { runsUnavailable: string | null }; error?: string };
        if (m.ok && m.result) resolve(m.result);
        else reject(new Error(`engine/info failed: ${m.error}`));
      });
      ws.send(JSON.stringify({ kind: 'request', id: 1, name: 'engine/info', args: undefined }));
    });
  } finally {
    ws.close();
  }
}

/** Spawn a server that prints `{url, token}` as its first stdout line; resolve with the URL. */
export async function start(label: string, args: string[]): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn(process.execPath, args, { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr!.on('data', (d: Buffer) => {
    stderr += d.toString();
    process.stderr.write(`[${label}] ${d.toString()}`);
  });
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error(`${label} printed no URL within 180 s:\n${stderr}`)), 180_000);
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      const nl = out.indexOf('\n');
      if (nl >= 0) {
        clearTimeout(timer);
        resolve((JSON.parse(out.slice(0, nl)) as { url: string }).url);
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${label} exited with ${code}:\n${stderr}`));
    });
  });
  return { url, child };
}

export async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  await Promise.race([exited, new Promise((r) => setTimeout(r, 5000))]);
  if (child.exitCode === null) child.kill('SIGKILL');
}

export default async function globalSetup(): Promise<() => Promise<void>> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'sparring-e2e-'));
  const db = path.join(dir, 'lab.db');
  const real = await start('serve', [path.join(ROOT, 'bin', 'sparring.js'), 'serve', '--db', db, '--port', '0', '--json']);
  const sim = await start('simulated', ['--import', 'tsx', path.join(ROOT, 'test', 'e2e', 'support', 'serve-simulated.ts'), path.join(dir, 'simulated.db')]);
  const info = await engineInfo(real.url);
  process.env.SPARRING_E2E_URL = real.url;
  process.env.SPARRING_E2E_SIM_URL = sim.url;
  process.env.SPARRING_E2E_RUNS_UNAVAILABLE = info.runsUnavailable ?? '';
  process.stderr.write(`[e2e] sparring serve on ${db} at ${real.url}${info.runsUnavailable ? ` (runs unavailable: ${info.runsUnavailable})` : ''}\n`);
  process.stderr.write(`[e2e] simulated runner at ${sim.url}\n`);

  return async () => {
    await Promise.all([stop(real.child), stop(sim.child)]);
    rmSync(dir, { recursive: true, force: true });
  };
}
