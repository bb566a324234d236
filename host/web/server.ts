/**
 * Web mode: the built renderer over HTTP and the engine's contract over a WebSocket, for headless
 * workstations and remote GPU boxes. Bound to 127.0.0.1 unless the user asks otherwise, and every
 * HTTP and WebSocket request needs the per-launch token: in the URL (`?token=…`, which also sets a
 * cookie so the page's own assets load) or in that cookie. Without it: 403.
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { createReadStream, statSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { WebSocketServer } from 'ws';
import type { Engine } from '../engine/engine';
import { createSession } from '../engine/session';
import { CONTENT_SECURITY_POLICY } from '../csp';
import { crossOriginRefusal, requestTarget } from '../request-guard';

export { CONTENT_SECURITY_POLICY };

export interface WebServerOptions {
  engine: Pick<Engine, 'handlers' | 'subscribe'>;
  /** The renderer's build output (index.html and assets/). */
  staticDir: string;
  /** Default 127.0.0.1. */
  host?: string;
  /** 0 picks a free port. */
  port?: number;
  /** Default: 24 random bytes, base64url. */
  token?: string;
}

export interface WebServer {
  /** `http://HOST:PORT/?token=…`, what a person opens. */
  readonly url: string;
  readonly token: string;
  readonly port: number;
  close(): Promise<void>;
}

/** Largest client message accepted over the WebSocket (a config JSON is the biggest). */
const MAX_MESSAGE_BYTES = 2 * 1024 * 1024;

const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.map': 'application/json; charset=utf-8',
};

const SECURITY_HEADERS: Record<string, string> = {
  'Content-Security-Policy': CONTENT_SECURITY_POLICY,
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
  'X-Frame-Options': 'DENY',
  'Cross-Origin-Opener-Policy': 'same-origin',
};

export function newToken(): string {
  return randomBytes(24).toString('base64url');
}

export async function startWebServer(o: WebServerOptions): Promise<WebServer> {
  const host = o.host ?? '127.0.0.1';
  const token = o.token ?? newToken();
  const staticDir = path.resolve(o.staticDir);
  // Cookies are not per port, so the name carries it: two servers on one host keep their own.
  let cookieName = 'sparring_token';

  const authorised = (req: http.IncomingMessage, url: URL): 'query' | 'cookie' | null => {
    const q = url.searchParams.get('token');
    if (q !== null && sameToken(q, token)) return 'query';
    const c = cookieValue(req.headers.cookie, cookieName);
    if (c !== null && sameToken(c, token)) return 'cookie';
    return null;
  };

  const server = http.createServer((req, res) => {
    const url = requestTarget(req.url);
    if (!url) {
      res.writeHead(400, { 'Content-Type': 'text/plain; charset=utf-8', ...SECURITY_HEADERS }).end('400 Bad Request: the request target is not a URL path\n');
      return;
    }
    const foreign = crossOriginRefusal(req, { bound: host });
    if (foreign) return forbidden(res, foreign);
    const via = authorised(req, url);
    if (!via) return forbidden(res);
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res
        .writeHead(405, { Allow: 'GET, HEAD', 'Content-Type': 'text/plain; charset=utf-8', ...SECURITY_HEADERS })
        .end(`405 Method Not Allowed: ${req.method} ${url.pathname}; web mode serves the app by GET and HEAD, and the engine over the WebSocket /ws\n`);
      return;
    }
    const headers: Record<string, string> = { ...SECURITY_HEADERS };
    if (via === 'query') headers['Set-Cookie'] = `${cookieName}=${token}; Path=/; HttpOnly; SameSite=Strict`;
    serveStatic(staticDir, url.pathname, req, res, headers);
  });

  const wss = new WebSocketServer({ noServer: true, maxPayload: MAX_MESSAGE_BYTES });
  server.on('upgrade', (req, socket, head) => {
    const url = requestTarget(req.url) ?? new URL('http://localhost/?');
    const foreign = crossOriginRefusal(req, { bound: host });
    if (foreign || url.pathname !== '/ws' || !authorised(req, url)) {
      const why = `403 Forbidden: ${foreign ?? (url.pathname !== '/ws' ? `no WebSocket endpoint ${url.pathname}; use /ws` : 'missing or wrong token')}\n`;
      socket.end(
        `HTTP/1.1 403 Forbidden\r\nConnection: close\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(why)}\r\n\r\n${why}`,
      );
      return;
    }
    wss.handleUpgrade(req, socket, head, (ws) => {
      const session = createSession(o.engine, (m) => {
        if (ws.readyState === ws.OPEN) ws.send(JSON.stringify(m));
      });
      ws.on('message', (data, isBinary) => {
        if (isBinary) return void session.receive(null);
        let msg: unknown;
        try {
          msg = JSON.parse((Array.isArray(data) ? Buffer.concat(data) : Buffer.isBuffer(data) ? data : Buffer.from(data)).toString('utf8'));
        } catch {
          msg = null;
        }
        void session.receive(msg);
      });
      ws.on('close', () => session.close());
      ws.on('error', () => session.close());
    });
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(o.port ?? 0, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  cookieName = `sparring_token_${port}`;
  const shownHost = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host.includes(':') ? `[${host}]` : host;

  return {
    url: `http://${shownHost}:${port}/?token=${token}`,
    token,
    port,
    close: () =>
      new Promise<void>((resolve) => {
        for (const c of wss.clients) c.terminate();
        wss.close();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function sameToken(given: string, token: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(token);
  return a.length === b.length && timingSafeEqual(a, b);
}

function cookieValue(header: string | undefined, name: string): string | null {
  if (!header) return null;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return null;
}

function forbidden(res: http.ServerResponse, why?: string): void {
  res.writeHead(403, { 'Content-Type': 'text/plain; charset=utf-8', ...SECURITY_HEADERS });
  res.end(why ? `403 Forbidden: ${why}\n` : '403 Forbidden: open the URL that `sparring serve` printed, with its ?token=…\n');
}

function serveStatic(root: string, pathname: string, req: http.IncomingMessage, res: http.ServerResponse, headers: Record<string, string>): void {
  let rel: string;
  try {
    rel = decodeURIComponent(pathname);
  } catch {
    res
      .writeHead(400, { 'Content-Type': 'text/plain; charset=utf-8', ...headers })
      .end(`400 Bad Request: the path ${JSON.stringify(pathname.slice(0, 200))} has a bad %-escape\n`);
    return;
  }
  let file = path.resolve(root, `.${path.posix.normalize(`/${rel}`)}`);
  if (file !== root && !file.startsWith(root + path.sep)) {
    res.writeHead(404, { 'Content-Type': 'text/plain; charset=utf-8', ...headers }).end('404 Not Found: outside the app\n');
    return;
  }
  let stat = statOrNull(file);
  if (stat?.isDirectory()) {
    file = path.join(file, 'index.html');
    stat = statOrNull(file);
  }
  // Only the app itself is unavailable while it is unbuilt; any other missing file is a 404 either way.
  if (!stat?.isFile() && (file === root || file === path.join(root, 'index.html'))) {
    res
      .writeHead(503, { 'Content-Type': 'text/plain; charset=utf-8', ...headers })
      .end(`The lab UI is not built (${root} has no index.html): run \`npm run build:renderer\`, or start \`sparring serve\` without --no-build.\n`);
    return;
  }
  if (!stat?.isFile()) {
    // The app routes in the hash, so anything else that is missing is a real 404.
    res.writeHead(404, { 'Content-Type': 'text/plain; charset=utf-8', ...headers }).end('404 Not Found\n');
    return;
  }
  const type = CONTENT_TYPES[path.extname(file).toLowerCase()] ?? 'application/octet-stream';
  const immutable = file.includes(`${path.sep}assets${path.sep}`);
  res.writeHead(200, {
    ...headers,
    'Content-Type': type,
    'Content-Length': String(stat.size),
    'Cache-Control': immutable ? 'public, max-age=31536000, immutable' : 'no-cache',
  });
  if (req.method === 'HEAD') return void res.end();
  createReadStream(file).pipe(res);
}

function statOrNull(file: string) {
  try {
    return statSync(file);
  } catch {
    return null;
  }
}
