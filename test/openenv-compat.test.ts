/**
 * `sparring env serve` as OpenEnv's own tools see it (issue 50, item 6): trainers/check_openenv.py,
 * run with the project's Python, checks the six criteria of `openenv validate` and plays an episode
 * the way OpenEnv's stock GenericEnvClient does (no headers: the token travels in the printed URL),
 * with reset(episode_id=…) honoured and a negative seed and unknown fields refused as OpenEnv's
 * pydantic models refuse them. Each check names the OpenEnv file it comes from.
 */
import { execFile, spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { ROOT, venvPython } from './support/python-env';

const run = promisify(execFile);

describe('env serve + trainers/check_openenv.py (openenv validate, the stock client)', () => {
  let server: ChildProcess | null = null;
  afterAll(() => {
    server?.kill('SIGTERM');
  });

  it('passes every criterion of openenv validate and plays an episode as GenericEnvClient, given only the printed URL', async () => {
    const python = venvPython();
    const db = path.join(mkdtempSync(path.join(os.tmpdir(), 'sparring-openenv-')), 'lab.db');
    server = spawn(process.execPath, [path.join(ROOT, 'bin', 'sparring.js'), 'env', 'serve', '--role', 'DA', '--port', '0', '--json', '--db', db], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const line = await new Promise<string>((resolve, reject) => {
      createInterface({ input: server!.stdout! }).once('line', resolve);
      server!.once('exit', (code) => reject(new Error(`env serve exited with ${code} before printing its address`)));
    });
    const doc = JSON.parse(line) as { url: string; origin: string; token: string };
    expect(doc.url).toBe(`${doc.origin}/token/${doc.token}`);

    const check = async (url: string) => {
      const { stdout } = await run(python, [path.join(ROOT, 'trainers', 'check_openenv.py'), '--url', url], {
        cwd: ROOT,
        env: { ...process.env, PYTHONDONTWRITEBYTECODE: '1' },
      });
      return JSON.parse(stdout.trim().split('\n').at(-1)!) as {
        ok: boolean;
        validate: { passed: number; total: number };
        client: Record<string, unknown>;
        failures: string[];
      };
    };
    const report = await check(doc.url);
    process.stdout.write(`openenv validate (by trainers/check_openenv.py): ${report.validate.passed}/${report.validate.total}\n`);
    expect(report.failures).toStrictEqual([]);
    expect(report.validate).toMatchObject({ passed: 6, total: 6 });
    expect(report.client).toMatchObject({ episode_done: true, episode_id_honoured: true, negative_seed_refused: true, unknown_action_field_refused: true });

    // Without the token (the bare address), only /health answers: the token is required on loopback too.
    const bare = await check(doc.origin);
    expect(bare.ok).toBe(false);
    expect(bare.validate.passed).toBe(1);
    expect(bare.failures.join('\n')).toMatch(/HTTP 401/);
  }, 120_000);
});
