/**
 * Issue 14's "done when", end to end with the real bin: `serve-model` serves a lab checkpoint,
 * `models add local` saves it, `match --da local` equals `match --da <checkpoint>` episode for
 * episode and records one call per DA turn; the re-run is answered from the lab's cache (even with
 * the server gone), and with `--no-cache` and the server gone the match fails and the lab is
 * unchanged. `models list|test|remove` work against it.
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';

const BIN = path.resolve(__dirname, '..', '..', '..', 'bin', 'sparring.js');
const tmp = mkdtempSync(path.join(os.tmpdir(), 'sparring-models-'));
const db = path.join(tmp, 'lab.db');
const env = { ...process.env, SPARRING_DB: db, ORT_DISABLE_TELEMETRY: '1' };

function sparring(args: string[], extraEnv: Record<string, string> = {}, stdin = ''): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, '--db', db, ...args], { env: { ...env, ...extraEnv } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code: code ?? -1, stdout, stderr }));
    child.stdin.end(stdin);
  });
}

let server: ChildProcess | null = null;
afterAll(() => {
  server?.kill('SIGTERM');
});

function startServer(): Promise<{ baseUrl: string; token: string }> {
  return new Promise((resolve, reject) => {
    server = spawn(process.execPath, [BIN, '--db', db, '--json', 'serve-model', 'DA-sft-1', '--port', '0'], { env });
    let out = '';
    let err = '';
    server.stderr!.on('data', (d: Buffer) => (err += d.toString()));
    server.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      if (out.includes('\n')) resolve(JSON.parse(out.split('\n')[0]!) as { baseUrl: string; token: string });
    });
    server.on('close', (code) => reject(new Error(`serve-model exited ${code}: ${err}`)));
  });
}

type Row = Record<string, unknown>;
const turnsOf = (matchId: string) => {
  const d = new Database(db, { readonly: true });
  try {
    return d
      .prepare(
        `SELECT substr(t.episode_id, instr(t.episode_id, ':')) AS ep, t.idx, t.role, t.text, t.tool, t.tool_result_json, t.parse_error FROM turns t WHERE t.episode_id LIKE ? ORDER BY t.episode_id, t.idx`,
      )
      .all(`${matchId}:%`) as Row[];
  } finally {
    d.close();
  }
};
const count = (sql: string) => {
  const d = new Database(db, { readonly: true });
  try {
    return (d.prepare(sql).get() as { n: number }).n;
  } finally {
    d.close();
  }
};

describe('sparring models + serve-model + match --da NAME', () => {
  it('plays a match through a served checkpoint that equals the in-process match; caches; fails whole', async () => {
    // route trains `sft` when its first utterance arrives (empty input trains nothing).
    const trained = await sparring(['route', '--da', 'sft', '--seed', '1', '--epochs', '1'], {}, 'my card was stolen\n');
    expect(trained.code, trained.stderr).toBe(0);
    const { baseUrl, token } = await startServer();
    const withKey = { SPARRING_MODEL_TOKEN: token };

    const add = await sparring([
      'models',
      'add',
      'local',
      '--base-url',
      baseUrl,
      '--model',
      'DA-sft-1',
      '--api-key-env',
      'SPARRING_MODEL_TOKEN',
      '--max-concurrency',
      '3',
    ]);
    expect(add.code, add.stderr).toBe(0);
    expect((await sparring(['models', 'add', 'local', '--base-url', baseUrl, '--model', 'x'])).stderr).toMatch(/exists already/);
    expect((await sparring(['models', 'add', 'DA3', '--base-url', baseUrl, '--model', 'x'])).stderr).toMatch(/looks like a checkpoint/);
    const listed = await sparring(['--json', 'models', 'list']);
    expect(JSON.parse(listed.stdout)).toEqual([
      { name: 'local', baseUrl, model: 'DA-sft-1', apiKeyEnv: 'SPARRING_MODEL_TOKEN', toolCalls: 'native', maxConcurrency: 3 },
    ]);
    // The key is read from the environment, never stored.
    expect(count(`SELECT COUNT(*) AS n FROM llm_endpoints WHERE base_url LIKE '%${token}%' OR api_key_env = '${token}'`)).toBe(0);
    const tested = await sparring(['--json', 'models', 'test', 'local'], withKey);
    expect(tested.code, tested.stderr).toBe(0);
    const t = JSON.parse(tested.stdout) as { parsed: { action_type: string } | null; serverModels: string[]; tokensOut: number };
    expect(t.parsed).not.toBeNull();
    expect(t.serverModels).toEqual(['DA-sft-1']);
    expect(t.tokensOut).toBeGreaterThan(0);
    const unauth = await sparring(['models', 'test', 'local'], { SPARRING_MODEL_TOKEN: 'wrong' });
    expect(unauth.code).toBe(2);
    expect(unauth.stderr).toMatch(/endpoint "local": bad request.*401/);

    const args = ['--ca', 'scripted', '--episodes', '2', '--scenarios', 'all', '--seed', '3', '--json'];
    const inProcess = await sparring(['match', '--da', 'DA-sft-1', ...args]);
    expect(inProcess.code, inProcess.stderr).toBe(0);
    const remote = await sparring(['match', '--da', 'local', ...args], withKey);
    expect(remote.code, remote.stderr).toBe(0);
    const [a, b] = [JSON.parse(inProcess.stdout) as Row, JSON.parse(remote.stdout) as Row];
    expect(b.perScenario).toEqual(a.perScenario);
    expect([b.wDa, b.meanRDa, b.meanRCa]).toEqual([a.wDa, a.meanRDa, a.meanRCa]);
    expect(turnsOf('M2')).toEqual(turnsOf('M1'));
    const daTurns = count(`SELECT COUNT(*) AS n FROM turns WHERE episode_id LIKE 'M2:%' AND role = 'agent'`);
    expect(count(`SELECT COUNT(*) AS n FROM llm_calls WHERE cached = 0 AND episode_id LIKE 'M2:%'`)).toBe(daTurns);
    expect(b.llm).toMatchObject({ calls: daTurns, cached: 0 });

    // route through the endpoint: the model's next action after a verified lookup; its call is recorded.
    const routed = await sparring(['route', '--da', 'local'], withKey, 'My card was declined at the shop\n');
    expect(routed.code, routed.stderr).toBe(0);
    const line = JSON.parse(routed.stdout.trim()) as { tool: string | null; raw: string };
    expect(line.raw).toMatch(/"action_type"/);
    expect(count('SELECT COUNT(*) AS n FROM llm_calls WHERE episode_id IS NULL')).toBe(1);

    // Re-run: every call answered from the lab, even with the server gone.
    server!.kill('SIGTERM');
    await new Promise((r) => server!.once('close', r));
    server = null;
    const again = await sparring(['match', '--da', 'local', ...args], withKey);
    expect(again.code, again.stderr).toBe(0);
    expect((JSON.parse(again.stdout) as Row).perScenario).toEqual(a.perScenario);
    expect(turnsOf('M3')).toEqual(turnsOf('M1'));
    expect(count(`SELECT COUNT(*) AS n FROM llm_calls WHERE cached = 1 AND episode_id LIKE 'M3:%'`)).toBe(daTurns);

    // --no-cache with the server gone: connection refused after the retries; nothing stored.
    const before = [count('SELECT COUNT(*) AS n FROM matches'), count('SELECT COUNT(*) AS n FROM llm_calls'), count('SELECT COUNT(*) AS n FROM llm_cache')];
    expect(before[0]).toBe(3);
    const down = await sparring(['--no-cache', 'match', '--da', 'local', ...args], withKey);
    expect(down.code).toBe(1);
    expect(down.stderr).toMatch(/endpoint "local": connection after \d+ attempts/);
    expect([count('SELECT COUNT(*) AS n FROM matches'), count('SELECT COUNT(*) AS n FROM llm_calls'), count('SELECT COUNT(*) AS n FROM llm_cache')]).toEqual(
      before,
    );

    const removed = await sparring(['models', 'remove', 'local']);
    expect(removed.code, removed.stderr).toBe(0);
    expect(count('SELECT COUNT(*) AS n FROM llm_cache')).toBe(0);
    expect((await sparring(['match', '--da', 'local', ...args])).stderr).toMatch(/no such policy|no checkpoint|local/);
  }, 900_000); // a dozen CLI processes, each starting tsx and onnxruntime: minutes on a loaded 2-core machine
});
