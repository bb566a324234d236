/**
 * Electron main: windows and menus only. The engine runs in a utility process; each window load
 * gets a fresh MessagePort to it, handed to the preload. The page is sandboxed, isolated, served
 * from the `sparring://app/` protocol under a strict CSP, and cannot navigate away or open windows.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { BrowserWindow, Menu, MessageChannelMain, app, dialog, protocol, session, shell, utilityProcess } from 'electron';
import type { MenuItemConstructorOptions, UtilityProcess } from 'electron';
import { defaultLabPath } from '../host/cli/paths';
import type { ChildMessage, ParentMessage } from './engine-host';
import { APP_SCHEME, APP_URL, CONTENT_SECURITY_POLICY, WEB_PREFERENCES, appFile, contentType, isAppUrl } from './security';

const here = path.dirname(fileURLToPath(import.meta.url));
/** dist/electron/ → the renderer build beside it. */
const RENDERER_DIR = path.resolve(here, '..', 'renderer');

protocol.registerSchemesAsPrivileged([{ scheme: APP_SCHEME, privileges: { standard: true, secure: true, supportFetchAPI: true } }]);
app.enableSandbox();

let labPath = process.env.SPARRING_DB || argValue('--db') || defaultLabPath();
let engine: UtilityProcess | null = null;
let win: BrowserWindow | null = null;
let quitting = false;

function argValue(flag: string): string | null {
  const i = process.argv.indexOf(flag);
  return i >= 0 ? (process.argv[i + 1] ?? null) : null;
}

function startEngine(): void {
  const child = utilityProcess.fork(path.join(here, 'engine-process.js'), [], { serviceName: 'Sparring engine', stdio: 'inherit' });
  engine = child;
  child.on('message', (m: ChildMessage) => {
    if (m.type === 'failed') void dialog.showMessageBox({ type: 'error', message: 'The lab could not be opened', detail: m.error });
  });
  child.on('exit', (code) => {
    if (engine !== child) return;
    engine = null;
    win?.webContents.send('engine-lost', `exit code ${code}`);
    if (quitting) return;
    void dialog
      .showMessageBox({
        type: 'error',
        message: 'The Sparring engine stopped',
        detail: `It exited with code ${code}. Runs resume from their last phase boundary.`,
        buttons: ['Restart engine', 'Quit'],
      })
      .then(({ response }) => {
        if (response === 1) return app.quit();
        startEngine();
        win?.webContents.reload();
      });
  });
  child.postMessage({ type: 'init', dbPath: labPath } satisfies ParentMessage);
}

/** A new port per page load: the preload of the new page owns it. */
function connect(w: BrowserWindow): void {
  if (!engine) return;
  const { port1, port2 } = new MessageChannelMain();
  engine.postMessage({ type: 'connect' } satisfies ParentMessage, [port1]);
  w.webContents.postMessage('engine-port', null, [port2]);
}

function createWindow(): void {
  const w = new BrowserWindow({
    width: 1440,
    height: 920,
    minWidth: 900,
    minHeight: 600,
    title: 'Sparring',
    backgroundColor: '#f6f7f9',
    show: false,
    webPreferences: { ...WEB_PREFERENCES, preload: path.join(here, 'preload.cjs') },
  });
  win = w;
  w.once('ready-to-show', () => w.show());
  w.webContents.on('did-finish-load', () => connect(w));
  w.on('closed', () => {
    if (win === w) win = null;
  });
  void w.loadURL(APP_URL);
}

function openLab(): void {
  if (!win) return;
  const picked = dialog.showSaveDialogSync(win, {
    title: 'Open or create a lab',
    defaultPath: labPath,
    buttonLabel: 'Open lab',
    filters: [{ name: 'Sparring lab', extensions: ['db'] }],
    properties: ['createDirectory', 'showOverwriteConfirmation'],
  });
  if (!picked) return;
  labPath = picked;
  const old = engine;
  engine = null;
  old?.postMessage({ type: 'shutdown' } satisfies ParentMessage);
  old?.kill();
  startEngine();
  win.webContents.reload();
}

function buildMenu(): void {
  const mac = process.platform === 'darwin';
  const template: MenuItemConstructorOptions[] = [
    ...(mac ? [{ role: 'appMenu' as const }] : []),
    {
      label: 'File',
      submenu: [
        { label: 'Open Lab…', accelerator: 'CmdOrCtrl+O', click: openLab },
        { label: 'Show Lab in Folder', click: () => shell.showItemInFolder(labPath) },
        { type: 'separator' },
        mac ? { role: 'close' } : { role: 'quit' },
      ],
    },
    { role: 'editMenu' },
    {
      label: 'View',
      submenu: [
        { role: 'reload' },
        ...(app.isPackaged ? [] : [{ role: 'toggleDevTools' as const }]),
        { type: 'separator' },
        { role: 'resetZoom' },
        { role: 'zoomIn' },
        { role: 'zoomOut' },
        { type: 'separator' },
        { role: 'togglefullscreen' },
      ],
    },
    { role: 'windowMenu' },
    {
      role: 'help',
      submenu: [{ label: 'About Sparring', click: () => void dialog.showMessageBox({ message: `Sparring ${app.getVersion()}`, detail: `Lab: ${labPath}` }) }],
    },
  ];
  Menu.setApplicationMenu(Menu.buildFromTemplate(template));
}

function lockDown(): void {
  // The page needs no permission (camera, notifications, …).
  session.defaultSession.setPermissionRequestHandler((_wc, _perm, callback) => callback(false));
  app.on('web-contents-created', (_e, contents) => {
    contents.on('will-navigate', (event, url) => {
      if (!isAppUrl(url)) event.preventDefault();
    });
    contents.on('will-redirect', (event, url) => {
      if (!isAppUrl(url)) event.preventDefault();
    });
    contents.on('will-attach-webview', (event) => event.preventDefault());
    contents.setWindowOpenHandler(() => ({ action: 'deny' }));
  });
  protocol.handle(APP_SCHEME, async (request) => {
    const file = appFile(RENDERER_DIR, request.url);
    if (!file) return new Response('Not found', { status: 404 });
    try {
      const body = await readFile(file);
      return new Response(body, {
        headers: { 'Content-Type': contentType(file), 'Content-Security-Policy': CONTENT_SECURITY_POLICY, 'X-Content-Type-Options': 'nosniff' },
      });
    } catch {
      return new Response('Not found', { status: 404 });
    }
  });
}

app.on('before-quit', () => {
  quitting = true;
  engine?.postMessage({ type: 'shutdown' } satisfies ParentMessage);
});
app.on('window-all-closed', () => {
  if (process.platform !== 'darwin') app.quit();
});
app.on('activate', () => {
  if (BrowserWindow.getAllWindows().length === 0) createWindow();
});

void app.whenReady().then(() => {
  lockDown();
  buildMenu();
  startEngine();
  createWindow();
  if (process.env.SPARRING_SMOKE === '1') {
    // The smoke test: quit once the page has talked to the engine.
    win?.webContents.once('did-finish-load', () => {
      // setTimeout ignores a returned promise: a rejection (the page gone) must still report and quit.
      setTimeout(() => {
        void (
          win?.webContents.executeJavaScript(
            "window.sparring.send('engine/info', undefined).then((i) => 'SPARRING_SMOKE_OK ' + i.dbPath, (e) => 'SPARRING_SMOKE_FAIL ' + e.message)",
          ) ?? Promise.resolve('SPARRING_SMOKE_FAIL no window')
        )
          .catch((e: unknown) => `SPARRING_SMOKE_FAIL ${e instanceof Error ? e.message : String(e)}`)
          .then((ok: unknown) => {
            process.stdout.write(`${String(ok)}\n`);
            app.quit();
          });
      }, 500);
    });
  }
});
