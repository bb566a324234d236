/** Builds what the desktop app loads: the renderer (when stale) and the shell bundles in dist/electron/. */
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import path from 'node:path';
import { REPO_ROOT, ensureRendererBuilt } from '../host/web/renderer-build';

export const ELECTRON_DIST = path.join(REPO_ROOT, 'dist', 'electron');

function vite(args: string[]): Promise<void> {
  const require = createRequire(import.meta.url);
  const bin = path.join(path.dirname(require.resolve('vite/package.json')), 'bin', 'vite.js');
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [bin, ...args], { cwd: REPO_ROOT, stdio: ['ignore', 2, 2] });
    child.on('error', reject);
    child.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`vite ${args.join(' ')} exited with ${code}`))));
  });
}

export async function buildDesktop(): Promise<void> {
  await ensureRendererBuilt();
  const config = path.join('electron', 'vite.config.ts');
  await vite(['build', '--config', config, '--logLevel', 'warn']);
  await vite(['build', '--config', config, '--mode', 'preload', '--logLevel', 'warn']);
}
