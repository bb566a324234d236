/**
 * `npm start`: the desktop app when Electron's binary is installed; otherwise web mode —
 * `sparring serve` with its URL printed (and opened in a browser when this machine has one).
 * Arguments after `npm start --` go to the app (e.g. `--db lab.db`, and `--port` in web mode).
 */
import { spawn, spawnSync } from 'node:child_process';
import path from 'node:path';
import { REPO_ROOT } from '../host/web/renderer-build';
import { ELECTRON_DIST, buildDesktop } from './build';
import { findElectronBinary } from './electron-binary';

const args = process.argv.slice(2);

function forwardSignals(child: ReturnType<typeof spawn>): void {
  for (const sig of ['SIGINT', 'SIGTERM'] as const) process.on(sig, () => child.kill(sig));
  child.on('exit', (code, signal) => process.exit(code ?? (signal ? 0 : 1)));
}

function browserOpener(): string[] | null {
  if (process.platform === 'darwin') return ['open'];
  if (process.platform === 'win32') return ['cmd', '/c', 'start', '""'];
  if (!process.env.DISPLAY && !process.env.WAYLAND_DISPLAY) return null;
  const which = spawnSync('sh', ['-c', 'command -v xdg-open'], { encoding: 'utf8' });
  return which.status === 0 ? [which.stdout.trim()] : null;
}

async function desktop(bin: string): Promise<void> {
  process.stderr.write('sparring: building the desktop app …\n');
  await buildDesktop();
  const sandboxArgs = process.platform === 'linux' && process.getuid?.() === 0 ? ['--no-sandbox'] : [];
  forwardSignals(spawn(bin, [...sandboxArgs, path.join(ELECTRON_DIST, 'main.js'), ...args], { cwd: REPO_ROOT, stdio: 'inherit' }));
}

function web(reason: string): void {
  process.stderr.write(`sparring: no desktop app here (${reason}); starting web mode.\n`);
  const child = spawn(process.execPath, [path.join(REPO_ROOT, 'bin', 'sparring.js'), 'serve', '--json', ...args], {
    cwd: REPO_ROOT,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  forwardSignals(child);
  let out = '';
  child.stdout.on('data', (d: Buffer) => {
    if (out.includes('\n')) return;
    out += d.toString();
    const nl = out.indexOf('\n');
    if (nl < 0) return;
    const { url } = JSON.parse(out.slice(0, nl)) as { url: string };
    process.stdout.write(`\nSparring lab (web mode): ${url}\n\n`);
    const opener = browserOpener();
    if (opener) {
      const [cmd, ...rest] = opener;
      spawn(cmd!, [...rest, url], { stdio: 'ignore', detached: true })
        .on('error', () => undefined)
        .unref();
    } else {
      process.stdout.write('No browser on this machine: open the URL above in one (through an SSH tunnel for a remote box).\n');
    }
  });
}

const bin = findElectronBinary();
if (bin.ok) await desktop(bin.path);
else web(bin.reason);
