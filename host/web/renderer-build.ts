/**
 * Where web mode finds the built renderer, and a build on demand: `sparring serve` on a fresh
 * checkout (or after renderer sources changed) runs `vite build` once, its output on stderr so
 * that `--json` keeps stdout to one document. `npm run build:renderer` does the same by hand.
 */
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
export const RENDERER_SOURCES = path.join(REPO_ROOT, 'renderer');
export const RENDERER_DIST = path.join(REPO_ROOT, 'dist', 'renderer');

/** Why the renderer needs building (missing or older than its sources), or null when it is current. */
export function rendererBuildReason(dist = RENDERER_DIST, sources = RENDERER_SOURCES): string | null {
  const index = path.join(dist, 'index.html');
  if (!existsSync(index)) return `${path.relative(process.cwd(), dist) || dist} has no build yet`;
  if (!existsSync(sources)) return null; // an installed app ships the build without its sources
  const built = statSync(index).mtimeMs;
  const newer = newestSource(sources);
  return newer && newer.mtime > built ? `${path.relative(REPO_ROOT, newer.file)} changed since the last build` : null;
}

function newestSource(dir: string): { file: string; mtime: number } | null {
  let best: { file: string; mtime: number } | null = null;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const file = path.join(dir, entry.name);
    if (entry.isDirectory()) {
      if (entry.name === 'node_modules') continue;
      const sub = newestSource(file);
      if (sub && (!best || sub.mtime > best.mtime)) best = sub;
    } else if (!/\.test\.tsx?$/.test(entry.name)) {
      const mtime = statSync(file).mtimeMs;
      if (!best || mtime > best.mtime) best = { file, mtime };
    }
  }
  return best;
}

/** Run `vite build` for the renderer (output on stderr). */
export async function buildRenderer(): Promise<void> {
  const require = createRequire(import.meta.url);
  let viteBin: string;
  try {
    viteBin = path.join(path.dirname(require.resolve('vite/package.json')), 'bin', 'vite.js');
  } catch {
    throw new Error('the renderer is not built and vite is not installed to build it; run `npm install` then `npm run build:renderer`');
  }
  await new Promise<void>((resolve, reject) => {
    const child = spawn(process.execPath, [viteBin, 'build', '--config', path.join(REPO_ROOT, 'vite.config.ts')], { cwd: REPO_ROOT, stdio: ['ignore', 2, 2] });
    child.on('error', reject);
    child.on('exit', (code) =>
      code === 0 ? resolve() : reject(new Error(`building the renderer failed (vite exited with ${code}); run \`npm run build:renderer\` to see why`)),
    );
  });
}

/** Build the renderer when it is missing or stale; says so on stderr. */
export async function ensureRendererBuilt(log: (line: string) => void = (l) => process.stderr.write(`${l}\n`)): Promise<void> {
  const reason = rendererBuildReason();
  if (!reason) return;
  log(`sparring serve: building the renderer (${reason}) …`);
  await buildRenderer();
}
