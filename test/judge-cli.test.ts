/**
 * `--judge SPEC` end to end: the real `sparring` bin in a child process, an LLM judge played by a
 * loopback server that answers every request with a recorded vLLM reply (no network, no weights).
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const run = promisify(execFile);
const ROOT = path.resolve(__dirname, '..');
const BIN = path.join(ROOT, 'bin', 'sparring.js');
const tmp = mkdtempSync(path.join(os.tmpdir(), 'sparring-judge-'));
const db = path.join(tmp, 'lab.db');
const THIRD = path.join(ROOT, 'assets', 'judge', 'labelled-3.json');

async function sparring(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, [BIN, ...args, '--db', db], { env: { ...process.env, ORT_DISABLE_TELEMETRY: '1' } });
    return { code: 0, stdout, stderr };
  } catch (e) {
    const err = e as { code: number; stdout: string; stderr: string };
    return { code: err.code, stdout: err.stdout, stderr: err.stderr };
  }
}

// The recorded reply of a judge that calls every conversation clean, tier 4.
const reply = (JSON.parse(readFileSync(path.join(ROOT, 'models', 'llm', 'judge-fixtures', 'vllm-judge-clean.json'), 'utf8')) as { response: unknown }).response;
let requests = 0;
const server = http.createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    requests++;
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(reply));
  });
});

beforeAll(async () => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  const r = await sparring(['models', 'add', 'judge7b', '--base-url', `http://127.0.0.1:${port}/v1`, '--model', 'Qwen/Qwen2.5-7B-Instruct']);
  expect(r.code, r.stderr).toBe(0);
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

describe('--judge SPEC', () => {
  it('judge-eval measures an LLM judge on a labelled set, and a re-run is answered from the cache', async () => {
    const r = await sparring(['judge-eval', '--judge', 'judge7b', '--labels', THIRD, '--json']);
    expect(r.code, r.stderr).toBe(0);
    const doc = JSON.parse(r.stdout);
    expect(doc).toMatchObject({ judge: 'judge7b', n: 36, hallucinationRecall: 0 });
    expect(requests).toBe(36);
    const again = await sparring(['judge-eval', '--judge', 'judge7b', '--labels', THIRD, '--json']);
    expect(JSON.parse(again.stdout)).toEqual(doc);
    expect(requests).toBe(36);
  });

  it('judge-eval --all runs the rule judge on every shipped set', async () => {
    const r = await sparring(['judge-eval', '--all', '--json']);
    expect(r.code, r.stderr).toBe(0);
    const doc = JSON.parse(r.stdout);
    expect(doc.judge).toBe('rule');
    expect(doc.sets.map((s: { n: number }) => s.n)).toEqual([54, 30, 36]);
  });

  it('match --judge scores every episode with the LLM judge', async () => {
    const r = await sparring(['match', '--judge', 'judge7b', '--episodes', '1', '--json']);
    expect(r.code, r.stderr).toBe(0);
    const sql = new Database(db, { readonly: true });
    const scores = sql.prepare('SELECT DISTINCT judge_score FROM episodes').pluck().all();
    // One judge call per episode, recorded with role judge on the episode it judged (turn: its turn count).
    const episodes = sql.prepare("SELECT id || '#' || (SELECT COUNT(*) FROM turns WHERE episode_id = episodes.id) FROM episodes ORDER BY 1").pluck().all();
    const judged = sql.prepare("SELECT episode_id || '#' || turn FROM llm_calls WHERE role = 'judge' AND episode_id IS NOT NULL ORDER BY 1").pluck().all();
    sql.close();
    expect(scores).toEqual([2]);
    expect(judged).toEqual(episodes);
  });

  it('refuses a SPEC that names no judge, naming the option', async () => {
    const r = await sparring(['judge-eval', '--judge', 'nope']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--judge "nope": not "rule" and no LLM endpoint of that name/);
  });
});
