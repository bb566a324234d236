/**
 * The managed trainer on the real stack (issue 50 item 5), in CI: a tiny Qwen2 made here from a
 * config (random weights, a tokenizer trained on the lab's texts: trainers/tiny_qwen2.py) learns
 * the trained form by a short SFT on the lab's own demonstrations (the scripted DA's episodes as
 * `sparring export` writes them: trainers/sft_run.py, TRL's SFTTrainer); then a quick co-evolution
 * whose DA and CA gyms are managed TRL GRPO gyms (`gym.<role>.trainer {"kind": "trl"}`, 2 steps of
 * K 2 each) trains both roles by itself, each new checkpoint a GGUF that plays the next match in
 * process. Killed with SIGKILL inside the DA's managed gym, `run --resume` trains it again and
 * finishes. Checked: the rewards TRL was given equal the lab's stored rewards of the same episode
 * ids; the run finishes; lineage DA0 → DA1 and CA0 → CA1, the trained ones GGUF files.
 * Prints the figures the closing note needs (rewards compared, seconds per GRPO step, time).
 */
import { execFile, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PRESETS } from '../../core/coevolution/run-config';
import type { RunConfig } from '../../core/coevolution/run-config';
import { ROOT, venvPython } from '../../test/support/python-env';
import { until } from './external-gym.fixture';
import { gymJobFolder } from './external-gym';
import { managedPaths } from './managed-trainer';

const BIN = path.join(ROOT, 'bin', 'sparring.js');
const execFileP = promisify(execFile);

/** The tiny model's shape: small enough that a GRPO step over a ~2,000-token prompt takes seconds on 2 cores. */
export const TINY_QWEN2 = { vocab: 4096, hidden: 32, layers: 1 };

/**
 * Makes the tiny model, teaches it the trained form on the scripted DA's episodes stored in `db`
 * (one match, 1 episode per scenario), and returns the SFT'd model's folder.
 */
export async function sftTinyQwen2(dir: string, db: string, log: (s: string) => void = () => {}): Promise<string> {
  const python = venvPython();
  const base = path.join(dir, 'tiny-qwen2');
  const sft = path.join(dir, 'tiny-qwen2-sft');
  const demos = path.join(dir, 'demos.jsonl');
  const t0 = Date.now();
  const made = execFileP(
    python,
    [path.join(ROOT, 'trainers', 'tiny_qwen2.py'), base, ...['--vocab', '--hidden', '--layers'].flatMap((f, i) => [f, String(Object.values(TINY_QWEN2)[i])])],
    {
      timeout: 300_000,
    },
  );
  const { stdout } = await execFileP(
    process.execPath,
    [BIN, '--db', db, '--create', '--json', 'match', '--da', 'scripted', '--ca', 'scripted', '--episodes', '1'],
    {
      timeout: 120_000,
    },
  );
  const match = (JSON.parse(stdout) as { matchId: string }).matchId;
  await execFileP(process.execPath, [BIN, '--db', db, 'export', match, '--out', demos], { timeout: 60_000 });
  await made;
  log(`tiny Qwen2 made and ${match} exported as demonstrations: ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  const t1 = Date.now();
  const out = await execFileP(
    python,
    [path.join(ROOT, 'trainers', 'sft_run.py'), '--data', demos, '--model', base, '--out', sft, '--epochs', '4', '--lr', '1e-2'],
    {
      timeout: 900_000,
      env: { ...process.env, TRL_EXPERIMENTAL_SILENCE: '1' },
    },
  );
  const losses = out.stdout
    .split('\n')
    .filter((l) => l.startsWith('{"event": "log"'))
    .map((l) => (JSON.parse(l) as { loss: number }).loss);
  log(`SFT: ${losses.length} steps in ${((Date.now() - t1) / 1000).toFixed(1)} s, loss ${losses[0]?.toFixed(2)} → ${losses.at(-1)?.toFixed(2)}`);
  return sft;
}

const tmp = mkdtempSync(path.join(os.tmpdir(), 'sparring-managed-trl-'));
const db = path.join(tmp, 'lab.db');
const children: ReturnType<typeof spawn>[] = [];
afterAll(() => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  if (!process.env.SPARRING_KEEP_TMP) rmSync(tmp, { recursive: true, force: true });
});

function read<T>(sql: string, ...args: unknown[]): T[] {
  if (!existsSync(db)) return [];
  const d = new Database(db, { readonly: true, fileMustExist: true });
  try {
    return d.prepare(sql).all(...args) as T[];
  } catch {
    return [];
  } finally {
    d.close();
  }
}

function sparring(args: string[]) {
  const child = spawn(process.execPath, [BIN, '--db', db, ...args], { env: { ...process.env, ORT_DISABLE_TELEMETRY: '1' } });
  children.push(child);
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr.on('data', (d: Buffer) => (out += d.toString()));
  const done = new Promise<number | null>((resolve) => child.once('exit', resolve));
  return { child, done, out: () => out };
}

/** The `{"event": …}` lines of a managed gym's trainer log. */
function events<T>(file: string, event: string): T[] {
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.startsWith(`{"event": "${event}"`))
    .map((l) => JSON.parse(l) as T);
}

describe('managed TRL gyms on the real stack', () => {
  let model = '';
  const t0 = Date.now();
  beforeAll(async () => {
    model = await sftTinyQwen2(tmp, db, (s) => console.log(s));
  }, 1_200_000);

  it('train the DA and the CA by themselves, play their GGUFs, survive kill -9 inside a gym, and finish', { timeout: 1_800_000 }, async () => {
    const quick = PRESETS.quick.config;
    const trainer = { kind: 'trl' as const, python: venvPython(), model, grpo: { maxCompletionLength: 48, vllm: 'off' as const }, lora: { r: 4 } };
    const gymBudget = { steps: 2, K: 2, promptsPerStep: 1 };
    const config: RunConfig = {
      ...quick,
      arena: { episodesPerScenario: 1, maxDaTurns: 4 },
      stopping: { ...quick.stopping, nMin: 2, nMax: 2 },
      bootstrap: { ...quick.bootstrap, daWarmup: { ...quick.bootstrap.daWarmup, steps: 1 }, caPressure: { ...quick.bootstrap.caPressure, steps: 1 } },
      gym: { ...quick.gym, da: { ...quick.gym.da, ...gymBudget, trainer }, ca: { ...quick.gym.ca, ...gymBudget, trainer } },
      // After match 1 the DA's gym, then the CA's (against DA1, the GGUF); match 2 is DA1 against CA1.
      schedule: { isolation: 'both' },
      eval: { runs: 1, episodesPerScenario: 1, gateEpisodesPerScenario: 1 },
    };
    const configFile = path.join(tmp, 'managed.json');
    writeFileSync(configFile, JSON.stringify(config));
    const tRun = Date.now();

    // 1. The run reaches the DA's managed gym; killed with SIGKILL once TRL has been given rewards of stored rollouts.
    const first = sparring(['run', '--config', configFile]);
    const runId = await until('the run', () => read<{ id: string }>('SELECT id FROM runs ORDER BY created_at LIMIT 1')[0]?.id, 300_000);
    const daLog = managedPaths({ exportPath: gymJobFolder(db, runId, 1), role: 'DA' }).log;
    await until('rewards of TRL rollouts in the DA gym', () => (events(daLog, 'rewards').length ? true : null), 900_000).catch((e: Error) => {
      throw new Error(`${e.message}\n${first.out().slice(-3000)}`);
    });
    first.child.kill('SIGKILL');
    await first.done;
    expect(read<{ status: string }>('SELECT status FROM gym_jobs WHERE run_id = ? AND gym_index = 1', runId)[0]?.status).toBe('waiting');
    expect(read('SELECT name FROM checkpoints WHERE name = ?', 'DA1')).toEqual([]);

    // 2. Resumed: the DA's gym trained again, then the CA's, match 2 by the GGUFs, the evaluation.
    const second = sparring(['run', '--resume', runId]);
    const code = await second.done;
    expect(code, second.out().slice(-4000)).toBe(0);
    const runSeconds = (Date.now() - tRun) / 1000;
    expect(read<{ status: string }>('SELECT status FROM runs WHERE id = ?', runId)[0]?.status).toBe('finished');
    const jobs = read<{ gym: number; role: string; status: string; checkpoint: string }>(
      'SELECT gym_index AS gym, role, status, checkpoint FROM gym_jobs WHERE run_id = ? ORDER BY gym_index',
      runId,
    );
    expect(jobs.map((j) => [j.role, j.status, j.checkpoint])).toEqual([
      ['DA', 'done', 'DA1'],
      ['CA', 'done', 'CA1'],
    ]);

    // Lineage: base → trained, each trained checkpoint a GGUF the run wrote.
    const lineage = read<{ name: string; parent: string; llm_json: string }>(
      "SELECT c.name, p.name AS parent, c.llm_json FROM checkpoints c JOIN checkpoints p ON p.id = c.parent_id WHERE c.name IN ('DA1', 'CA1') ORDER BY c.name",
    );
    expect(lineage.map((l) => `${l.parent} → ${l.name}`)).toEqual(['CA0 → CA1', 'DA0 → DA1']);
    for (const l of lineage) expect(JSON.parse(l.llm_json)).toMatchObject({ kind: 'gguf' });

    // Match 2 was played by the GGUFs, in process, to the end of every episode.
    const m2 = read<{ da: string; ca: string; n: number }>(
      'SELECT m.da_checkpoint_name AS da, m.ca_checkpoint_name AS ca, COUNT(e.id) AS n FROM matches m JOIN episodes e ON e.match_id = m.id WHERE m.id = ? GROUP BY m.id',
      `${runId}-M2`,
    );
    expect(m2).toEqual([{ da: 'DA1', ca: 'CA1', n: expect.any(Number) }]);
    expect(m2[0]!.n).toBeGreaterThan(0);

    // TRL's rewards = the lab's stored rewards of the same episodes, in both gyms (the killed attempt's too).
    let compared = 0;
    let equal = 0;
    const perStep: number[] = [];
    for (const [gym, role, column] of [
      [1, 'DA', 'r_da'],
      [2, 'CA', 'r_ca'],
    ] as const) {
      const log = managedPaths({ exportPath: gymJobFolder(db, runId, gym), role }).log;
      const given = events<{ episodes: { id: string | null; reward: number }[] }>(log, 'rewards').flatMap((e) => e.episodes);
      expect(given.length, `${role} gym: rewards in ${log}`).toBeGreaterThan(0);
      for (const g of given) {
        expect(g.id, `${role} gym: every rollout TRL scored ended as a stored episode`).not.toBeNull();
        const stored = read<{ r: number }>(`SELECT ${column} AS r FROM episodes WHERE id = ?`, g.id)[0];
        compared++;
        if (stored && Math.abs(stored.r - g.reward) < 1e-9) equal++;
      }
      const steps = events<{ step: number; elapsed_s: number }>(log, 'log');
      const last = steps.at(-1);
      if (last) perStep.push(last.elapsed_s / last.step);
    }
    expect(equal).toBe(compared);
    console.log(
      `managed TRL: TRL rewards = lab rewards ${equal}/${compared}; seconds per GRPO step (DA, CA gym) ${perStep.map((s) => s.toFixed(1)).join(', ')}; ` +
        `run with kill -9 and resume ${runSeconds.toFixed(0)} s; whole test ${((Date.now() - t0) / 1000).toFixed(0)} s`,
    );
  });
});
