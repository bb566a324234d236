/**
 * Where Electron's binary is, or why there is none. The npm package carries the type
 * declarations; the binary is a separate download that fails on offline machines (see
 * scripts/fetch-electron.mjs), in which case the lab runs in web mode instead.
 */
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

export type ElectronBinary = { ok: true; path: string } | { ok: false; reason: string };

export function findElectronBinary(): ElectronBinary {
  const require = createRequire(import.meta.url);
  let dir: string;
  try {
    dir = path.dirname(require.resolve('electron/package.json'));
  } catch {
    return { ok: false, reason: 'the electron package is not installed' };
  }
  const override = process.env.ELECTRON_OVERRIDE_DIST_PATH;
  const pathFile = path.join(dir, 'path.txt');
  if (!override && !existsSync(pathFile)) {
    return {
      ok: false,
      reason: "Electron's binary was never downloaded (node_modules/electron/path.txt is missing; try `node node_modules/electron/install.js`)",
    };
  }
  const rel = existsSync(pathFile) ? readFileSync(pathFile, 'utf8').trim() : 'electron';
  const bin = override ? path.join(override, rel) : path.join(dir, 'dist', rel);
  if (!existsSync(bin)) return { ok: false, reason: `Electron's binary is missing at ${bin}` };
  return { ok: true, path: bin };
}
