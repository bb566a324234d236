/**
 * The desktop window's security settings, as plain data and pure functions that tests can reach
 * without Electron: the page is sandboxed, isolated and Node-free, loads only the app's own files
 * from the `sparring://app/` protocol under a strict CSP, and cannot navigate or open windows.
 */
import path from 'node:path';
import { CONTENT_SECURITY_POLICY } from '../host/csp';

export { CONTENT_SECURITY_POLICY };

export const APP_SCHEME = 'sparring';
export const APP_ORIGIN = `${APP_SCHEME}://app`;
export const APP_URL = `${APP_ORIGIN}/index.html`;

/** BrowserWindow webPreferences (besides the preload path). */
export const WEB_PREFERENCES = {
  contextIsolation: true,
  sandbox: true,
  nodeIntegration: false,
  nodeIntegrationInWorker: false,
  nodeIntegrationInSubFrames: false,
  webviewTag: false,
  webSecurity: true,
  allowRunningInsecureContent: false,
  spellcheck: false,
} as const;

/** Only the app's own pages may be shown; every other navigation is refused. */
export function isAppUrl(url: string): boolean {
  try {
    const u = new URL(url);
    return u.protocol === `${APP_SCHEME}:` && u.host === 'app';
  } catch {
    return false;
  }
}

/**
 * The file under `root` that an app URL names, or null for anything outside it. `sparring://app/`
 * alone is the index.
 */
export function appFile(root: string, url: string): string | null {
  if (!isAppUrl(url)) return null;
  let rel: string;
  try {
    rel = decodeURIComponent(new URL(url).pathname);
  } catch {
    return null;
  }
  if (rel === '/' || rel === '') rel = '/index.html';
  const base = path.resolve(root);
  const file = path.resolve(base, `.${path.posix.normalize(rel)}`);
  return file.startsWith(base + path.sep) ? file : null;
}

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.map': 'application/json',
  '.woff2': 'font/woff2',
};

export function contentType(file: string): string {
  return TYPES[path.extname(file).toLowerCase()] ?? 'application/octet-stream';
}
