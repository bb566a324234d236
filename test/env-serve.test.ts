/**
 * `sparring env serve --role DA --opponent CA0` on a lab that has a CA0 (an untrained builtin CA,
 * stored as the bootstrap would store it), checked by trainers/check_protocol.py with Debian's
 * python3 (standard library and python3-websockets): full episodes over HTTP and the WebSocket,
 * rewards and terms against the lab file; then trainers/check_adapters.py drives the TRL and verl
 * adapters' classes through full episodes against the same server.
 */
import { execFile, spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { CaModel } from '../models/ca-model';
import { bankingDomain } from '../host/domain-files';
import { checkpointStore } from '../host/store/checkpoint-store';
import { openSqliteStore } from '../host/store/sqlite-store';

const run = promisify(execFile);
const ROOT = path.resolve(__dirname, '..');
const BIN = path.join(ROOT, 'bin', 'sparring.js');
const PYTHON = '/usr/bin/python3';

/** Debian's python3 with python3-websockets, or why the check cannot run here. */
async function pythonProblem(): Promise<string | null> {
  if (!existsSync(PYTHON)) return `${PYTHON} is missing (apt-get install python3)`;
  try {
    await run(PYTHON, ['-c', 'import websockets']);
    return null;
  } catch {
    return `${PYTHON} lacks websockets (apt-get install python3-websockets)`;
  }
}
const problem = await pythonProblem();

describe.skipIf(problem !== null)(`env serve + trainers/check_protocol.py${problem ? ` (skipped: ${problem})` : ''}`, () => {
  let server: ChildProcess | null = null;
  afterAll(() => {
    server?.kill('SIGTERM');
  });

  it('serves the DA against CA0; the Python protocol check and the adapters check pass', async () => {
    const db = path.join(mkdtempSync(path.join(os.tmpdir(), 'sparring-env-')), 'lab.db');
    const store = openSqliteStore(db);
    const ca0 = await CaModel.create(bankingDomain().taxonomy, { seed: 1 });
    checkpointStore(store.db).save({ role: 'CA', name: 'CA0', source: 'test', snapshot: await ca0.snapshot() });
    store.close();

    server = spawn(process.execPath, [BIN, 'env', 'serve', '--role', 'DA', '--opponent', 'CA0', '--port', '0', '--json', '--db', db], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const line = await new Promise<string>((resolve, reject) => {
      createInterface({ input: server!.stdout! }).once('line', resolve);
      server!.once('exit', (code) => reject(new Error(`env serve exited with ${code} before printing its address`)));
    });
    const doc = JSON.parse(line) as { url: string; role: string; opponent: string };
    expect(doc).toMatchObject({ role: 'DA', opponent: 'CA0' });

    const { stdout } = await run(PYTHON, [path.join(ROOT, 'trainers', 'check_protocol.py'), '--url', doc.url, '--db', db, '--episodes', '4'], {
      cwd: ROOT,
      env: { ...process.env, PYTHONDONTWRITEBYTECODE: '1' },
    });
    const report = JSON.parse(stdout.trim().split('\n').at(-1)!) as { ok: boolean; episodes: number; failures: string[] };
    expect(report.failures).toStrictEqual([]);
    expect(report).toMatchObject({ ok: true, episodes: 8 });

    // The TRL and verl adapters' own code against the same server (stand-ins for the packages only).
    const adapters = await run(PYTHON, [path.join(ROOT, 'trainers', 'check_adapters.py'), '--url', doc.url, '--episodes', '2'], {
      cwd: ROOT,
      env: { ...process.env, PYTHONDONTWRITEBYTECODE: '1' },
    });
    const a = JSON.parse(adapters.stdout.trim().split('\n').at(-1)!) as { ok: boolean; episodes: number; failures: string[] };
    expect(a.failures).toStrictEqual([]);
    expect(a).toMatchObject({ ok: true, role: 'DA', episodes: 4 });
  }, 120_000);
});
