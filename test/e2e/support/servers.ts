/** Start and stop web-mode servers for the e2e specs (global setup and specs that need their own lab). */
import { spawn } from 'node:child_process';
import { rmSync } from 'node:fs';
import type { ChildProcess } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', '..');

/** Spawn a server that prints `{url, token}` as its first stdout line; resolve with the URL. */
export async function startServer(label: string, args: string[]): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn(process.execPath, args, { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => {
    stderr += d.toString();
    process.stderr.write(`[${label}] ${d.toString()}`);
  });
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error(`${label} printed no URL within 180 s:\n${stderr}`)), 180_000);
    child.stdout.on('data', (d: Buffer) => {
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

export async function stopServer(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  await Promise.race([exited, new Promise((r) => setTimeout(r, 5000))]);
  if (child.exitCode === null) child.kill('SIGKILL');
}

/** A spec's teardown of its own lab: close its page, stop its server, remove its folder (each if it got that far). */
export async function closeOwnLab(o: { page?: { close(): Promise<void> } | null; server?: { child: ChildProcess } | null; dir?: string }): Promise<void> {
  await o.page?.close();
  if (o.server) await stopServer(o.server.child);
  if (o.dir) rmSync(o.dir, { recursive: true, force: true });
}
