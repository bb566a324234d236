/**
 * Issue 51's fault injection: a tiny run killed (SIGKILL) again and again at points a seeded
 * schedule picks — inside metric writes, checkpoint writes, phase-boundary writes and episode
 * writes (host/store/fault-injection.ts, SPARRING_KILL_AT) — and resumed after each kill ends
 * with exactly what an uninterrupted run of the same seed stores: episodes, turns and their
 * rewards, checkpoints (by weights hash), metric series and the run's final snapshot. The same for
 * a small study killed at seeded moments with `kill -9` of its runner (its workers die with it,
 * host/study/parent-watch.ts) and resumed with `study --resume`.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { PRESETS } from '../core/presets';
import { Rng } from '../core/random';

const BIN = path.resolve(__dirname, '..', 'bin', 'sparring.js');
const tmp = mkdtempSync(path.join(os.tmpdir(), 'sparring-faults-'));

/** The quick preset at its smallest: 2 matches, 1 episode per scenario, 2-step GRPO phases. */
function tinyConfig(): string {
  const c = structuredClone(PRESETS.smoke.config);
  Object.assign(c.stopping, { nMax: 2, nMin: Math.min(c.stopping.nMin, 2) });
  c.arena.episodesPerScenario = 1;
  c.bootstrap.sft.epochs = 1;
  for (const step of [c.bootstrap.daWarmup, c.bootstrap.caPressure, c.gym.da, c.gym.ca]) step.steps = 2;
  const file = path.join(tmp, 'tiny.json');
  writeFileSync(file, JSON.stringify(c));
  return file;
}

interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
  stderr: string;
}

/**
 * `sparring ...args` in a child process; with `killAfterMs`, SIGKILLed that long after it started or,
 * given `clockFrom`, after its stderr first matched it (a readiness signal, not process start-up,
 * which a loaded machine can stretch past any fixed delay).
 */
function sparring(args: string[], env: Record<string, string> = {}, killAfterMs?: number, clockFrom?: RegExp): Promise<Exit> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [BIN, ...args], { stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, ...env } });
    let stderr = '';
    let timer: NodeJS.Timeout | undefined;
    const arm = () => (timer = setTimeout(() => child.kill('SIGKILL'), killAfterMs));
    child.stderr.on('data', (d: Buffer) => {
      stderr = (stderr + d.toString()).slice(-4000);
      if (killAfterMs !== undefined && clockFrom && !timer && clockFrom.test(stderr)) arm();
    });
    if (killAfterMs !== undefined && !clockFrom) arm();
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stderr });
    });
  });
}

function sparringOut(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [BIN, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('exit', (code) => resolve({ code, stdout, stderr }));
  });
}

/** Everything the lab stores of a run that must not depend on how often it was killed. */
function stored(db: string, runId: string) {
  const lab = new Database(db, { readonly: true });
  try {
    const all = (sql: string, ...p: unknown[]) => lab.prepare(sql).all(...p);
    const snap = JSON.parse((lab.prepare('SELECT snapshot_json FROM runs WHERE id = ?').pluck().get(runId) as string) ?? 'null') as {
      value: string;
      context: unknown;
    } | null;
    const matchIds = lab.prepare("SELECT id FROM matches WHERE id LIKE ? || '-%' ORDER BY id").pluck().all(runId) as string[];
    const inRun = `SELECT id FROM episodes WHERE match_id IN (SELECT id FROM matches WHERE id LIKE '${runId}-%')`;
    return {
      status: snap?.value,
      context: snap?.context,
      matches: all(
        `SELECT id, seed, da_spec, ca_spec, da_checkpoint_name, ca_checkpoint_name, episodes_per_scenario, w_da FROM matches WHERE id IN (${matchIds.map(() => '?').join(',') || "''"}) ORDER BY id`,
        ...matchIds,
      ),
      episodes: all(
        `SELECT id, match_id, idx, scenario_id, seed, winner, end_reason, r_da, r_ca, routed_tool, judge_score FROM episodes WHERE id IN (${inRun}) ORDER BY id`,
      ),
      turns: all(`SELECT episode_id, idx, role, text, tool, tool_args_json FROM turns WHERE episode_id IN (${inRun}) ORDER BY episode_id, idx`),
      rewards: all(`SELECT episode_id, turn_idx, term, value FROM turn_rewards WHERE episode_id IN (${inRun}) ORDER BY episode_id, turn_idx, term`),
      checkpoints: all(
        'SELECT name, role, parent_id, generation, step, source, weights_hash, optimiser_hash FROM checkpoints WHERE run_id = ? ORDER BY name',
        runId,
      ),
      metrics: all('SELECT phase, key, step, value FROM run_metrics WHERE run_id = ? ORDER BY key, step, phase', runId),
    };
  } finally {
    lab.close();
  }
}

/** `x` with every checkpoint name (DA3, CA0, …) replaced by that checkpoint's weights hash in lab `db`. */
function byWeights<T>(db: string, x: T): T {
  const lab = new Database(db, { readonly: true });
  try {
    const hashOf = new Map(
      lab
        .prepare('SELECT name, weights_hash FROM checkpoints')
        .all()
        .map((r) => {
          const { name, weights_hash } = r as { name: string; weights_hash: string };
          return [name, weights_hash] as const;
        }),
    );
    return JSON.parse(JSON.stringify(x).replace(/\b[DC]A\d+\b/g, (n) => hashOf.get(n) ?? n)) as T;
  } finally {
    lab.close();
  }
}

/**
 * The Nth write of a kind a kill point may name, counted from the attempt's start (a resumed attempt
 * replays from the last phase boundary): small enough that most points land before the run ends.
 */
const REACH = { metric: 30, checkpoint: 2, snapshot: 2, episode: 1 } as const;
/**
 * At most this many kill points per run: each attempt carries one until this many landed, then the
 * run goes on to its end. An attempt whose point lies past the run's end finishes it.
 */
const KILLS = 6;

describe('fault injection', () => {
  it('a run killed at seeded write points (metrics, checkpoints, boundaries, episodes) and resumed each time stores what an uninterrupted run stores', async () => {
    const config = tinyConfig();
    const clean = path.join(tmp, 'clean.db');
    // The uninterrupted run beside the killed ones (two cores).
    const uninterrupted = sparring(['run', '--config', config, '--db', clean]);
    const rng = new Rng(51);
    // Every kind early in the schedule (a seeded shuffle), then seeded draws.
    const kinds: (keyof typeof REACH)[] = ['checkpoint', 'metric', 'snapshot', 'episode'];
    for (let i = kinds.length - 1; i > 0; i--) {
      const j = rng.int(0, i);
      [kinds[i], kinds[j]] = [kinds[j]!, kinds[i]!];
    }
    const faulty = path.join(tmp, 'faulty.db');
    const tried: string[] = [];
    let kills = 0;
    for (let attempt = 0; ; attempt++) {
      expect(attempt, `still not finished after ${attempt} attempts: ${tried.join(', ')}`).toBeLessThan(2 * KILLS + 2);
      const kind = attempt < kinds.length ? kinds[attempt]! : kinds[rng.int(0, kinds.length - 1)]!;
      const n = rng.int(1, REACH[kind]);
      const plan: Record<string, string> = kills < KILLS && attempt < 2 * KILLS ? { SPARRING_KILL_AT: `${kind}:${n}` } : {};
      const args = attempt === 0 ? ['run', '--config', config, '--db', faulty] : ['run', '--resume', 'R1', '--db', faulty];
      const r = await sparring(args, plan);
      if (r.signal === 'SIGKILL') {
        kills++;
        tried.push(`${kind}:${n}`);
        continue;
      }
      expect(r.code, r.stderr).toBe(0);
      break;
    }
    process.stderr.write(`[fault-injection] run: ${kills} kill points (${tried.join(', ')}), then resumed to the end\n`);
    expect(kills).toBeGreaterThanOrEqual(3);
    const c = await uninterrupted;
    expect(c.code, c.stderr).toBe(0);
    const expected = stored(clean, 'R1');
    expect(expected.metrics.length).toBeGreaterThan(10);
    const got = stored(faulty, 'R1');
    expect(got.checkpoints).toEqual(expected.checkpoints);
    expect(got.metrics).toEqual(expected.metrics);
    expect(got.matches).toEqual(expected.matches);
    expect(got.episodes).toEqual(expected.episodes);
    expect(got.turns).toEqual(expected.turns);
    expect(got.rewards).toEqual(expected.rewards);
    expect(got.context).toEqual(expected.context);
    expect(got.status).toBe('done');
    process.stderr.write(`[fault-injection] run: all equal after ${kills} kills (${got.metrics.length} metric points, ${got.episodes.length} episodes)\n`);
    // `runs hash` says the same in one figure, and a single changed reward changes it.
    const digest = async (db: string) => {
      const r = await sparringOut(['runs', 'hash', 'R1', '--db', db, '--json']);
      expect(r.code, r.stderr).toBe(0);
      return JSON.parse(r.stdout) as { sha256: string; parts: Record<string, { rows: number; sha256: string }> };
    };
    const [a, b] = [await digest(clean), await digest(faulty)];
    expect(a.parts.episodes!.rows).toBe(expected.episodes.length);
    expect(b).toEqual(a);
    const lab = new Database(faulty);
    lab
      .prepare(
        'UPDATE turn_rewards SET value = value + 1e-9 WHERE (episode_id, turn_idx, term) = (SELECT episode_id, turn_idx, term FROM turn_rewards LIMIT 1)',
      )
      .run();
    lab.close();
    const changed = await digest(faulty);
    expect(changed.sha256).not.toBe(a.sha256);
    expect(Object.keys(a.parts).filter((p) => changed.parts[p]!.sha256 !== a.parts[p]!.sha256)).toEqual(['turn_rewards']);
    // Up to 2 × KILLS + 2 child processes and then three more: 240 s ran out here at a load of 17, its checks all passed.
  }, 480_000);

  it('a study killed (kill -9 of its runner) at seeded moments and resumed each time stores what an uninterrupted study stores', async () => {
    const config = tinyConfig();
    const args = (db: string) => ['study', '--config', config, '--seeds', '1', '--arms', 'full,no-ca-training', '--workers', '2', '--db', db];
    const clean = path.join(tmp, 'study-clean.db');
    const c = await sparring(args(clean));
    expect(c.code, c.stderr).toBe(0);
    const faulty = path.join(tmp, 'study-faulty.db');
    const rng = new Rng(5151);
    const moments: number[] = [];
    let kills = 0;
    for (let attempt = 0; ; attempt++) {
      expect(attempt, `study not finished after ${attempt} attempts`).toBeLessThan(8);
      // Three kills, each 2–9 s into an attempt (process start included), then the study goes on to its end.
      // The first attempt's clock starts once it has made the study (which later attempts resume): a kill
      // before that would leave no S1 to resume however slowly the machine starts a process.
      const at = kills < 3 ? rng.int(2_000, 9_000) : undefined;
      const r = await sparring(attempt === 0 ? args(faulty) : ['study', '--resume', 'S1', '--db', faulty], {}, at, attempt === 0 ? /^study S1: /m : undefined);
      if (r.signal === 'SIGKILL') {
        kills++;
        moments.push(at!);
        continue;
      }
      expect(r.code, r.stderr).toBe(0);
      break;
    }
    expect(kills).toBeGreaterThanOrEqual(2);
    // Nothing extra: the same number of checkpoints in each lab (a killed attempt leaves none behind).
    const count = (db: string) => {
      const lab = new Database(db, { readonly: true });
      try {
        return lab.prepare('SELECT count(*) FROM checkpoints').pluck().get();
      } finally {
        lab.close();
      }
    };
    expect(count(faulty)).toBe(count(clean));
    for (const runId of ['R1', 'R2']) {
      // Checkpoint names are lab-wide labels given in the order of saving, and a resumed study may save
      // its two runs' checkpoints in another order: compare what they are (weights), not what they are called.
      const expected = byWeights(clean, stored(clean, runId));
      const got = byWeights(faulty, stored(faulty, runId));
      // Which of the two runs trains the shared bootstrap and which copies it may differ: not its weights or series.
      const bySource = (x: typeof got) => x.checkpoints.map((k) => ({ ...(k as object), source: undefined }));
      expect(bySource(got)).toEqual(bySource(expected));
      // A gym's phase is labelled with the name its checkpoint was to get (gym:DA2): a label, as above.
      const series = (x: typeof got) => (x.metrics as { phase: string }[]).map((m) => ({ ...m, phase: m.phase.replace(/^gym:.*/, 'gym') }));
      expect(series(got)).toEqual(series(expected));
      expect(got.matches).toEqual(expected.matches);
      expect(got.episodes).toEqual(expected.episodes);
      expect(got.turns).toEqual(expected.turns);
      expect(got.rewards).toEqual(expected.rewards);
      expect(got.context).toEqual(expected.context);
    }
    process.stderr.write(`[fault-injection] study: all equal after ${kills} kills of its runner (at ${moments.join(', ')} ms)\n`);
  }, 300_000);
});
