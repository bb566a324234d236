/**
 * The browser check every local server of Sparring makes before its token check (`serve`,
 * `serve-model`, `env serve`; HTTP and WebSocket upgrades alike): a web page the user happens to
 * have open must not be able to drive a server on this machine.
 *
 * - **Host** (DNS rebinding): a server bound to loopback answers only requests addressed to a
 *   loopback name (`localhost`, `*.localhost`, `127.x.x.x`, `[::1]`). A page on `evil.example`
 *   whose name was re-pointed at 127.0.0.1 still sends `Host: evil.example`.
 * - **Sec-Fetch-Site**: browsers mark every request they send; anything but `same-origin` or `none`
 *   (the user typed the address) comes from another site — `same-site` included, which is a page on
 *   another port of the same machine. This also covers a no-cors GET, which carries no Origin.
 * - **Origin**: when present, it must be the server's own origin (scheme, host and port of the Host
 *   header), or one the caller allows explicitly. `null` (sandboxed frames, file pages) is refused.
 *
 * Clients that are not browsers send none of these headers and pass, as before, on their token.
 */
import type { IncomingMessage } from 'node:http';

const LOOPBACK_BINDS = new Set(['127.0.0.1', 'localhost', '::1', '[::1]']);

/** Is the address a server listens on one that only this machine can reach? */
export function isLoopbackBind(host: string): boolean {
  return LOOPBACK_BINDS.has(host.toLowerCase()) || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);
}

/** The host name of a Host header or URL authority, without port and brackets, lower-cased. */
function hostName(authority: string): string {
  const a = authority.trim().toLowerCase();
  if (a.startsWith('[')) return a.slice(1, a.indexOf(']') >= 0 ? a.indexOf(']') : undefined);
  const colon = a.lastIndexOf(':');
  return colon >= 0 && a.indexOf(':') === colon ? a.slice(0, colon) : a;
}

function isLoopbackName(name: string): boolean {
  return name === 'localhost' || name.endsWith('.localhost') || name === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(name);
}

const first = (v: string | string[] | undefined): string | undefined => (Array.isArray(v) ? v[0] : v);

export interface GuardOptions {
  /** The address the server is bound to (its `--host`). */
  bound: string;
  /** Origins (`http://host:port`) allowed besides the server's own. */
  allowOrigins?: readonly string[];
}

/**
 * Why this request is refused as coming from a browser page of another origin (or addressed to a
 * foreign name), or null when it may go on to the token check. The reason names the header.
 */
export function crossOriginRefusal(req: IncomingMessage, o: GuardOptions): string | null {
  const host = first(req.headers.host);
  if (host === undefined || host.trim() === '') return 'the request has no Host header';
  if (isLoopbackBind(o.bound) && !isLoopbackName(hostName(host)))
    return `Host "${host}" is not a loopback name; this server listens on ${o.bound} only (a request by another name is a DNS-rebinding attempt)`;
  const site = first(req.headers['sec-fetch-site']);
  const origin = first(req.headers.origin);
  const allowed = origin !== undefined && (o.allowOrigins ?? []).includes(origin);
  if (site !== undefined && site !== 'same-origin' && site !== 'none' && !allowed)
    return `a browser request from another site (Sec-Fetch-Site: ${site}${origin ? `, Origin: ${origin}` : ''}); web pages may not use this server`;
  if (origin === undefined || allowed) return null;
  let own: boolean;
  try {
    const u = new URL(origin);
    own = (u.protocol === 'http:' || u.protocol === 'ws:') && u.host === new URL(`http://${host}`).host;
  } catch {
    own = false;
  }
  return own ? null : `a browser request from Origin "${origin}", not this server's own (http://${host}); web pages of other origins may not use this server`;
}

/**
 * A request target as a URL, or null when it is not one: `//name/…` is a path here (not a
 * protocol-relative URL naming another host), and a target `new URL` cannot read is refused by
 * the caller with 400 rather than thrown.
 */
export function requestTarget(raw: string | undefined): URL | null {
  const target = raw ?? '/';
  try {
    return new URL(target.startsWith('/') ? `http://localhost${target}` : target);
  } catch {
    return null;
  }
}

/** An `--allow-origin` value as browsers send it (`http://host:port`, no path), or an error naming it. */
export function normaliseOrigin(value: string): string {
  let u: URL;
  try {
    u = new URL(value);
  } catch {
    throw new Error(`--allow-origin: "${value}" is not an origin such as http://localhost:3000`);
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new Error(`--allow-origin: "${value}" is not an http(s) origin`);
  return u.origin;
}
