// Best-effort download of Electron's binary after `npm install`.
//
// package.json's `allowScripts` blocks electron's own install script so that `npm ci` never fails
// on a machine that cannot reach the download host (CI, air-gapped workstations). This step tries
// the same download once, with a time limit, and never fails the install: without the binary,
// `npm start` falls back to web mode and the type declarations still come from the package.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

const require = createRequire(import.meta.url);

function main() {
  if (process.env.ELECTRON_SKIP_BINARY_DOWNLOAD === '1' || process.env.SPARRING_SKIP_ELECTRON === '1') {
    console.log('[sparring] Electron binary download skipped (ELECTRON_SKIP_BINARY_DOWNLOAD=1); web mode works without it.');
    return;
  }
  let installJs;
  try {
    installJs = path.join(path.dirname(require.resolve('electron/package.json')), 'install.js');
  } catch {
    return; // electron not installed (e.g. --omit=optional); nothing to fetch
  }
  if (!existsSync(installJs)) return;
  const child = spawn(process.execPath, [installJs], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (d) => {
    stderr += d;
  });
  const timer = setTimeout(() => child.kill('SIGKILL'), 120_000);
  child.on('exit', (code) => {
    clearTimeout(timer);
    if (code === 0) console.log('[sparring] Electron binary installed.');
    else
      console.log(
        `[sparring] Electron binary not downloaded (${(stderr.trim().split('\n').pop() || 'timed out').slice(0, 160)}); \`npm start\` will use web mode.`,
      );
  });
}

main();
