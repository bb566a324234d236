/**
 * `sparring study --executor ray` against a real local Ray head (Ray 2.58 from the project's
 * .venv, started here with `ray start --head --block` on free ports and a temporary --temp-dir, and
 * stopped by signalling that process group): a 2-seed × 2-arm tiny study whose coordinator is
 * killed (kill -9, with its Python driver) once the first shard has been merged, then resumed with
 * `study --resume`: the cluster's finished and running runs are picked up, none started twice,
 * and `study show --json` gives the same tables, digit for digit, as the same study run with local
 * workers.
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sparringInProcess as sparring } from './support/cli-in-process';
import { venvPython } from './support/python-env';
import { writeTinyStudyConfig } from './support/tiny-study-config';

const BIN = path.resolve(__dirname, '..', 'bin', 'sparring.js');
// Short: Ray's unix sockets live under --temp-dir, and a socket path has a 107-byte limit.
const tmp = mkdtempSync(path.join('/tmp', 'spray-'));

const tinyConfig = (): string => writeTinyStudyConfig(tmp);

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.on('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(port));
    });
  });
}

let head: ChildProcess | null = null;
let address = '';

/** A Ray head of 2 CPUs on free ports, in the foreground (--block) so that its process group is ours to stop. */
async function startHead(): Promise<void> {
  const python = venvPython();
  const ray = path.join(path.dirname(python), 'ray');
  const [port, client, nodeManager, objectManager, agentGrpc, agentListen, metrics, runtimeEnv] = await Promise.all(Array.from({ length: 8 }, freePort));
  address = `127.0.0.1:${port}`;
  const args = ['start', '--head', '--block', '--num-cpus', '2', '--include-dashboard=false', '--disable-usage-stats', '--temp-dir', path.join(tmp, 'ray')];
  args.push('--port', String(port), '--ray-client-server-port', String(client), '--node-manager-port', String(nodeManager));
  args.push('--object-manager-port', String(objectManager), '--dashboard-agent-grpc-port', String(agentGrpc));
  args.push('--dashboard-agent-listen-port', String(agentListen), '--metrics-export-port', String(metrics), '--runtime-env-agent-port', String(runtimeEnv));
  head = spawn(ray, args, { stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  let out = '';
  head.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  head.stderr!.on('data', (d: Buffer) => (out += d.toString()));
  const started = Date.now();
  for (;;) {
    if (head.exitCode !== null) throw new Error(`ray start --head exited (${head.exitCode}): ${out.slice(-2000)}`);
    if (/Ray runtime started/.test(out)) return;
    if (Date.now() - started > 90_000) throw new Error(`ray start --head did not come up in 90 s: ${out.slice(-2000)}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

async function stopHead(): Promise<void> {
  if (!head?.pid || head.exitCode !== null) return;
  const pid = head.pid;
  const exited = new Promise<void>((r) => head!.once('exit', () => r()));
  process.kill(-pid, 'SIGTERM');
  await Promise.race([exited, new Promise((r) => setTimeout(r, 20_000))]);
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    // the group is gone
  }
}

interface StudyJson {
  runs: { arm: string; seed: number; runId: string; status: string; matches: number }[];
  arms: unknown[];
  paired: unknown[];
}
const tables = (s: StudyJson) => ({
  runs: s.runs.map(({ arm, seed, runId, status, matches }) => ({ arm, seed, runId, status, matches })),
  arms: s.arms,
  paired: s.paired,
});

const ARGS = (db: string, config: string) => ['study', '--config', config, '--seeds', '2', '--arms', 'full,mix-100-0', '--no-panel', '--db', db];

beforeAll(startHead, 120_000);
afterAll(stopHead, 60_000);

describe('sparring study --executor ray', () => {
  it('runs each (arm, seed) on the cluster, survives a killed coordinator, and gives the local tables digit for digit', async () => {
    const config = tinyConfig();
    const local = path.join(tmp, 'local.db');
    const raydb = path.join(tmp, 'ray.db');
    const ray = ['--executor', 'ray', '--address', address, '--python', venvPython()];

    // The coordinator through bin/sparring.js, killed with its Python driver (one process group) once a shard is merged.
    const killed = new Promise<string>((resolve, reject) => {
      const child = spawn(process.execPath, [BIN, ...ARGS(raydb, config), ...ray], { stdio: ['ignore', 'ignore', 'pipe'], detached: true });
      let err = '';
      child.stderr.on('data', (d: Buffer) => {
        err += d.toString();
        if (/shard merged in/.test(err)) process.kill(-child.pid!, 'SIGKILL');
      });
      child.on('exit', (code, signal) =>
        signal === 'SIGKILL' ? resolve(err) : reject(new Error(`the Ray study ended (${code}) before it was killed: ${err}`)),
      );
    });
    const localRun = await sparring([...ARGS(local, config), '--workers', '2', '--json']);
    expect(localRun.code, localRun.stderr).toBe(0);
    const before = await killed;
    expect(before).toMatch(/Ray 2\.58\.0 at 127\.0\.0\.1:\d+: 2 CPUs/);

    const resumed = await sparring(['study', '--resume', 'S1', '--no-panel', '--db', raydb, '--json', ...ray]);
    expect(resumed.code, resumed.stderr).toBe(0);
    const viaRay = JSON.parse(resumed.stdout) as StudyJson;
    expect(tables(viaRay)).toEqual(tables(JSON.parse(localRun.stdout) as StudyJson));
    const shown = await sparring(['study', 'show', 'S1', '--json', '--db', raydb]);
    expect(tables(JSON.parse(shown.stdout) as StudyJson)).toEqual(tables(viaRay));

    // Nothing ran twice: each shard's log holds one run, each run's matches and checkpoints are stored once.
    const shardDir = `${raydb}.shards`;
    const [studyDir] = readdirSync(shardDir);
    const logs = readdirSync(path.join(shardDir, studyDir!)).filter((f) => f.endsWith('.log'));
    expect(logs.sort()).toEqual(['full-seed1.log', 'full-seed2.log', 'mix-100-0-seed1.log', 'mix-100-0-seed2.log']);
    for (const l of logs) {
      const text = readFileSync(path.join(shardDir, studyDir!, l), 'utf8');
      expect(text.match(/held-out evaluation against the scripted CA/g)?.length, l).toBe(1);
    }
    // The resumed coordinator merged only what the killed one had not, and started no run already started.
    expect(resumed.stderr).not.toMatch(/attempt 2/);
    const merged = [...before.matchAll(/shard merged/g)].length + [...resumed.stderr.matchAll(/shard merged/g)].length;
    expect(merged).toBeGreaterThanOrEqual(4);
    const lab = new Database(raydb, { readonly: true });
    try {
      for (const r of viaRay.runs) {
        expect(lab.prepare("SELECT COUNT(*) FROM matches WHERE id LIKE ? || '-M%'").pluck().get(r.runId), r.runId).toBe(r.matches);
        const snap = JSON.parse(lab.prepare('SELECT snapshot_json FROM runs WHERE id = ?').pluck().get(r.runId) as string) as { context: { gyms: unknown[] } };
        expect(lab.prepare('SELECT COUNT(*) FROM checkpoints WHERE run_id = ?').pluck().get(r.runId), r.runId).toBe(2 + snap.context.gyms.length);
      }
      expect(lab.pragma('foreign_key_check')).toEqual([]);
    } finally {
      lab.close();
    }
  }, 480_000);

  it("retries a failing task a bounded number of times, then reports it with its log's last lines", async () => {
    // The driver alone (trainers/ray_study.py), given a job whose process always fails.
    const driver = spawn(venvPython(), [path.resolve(__dirname, '..', 'trainers', 'ray_study.py'), '--address', address], { stdio: ['pipe', 'pipe', 'pipe'] });
    const lines: Record<string, unknown>[] = [];
    let buf = '';
    const done = new Promise<Record<string, unknown>>((resolve, reject) => {
      driver.stdout.on('data', (d: Buffer) => {
        buf += d.toString();
        for (let i = buf.indexOf('\n'); i >= 0; i = buf.indexOf('\n')) {
          const m = JSON.parse(buf.slice(0, i)) as Record<string, unknown>;
          buf = buf.slice(i + 1);
          lines.push(m);
          if (m.done) resolve(m);
        }
      });
      driver.on('exit', (code) => reject(new Error(`driver exited (${code})`)));
    });
    const base = path.join(tmp, 'failing');
    const job = {
      name: `sparring-test-failing-${process.pid}`,
      argv: ['/bin/sh', '-c', 'echo "attempt at $(date +%s%N)"; echo "run R9 failed: out of memory" >&2; exit 3'],
      cwd: tmp,
      env: {},
      log: `${base}.log`,
      marker: `${base}.done.json`,
      cpus: 1,
      retries: 1,
    };
    driver.stdin.write(JSON.stringify({ submit: job }) + '\n');
    const result = await done;
    driver.stdin.end();
    expect(result).toMatchObject({ done: job.name, code: 3, attempts: 2, from: 'actor' });
    expect(result.tail).toMatch(/run R9 failed: out of memory$/);
    expect(lines.filter((l) => l.started).map((l) => l.attempt)).toEqual([1, 2]);
    expect(readFileSync(`${base}.log`, 'utf8').match(/^attempt at/gm)).toHaveLength(2);
  }, 120_000);

  it('refuses --executor ray without an address, and names a Python that does not exist', async () => {
    const db = path.join(tmp, 'refused.db');
    const env = { RAY_ADDRESS: '' };
    const none = await sparring(['study', '--preset', 'quick', '--seeds', '1', '--executor', 'ray', '--db', db], env);
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(/--executor ray needs --address/);
    const py = await sparring([
      'study',
      '--preset',
      'quick',
      '--seeds',
      '1',
      '--executor',
      'ray',
      '--address',
      address,
      '--python',
      '/nope/python',
      '--db',
      db,
    ]);
    expect(py.code).toBe(2);
    expect(py.stderr).toMatch(/no Python at \/nope\/python/);
  }, 60_000);
});
