/**
 * `sparring run --judge SPEC` end to end (issue 14, item 6): the real `sparring` bin in a child
 * process, the judge an LLM endpoint played by a loopback server that answers every request with
 * a recorded vLLM judge reply (no network, no weights). The run finishes; every episode of its
 * matches carries the LLM judge's verdict; the judge's calls are in the lab's ledger with role
 * `judge`, linked to the episode they judged (gym rollouts' calls to none); the run's record names
 * the judge; a second identical run is answered from the lab's cache (no new request) and ends
 * with the same numbers. An unknown SPEC, and `--judge` on a resumed run, are refused before
 * anything runs.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
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
const tmp = mkdtempSync(path.join(os.tmpdir(), 'sparring-judge-run-'));
const db = path.join(tmp, 'lab.db');
// quick with two matches (at most one gym between them): short, and a gym's rollouts are judged too.
const OVERLAY = path.join(tmp, 'two-matches.json');
writeFileSync(OVERLAY, JSON.stringify({ stopping: { nMin: 2, nMax: 2 } }));

async function sparring(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, [BIN, ...args, '--db', db], {
      env: { ...process.env, ORT_DISABLE_TELEMETRY: '1' },
      maxBuffer: 64 * 1024 * 1024,
    });
    return { code: 0, stdout, stderr };
  } catch (e) {
    const err = e as { code: number; stdout: string; stderr: string };
    return { code: err.code, stdout: err.stdout, stderr: err.stderr };
  }
}

// The recorded reply of a judge that calls every conversation clean, tier 4 (J = +2).
const fixture = JSON.parse(readFileSync(path.join(ROOT, 'models', 'llm', 'judge-fixtures', 'vllm-judge-clean.json'), 'utf8')) as {
  response: { choices: { message: { content: string } }[] };
};
const RATIONALE = (JSON.parse(fixture.response.choices[0]!.message.content) as { rationale: string }).rationale;
let requests = 0;
const server = http.createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    requests++;
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(fixture.response));
  });
});

const sql = <T>(q: string, ...args: unknown[]): T => {
  const lab = new Database(db, { readonly: true });
  try {
    return lab.prepare(q).get(...args) as T;
  } finally {
    lab.close();
  }
};
const all = <T>(q: string, ...args: unknown[]): T[] => {
  const lab = new Database(db, { readonly: true });
  try {
    return lab.prepare(q).all(...args) as T[];
  } finally {
    lab.close();
  }
};

interface RunJson {
  runId: string;
  status: string;
  judge: string;
  matches: { matchId: string; wDa: number }[];
  heldout: unknown[];
}

beforeAll(async () => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  const r = await sparring([
    'models',
    'add',
    'judge7b',
    '--base-url',
    `http://127.0.0.1:${port}/v1`,
    '--model',
    'Qwen/Qwen2.5-7B-Instruct',
    '--max-concurrency',
    '4',
  ]);
  expect(r.code, r.stderr).toBe(0);
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

describe('sparring run --judge SPEC', () => {
  let first: RunJson;

  it('refuses a SPEC that names no judge before anything runs, naming the option', async () => {
    const r = await sparring(['run', '--preset', 'quick', '--judge', 'nope']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--judge "nope": not "rule" and no LLM endpoint of that name/);
    expect(sql<{ n: number }>('SELECT COUNT(*) AS n FROM runs').n).toBe(0);
    // A config file's judge is checked against the lab too (the app starts runs this way), naming the field.
    const bad = path.join(tmp, 'bad-judge.json');
    writeFileSync(bad, JSON.stringify({ judge: 'nope' }));
    const byConfig = await sparring(['run', '--preset', 'quick', '--config', bad]);
    expect(byConfig.code).toBe(2);
    expect(byConfig.stderr).toMatch(/config: field judge: "nope": not "rule" and no LLM endpoint of that name/);
    expect(sql<{ n: number }>('SELECT COUNT(*) AS n FROM runs').n).toBe(0);
    const resumed = await sparring(['run', '--resume', 'R1', '--judge', 'judge7b']);
    expect(resumed.code).toBe(2);
    expect(resumed.stderr).toMatch(/--judge sets a new run's judge; a resumed run keeps its own/);
  }, 300_000);

  it('judges every episode, gym rollout and evaluation with the LLM, recording its calls with role judge', async () => {
    const r = await sparring(['run', '--preset', 'smoke', '--config', OVERLAY, '--judge', 'judge7b', '--seed', '1', '--json']);
    expect(r.code, r.stderr).toBe(0);
    first = JSON.parse(r.stdout) as RunJson;
    expect(first.status).toBe('finished');
    expect(first.judge).toBe('judge7b');
    expect(first.matches.length).toBe(2);
    expect(first.heldout.length).toBeGreaterThan(0);
    // The run's record keeps its judge (a resumed run reads it from there).
    expect(JSON.parse(sql<{ c: string }>('SELECT config_json AS c FROM runs WHERE id = ?', first.runId).c).judge).toBe('judge7b');

    // Every episode of the run's matches carries the LLM judge's verdict (the rule judge never writes this rationale).
    const episodes = all<{ id: string; turns: number; score: number; rationale: string }>(
      `SELECT e.id, (SELECT COUNT(*) FROM turns t WHERE t.episode_id = e.id) AS turns, e.judge_score AS score, e.judge_rationale AS rationale
       FROM episodes e WHERE e.match_id LIKE ?`,
      `${first.runId}-M%`,
    );
    expect(episodes.length).toBeGreaterThan(0);
    expect(episodes.every((e) => e.score === 2 && e.rationale === RATIONALE)).toBe(true);

    // One judge call per stored episode, linked to it (turn: the episode's turn count), and nothing else on it from the judge.
    const judged = all<{ episode_id: string; turn: number; role: string }>(
      "SELECT episode_id, turn, role FROM llm_calls WHERE role = 'judge' AND episode_id LIKE ? ORDER BY episode_id",
      `${first.runId}-M%`,
    );
    expect(judged.map((c) => `${c.episode_id}#${c.turn}`).sort()).toEqual(episodes.map((e) => `${e.id}#${e.turns}`).sort());
    // Every call of the run is the judge's (the DA and the CA are builtin); the bootstrap's and gyms' rollouts have no stored episode.
    expect(sql<{ n: number }>("SELECT COUNT(*) AS n FROM llm_calls WHERE role IS NOT 'judge'").n).toBe(0);
    expect(sql<{ n: number }>('SELECT COUNT(*) AS n FROM llm_calls WHERE episode_id IS NULL').n).toBeGreaterThan(0);
    // Every request the server answered is in the ledger as an uncached call.
    expect(sql<{ n: number }>('SELECT COUNT(*) AS n FROM llm_calls WHERE cached = 0').n).toBe(requests);
  }, 900_000);

  it('a second identical run is answered from the lab cache: no new request, the same numbers', async () => {
    const before = requests;
    const r = await sparring(['run', '--preset', 'smoke', '--config', OVERLAY, '--judge', 'judge7b', '--seed', '1', '--json']);
    expect(r.code, r.stderr).toBe(0);
    const second = JSON.parse(r.stdout) as RunJson;
    expect(second.runId).not.toBe(first.runId);
    expect(requests).toBe(before);
    expect(second.matches.map((m) => m.wDa)).toEqual(first.matches.map((m) => m.wDa));
    // Checkpoint names differ between the runs of one lab (DA0 vs DA2); the figures may not.
    const figures = (j: RunJson) =>
      j.heldout.map((h) => {
        const { heldout, gate, reference } = h as Record<string, unknown>;
        return { heldout, gate, reference };
      });
    expect(figures(second)).toEqual(figures(first));
    const calls = sql<{ n: number; uncached: number }>(
      "SELECT COUNT(*) AS n, COALESCE(SUM(cached = 0), 0) AS uncached FROM llm_calls WHERE role = 'judge' AND episode_id LIKE ?",
      `${second.runId}-M%`,
    );
    expect(calls.n).toBeGreaterThan(0);
    expect(calls.uncached).toBe(0);
  }, 900_000);
});
