/**
 * Web mode without a browser: the token gate on HTTP and WebSocket, static files, and a contract
 * round trip over the WebSocket; then `sparring serve` itself in a child process.
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import type { ClientMessage, ServerMessage } from '../../core/contract/contract';
import { createEngine } from '../engine/engine';
import type { Engine } from '../engine/engine';
import { unavailableRunService } from '../engine/runs-unavailable';
import { startWebServer } from './server';
import type { WebServer } from './server';

const tmp = mkdtempSync(path.join(os.tmpdir(), 'sparring-web-'));
const staticDir = path.join(tmp, 'dist');
mkdirSync(path.join(staticDir, 'assets'), { recursive: true });
writeFileSync(path.join(staticDir, 'index.html'), '<!doctype html><title>Sparring</title><script type="module" src="./assets/app.js"></script>');
writeFileSync(path.join(staticDir, 'assets', 'app.js'), 'console.log("hi")');
writeFileSync(path.join(tmp, 'secret.txt'), 'not for you');

function wsOpen(url: string, headers: Record<string, string> = {}): Promise<WebSocket> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, { headers });
    ws.once('open', () => resolve(ws));
    ws.once('unexpected-response', (_req, res) => reject(new Error(`HTTP ${res.statusCode}`)));
    ws.once('error', reject);
  });
}

/** A GET with any headers (fetch will not send a Host of our choosing). */
function rawGet(port: number, pathName: string, headers: Record<string, string>): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.get({ host: '127.0.0.1', port, path: pathName, headers }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
  });
}

function request(ws: WebSocket, msg: ClientMessage): Promise<ServerMessage> {
  return new Promise((resolve) => {
    const onMessage = (data: WebSocket.RawData) => {
      const m = JSON.parse((Array.isArray(data) ? Buffer.concat(data) : Buffer.isBuffer(data) ? data : Buffer.from(data)).toString('utf8')) as ServerMessage;
      if (m.kind === 'response' && m.id === msg.id) {
        ws.off('message', onMessage);
        resolve(m);
      }
    };
    ws.on('message', onMessage);
    ws.send(JSON.stringify(msg));
  });
}

describe('web server', () => {
  let engine: Engine;
  let server: WebServer;
  let base: string;

  beforeAll(async () => {
    engine = createEngine({ dbPath: path.join(tmp, 'lab.db'), runService: unavailableRunService() });
    server = await startWebServer({ engine, staticDir, port: 0 });
    base = `http://127.0.0.1:${server.port}`;
  });
  afterAll(async () => {
    await server.close();
    engine.close();
  });

  it('prints a loopback URL carrying a long random token', () => {
    expect(server.url).toBe(`${base}/?token=${server.token}`);
    expect(server.token.length).toBeGreaterThanOrEqual(32);
  });

  it('refuses HTTP requests without the token with 403', async () => {
    for (const p of ['/', '/index.html', '/assets/app.js', `/?token=${server.token.slice(1)}`, '/?token=']) {
      const r = await fetch(base + p);
      expect(r.status, p).toBe(403);
    }
    const wrongCookie = await fetch(`${base}/assets/app.js`, { headers: { cookie: `sparring_token_${server.port}=nope` } });
    expect(wrongCookie.status).toBe(403);
  });

  it('serves the app with the token, sets a cookie for its assets, and sends a strict CSP', async () => {
    const r = await fetch(server.url);
    expect(r.status).toBe(200);
    expect(await r.text()).toContain('<title>Sparring</title>');
    expect(r.headers.get('content-security-policy')).toMatch(/default-src 'self'/);
    expect(r.headers.get('referrer-policy')).toBe('no-referrer');
    const cookie = r.headers.get('set-cookie')!;
    expect(cookie).toMatch(new RegExp(`^sparring_token_${server.port}=`));
    expect(cookie).toMatch(/HttpOnly/);
    const asset = await fetch(`${base}/assets/app.js`, { headers: { cookie: cookie.split(';')[0]! } });
    expect(asset.status).toBe(200);
    expect(asset.headers.get('content-type')).toMatch(/javascript/);
  });

  it('does not serve files outside the build', async () => {
    for (const p of ['/../secret.txt', '/%2e%2e/secret.txt', '/assets/../../secret.txt']) {
      const r = await fetch(`${base}${p}${p.includes('?') ? '&' : '?'}token=${server.token}`);
      expect(r.status, p).toBe(404);
    }
  });

  it('says how to build the UI when the build is missing', async () => {
    const empty = await startWebServer({ engine, staticDir: path.join(tmp, 'no-build'), port: 0 });
    try {
      const r = await fetch(empty.url);
      expect(r.status).toBe(503);
      expect(await r.text()).toContain('npm run build:renderer');
      expect((await fetch(`http://127.0.0.1:${empty.port}/`)).status).toBe(403);
    } finally {
      await empty.close();
    }
  });

  it('refuses a WebSocket without the token with 403', async () => {
    await expect(wsOpen(`ws://127.0.0.1:${server.port}/ws`)).rejects.toThrow('HTTP 403');
    await expect(wsOpen(`ws://127.0.0.1:${server.port}/ws?token=wrong`)).rejects.toThrow('HTTP 403');
    await expect(wsOpen(`ws://127.0.0.1:${server.port}/elsewhere?token=${server.token}`)).rejects.toThrow('HTTP 403');
  });

  it('refuses cross-origin pages and foreign Host names (DNS rebinding) with 403 and a reason, token or not', async () => {
    const page = (headers: Record<string, string>) => fetch(`${base}/?token=${server.token}`, { headers });
    const evil = await page({ origin: 'http://localhost:5173', 'sec-fetch-site': 'same-site' });
    expect(evil.status).toBe(403);
    expect(await evil.text()).toMatch(/Sec-Fetch-Site: same-site/);
    const byOrigin = await page({ origin: 'http://evil.example' });
    expect(byOrigin.status).toBe(403);
    expect(await byOrigin.text()).toMatch(/Origin "http:\/\/evil.example"/);
    const rebound = await rawGet(server.port, `/?token=${server.token}`, { host: `evil.example:${server.port}` });
    expect(rebound).toMatchObject({ status: 403, body: expect.stringMatching(/Host "evil.example:\d+" is not a loopback name/) });
    // The app's own page: same origin (its scripts and WebSocket), or the address typed by the user.
    expect((await page({ origin: base, 'sec-fetch-site': 'same-origin' })).status).toBe(200);
    expect(await rawGet(server.port, `/?token=${server.token}`, { host: `localhost:${server.port}`, 'sec-fetch-site': 'none' })).toMatchObject({ status: 200 });
    await expect(wsOpen(`ws://127.0.0.1:${server.port}/ws?token=${server.token}`, { origin: 'http://evil.example' })).rejects.toThrow('HTTP 403');
    const own = await wsOpen(`ws://127.0.0.1:${server.port}/ws?token=${server.token}`, { origin: base });
    own.close();
  });

  it('answers contract queries over the WebSocket (token in the URL or the cookie)', async () => {
    const ws = await wsOpen(`ws://127.0.0.1:${server.port}/ws?token=${server.token}`);
    try {
      const info = await request(ws, { kind: 'request', id: 1, name: 'engine/info', args: undefined });
      expect(info).toMatchObject({ kind: 'response', id: 1, ok: true, result: { dbPath: path.join(tmp, 'lab.db') } });
      const list = await request(ws, { kind: 'request', id: 2, name: 'episodes/list', args: { limit: 10 } });
      expect(list).toEqual({ kind: 'response', id: 2, ok: true, result: { total: 0, items: [] } });
      const bad = await request(ws, { kind: 'request', id: 3, name: 'episodes/list', args: { limit: 'ten' } });
      expect(bad).toMatchObject({ id: 3, ok: false, error: expect.stringMatching(/\(field "limit"\)/) });
    } finally {
      ws.close();
    }
    const viaCookie = await wsOpen(`ws://127.0.0.1:${server.port}/ws`, { cookie: `sparring_token_${server.port}=${server.token}` });
    expect(await request(viaCookie, { kind: 'request', id: 7, name: 'runs/list', args: undefined })).toEqual({ kind: 'response', id: 7, ok: true, result: [] });
    viaCookie.close();
  });

  it('streams events to every connected client while a match plays', async () => {
    const ws = await wsOpen(`ws://127.0.0.1:${server.port}/ws?token=${server.token}`);
    const events: ServerMessage[] = [];
    ws.on('message', (d) => {
      const m = JSON.parse((Array.isArray(d) ? Buffer.concat(d) : Buffer.isBuffer(d) ? d : Buffer.from(d)).toString('utf8')) as ServerMessage;
      if (m.kind === 'event') events.push(m);
    });
    try {
      const r = await request(ws, {
        kind: 'request',
        id: 1,
        name: 'matches/play',
        args: { da: 'scripted', ca: 'scripted', episodesPerScenario: 2, scenarios: 'arena', seed: 4 },
      });
      expect(r).toMatchObject({ ok: true, result: { matchId: 'M1' } });
      const completed = events.filter((e) => e.kind === 'event' && e.name === 'episodes/completed');
      expect(completed.length).toBeGreaterThan(0);
      expect(completed.at(-1)).toMatchObject({ payload: { done: 20, total: 20 } });
    } finally {
      ws.close();
    }
  });
});

describe('sparring serve', () => {
  const BIN = path.resolve(__dirname, '..', '..', 'bin', 'sparring.js');
  const children: ChildProcess[] = [];
  afterAll(() => children.forEach((c) => c.exitCode === null && c.kill('SIGKILL')));

  function serve(args: string[]): Promise<{ child: ChildProcess; line: string; stderr: () => string }> {
    const child = spawn(process.execPath, [BIN, 'serve', '--no-build', '--port', '0', '--db', path.join(tmp, 'serve.db'), ...args], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    children.push(child);
    let err = '';
    child.stderr.on('data', (d) => (err += d));
    return new Promise((resolve, reject) => {
      let out = '';
      child.stdout.on('data', (d) => {
        out += d;
        const nl = out.indexOf('\n', out.startsWith('Sparring lab') ? out.indexOf('\n') + 1 : 0);
        if (nl >= 0) resolve({ child, line: out.slice(0, nl + 1), stderr: () => err });
      });
      child.once('exit', (code) => reject(new Error(`serve exited with ${code}: ${err}`)));
    });
  }

  it('prints {url, token} with --json, serves with the token only, and stops cleanly on SIGTERM', async () => {
    const { child, line } = await serve(['--json']);
    const doc = JSON.parse(line) as { url: string; token: string };
    expect(doc.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/\?token=/);
    expect(doc.url.endsWith(doc.token)).toBe(true);
    expect((await fetch(doc.url.replace(/\?token=.*/, ''))).status).toBe(403);
    expect((await fetch(doc.url)).status).not.toBe(403);
    // serve wires the co-evolution runner: runs are available and its presets are listed.
    const ws = await wsOpen(`ws://${new URL(doc.url).host}/ws?token=${doc.token}`);
    const info = await request(ws, { kind: 'request', id: 1, name: 'engine/info', args: undefined });
    expect(info).toMatchObject({ ok: true, result: { runsUnavailable: null } });
    const presets = await request(ws, { kind: 'request', id: 2, name: 'presets/list', args: undefined });
    expect(presets.kind === 'response' && presets.ok && (presets.result as { name: string }[]).map((p) => p.name)).toEqual(
      expect.arrayContaining(['quick', 'paper']),
    );
    ws.close();
    const exited = new Promise<number | null>((r) => child.once('exit', r));
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
  });

  it('warns when --host exposes the lab beyond loopback', async () => {
    const { child, line, stderr } = await serve(['--host', '0.0.0.0']);
    expect(line).toMatch(/^Sparring lab .*\n\s+http:\/\/127\.0\.0\.1:\d+\/\?token=\S+\n$/);
    expect(stderr()).toMatch(/WARNING: listening on 0\.0\.0\.0/);
    child.kill('SIGTERM');
  });
});
