/**
 * The managed trainer on the real stack (issue 50 item 5), in CI: a tiny Qwen2 made here from a
 * config (random weights, a byte-level BPE tokenizer trained on the lab's texts:
 * trainers/tiny_qwen2.py; nothing downloaded), then a co-evolution run whose DA and CA gyms are
 * managed TRL 1.13 GRPO gyms (`gym.<role>.trainer {"kind": "trl"}`: GRPOTrainer with
 * `environment_factory`, one step of K 2 each), unattended: after match 1 the DA's gym, then the
 * CA's against the new DA (isolation `both`: RL-ADA's CA gym trains against the current frozen DA,
 * from the match's recorded dialogue), each result a GGUF the lab stores as the role's next
 * checkpoint, and match 2 played by both GGUFs in process.
 *
 * Checked: every rollout TRL scored ended as a stored episode, and the reward TRL trained on equals
 * the lab's stored r_DA / r_CA of that episode; the trainer's steps reached the gym's metric
 * series; lineage DA0 → DA1 and CA0 → CA1, both GGUFs; match 2 by DA1 against CA1 to the end of
 * every episode; the run finished. Learning is not checked: a random 45k-parameter model writes
 * no tool call, so each rollout ends unparsed and its group's rewards are equal (no advantage).
 * Prints the closing note's figures (rewards compared, seconds per GRPO step, tokens/s, time).
 *
 * Cost, kept small for CI: one GRPO step of K 2 per gym, 2 DA turns per episode, 1 episode per
 * scenario, 2 matches, one Python process per gym (it trains, merges and writes the GGUF), one
 * llama.cpp thread per GGUF. Measured for the whole file: 92 s of CPU (83 user + 8 system), 222 s
 * wall on the 2 shared cores under load 10-15; about 35 s of the CPU is Python importing torch and
 * transformers (3 processes). A missing .venv fails it (venvPython), never skips it.
 */
import { execFile, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { PRESETS } from '../../core/presets';
import type { RunConfig } from '../../core/coevolution/run-config';
import { ROOT, venvPython } from '../../test/support/python-env';
import { gymJobFolder } from './external-gym';
import { managedPaths } from './managed-trainer';

const BIN = path.join(ROOT, 'bin', 'sparring.js');
const execFileP = promisify(execFile);

/** The tiny model's shape: a GRPO step over a ~2,000-token prompt takes seconds on 2 cores. */
const TINY_QWEN2 = ['--vocab', '1024', '--hidden', '32', '--layers', '1'];

const tmp = mkdtempSync(path.join(os.tmpdir(), 'sparring-managed-trl-'));
const db = path.join(tmp, 'lab.db');
const children: ReturnType<typeof spawn>[] = [];
afterAll(() => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  if (!process.env.SPARRING_KEEP_TMP) rmSync(tmp, { recursive: true, force: true });
});

function read<T>(sql: string, ...args: unknown[]): T[] {
  const d = new Database(db, { readonly: true, fileMustExist: true });
  try {
    return d.prepare(sql).all(...args) as T[];
  } finally {
    d.close();
  }
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
  it('train the DA and the CA by themselves, store each GGUF as the next checkpoint, and play them in the next match', { timeout: 900_000 }, async () => {
    // In the test, not a beforeAll: without .venv the test fails (venvPython names the command that makes it), it is never reported skipped.
    const t0 = Date.now();
    const model = path.join(tmp, 'tiny-qwen2');
    await execFileP(venvPython(), [path.join(ROOT, 'trainers', 'tiny_qwen2.py'), model, ...TINY_QWEN2], { timeout: 300_000 });
    console.log(`tiny Qwen2 made: ${((Date.now() - t0) / 1000).toFixed(1)} s`);

    const quick = PRESETS.quick.config;
    const trainer = { kind: 'trl' as const, python: venvPython(), model, grpo: { maxCompletionLength: 32, vllm: 'off' as const }, lora: { r: 4 } };
    const gymBudget = { steps: 1, K: 2, promptsPerStep: 1 };
    const config: RunConfig = {
      ...quick,
      // Two DA turns: the CA has a decision point after the DA's first (the recorded prefix replayed against DA1).
      arena: { episodesPerScenario: 1, maxDaTurns: 2 },
      stopping: { ...quick.stopping, nMin: 2, nMax: 2 },
      bootstrap: {
        ...quick.bootstrap,
        sft: { ...quick.bootstrap.sft, epochs: 1 },
        daWarmup: { ...quick.bootstrap.daWarmup, steps: 1 },
        caPressure: { ...quick.bootstrap.caPressure, steps: 1 },
      },
      gym: { ...quick.gym, da: { ...quick.gym.da, ...gymBudget, trainer }, ca: { ...quick.gym.ca, ...gymBudget, trainer } },
      // After match 1 the DA's gym, then the CA's (against DA1, the GGUF); match 2 is DA1 against CA1.
      schedule: { isolation: 'both' },
      eval: { runs: 1, episodesPerScenario: 1, gateEpisodesPerScenario: 1 },
    };
    const configFile = path.join(tmp, 'managed.json');
    writeFileSync(configFile, JSON.stringify(config));
    const tRun = Date.now();
    const child = spawn(process.execPath, [BIN, '--db', db, '--create', 'run', '--config', configFile], {
      // One llama.cpp thread per GGUF: its threads wait for each other by spinning, which on 2 shared cores costs more than it gains.
      env: { ...process.env, ORT_DISABLE_TELEMETRY: '1', SPARRING_GGUF_THREADS: '1' },
    });
    children.push(child);
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (out += d.toString()));
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    const runSeconds = (Date.now() - tRun) / 1000;
    expect(code, out.slice(-4000)).toBe(0);
    const runId = read<{ id: string }>('SELECT id FROM runs')[0]!.id;
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

    // TRL's rewards = the lab's stored rewards of the same episodes, in both gyms; each gym's steps in its metric series.
    let compared = 0;
    let equal = 0;
    const perStep: string[] = [];
    for (const [gym, role, column, next] of [
      [1, 'DA', 'r_da', 'DA1'],
      [2, 'CA', 'r_ca', 'CA1'],
    ] as const) {
      const log = managedPaths({ exportPath: gymJobFolder(db, runId, gym), role }).log;
      const given = events<{ episodes: { id: string | null; reward: number }[] }>(log, 'rewards').flatMap((e) => e.episodes);
      expect(given.length, `${role} gym: rewards in ${log}`).toBeGreaterThan(0);
      for (const g of given) {
        expect(g.id, `${role} gym: every rollout TRL scored ended as a stored episode`).not.toBeNull();
        const stored = read<{ r: number; da: string; ca: string }>(
          `SELECT e.${column} AS r, m.da_spec AS da, m.ca_spec AS ca FROM episodes e JOIN matches m ON m.id = e.match_id WHERE e.id = ?`,
          g.id,
        )[0];
        expect(stored, `${role} gym: episode ${g.id} stored`).toBeDefined();
        // The learner is TRL's model; the frozen opponent the gym's: CA0 for the DA, DA1 (the new DA) for the CA.
        expect(role === 'DA' ? [stored!.da, stored!.ca] : [stored!.ca, stored!.da]).toEqual([`env:${next}-trl`, role === 'DA' ? 'CA0' : 'DA1']);
        compared++;
        if (Math.abs(stored!.r - g.reward) < 1e-9) equal++;
      }
      const steps = events<{ step: number; elapsed_s: number }>(log, 'log');
      expect(steps.map((s) => s.step)).toEqual([1]);
      perStep.push(`${role} ${(steps.at(-1)!.elapsed_s / steps.at(-1)!.step).toFixed(1)}`);
      const series = read<{ key: string }>('SELECT DISTINCT key FROM run_metrics WHERE run_id = ? AND phase = ?', runId, `gym:${next}`);
      expect(series.map((s) => s.key)).toContain('gym/reward_mean');
    }
    expect(equal).toBe(compared);

    // The GGUFs' calls in match 2 (node-llama-cpp in process, CPU): tokens written per second of call time.
    const calls = read<{ role: string; n: number; out: number; ms: number }>(
      'SELECT role, COUNT(*) AS n, SUM(tokens_out) AS out, SUM(latency_ms) AS ms FROM llm_calls WHERE episode_id LIKE ? AND cached = 0 GROUP BY role ORDER BY role',
      `${runId}-M2:%`,
    );
    expect(calls.map((c) => c.role)).toEqual(['CA', 'DA']);
    console.log(
      `match 2 by the GGUFs: ${calls.map((c) => `${c.role} ${c.n} calls, ${c.out} tokens, ${((c.out / c.ms) * 1000).toFixed(1)} tokens/s`).join('; ')}`,
    );
    console.log(
      `managed TRL: TRL rewards = lab rewards ${equal}/${compared}; seconds per GRPO step ${perStep.join(', ')}; ` +
        `run ${runSeconds.toFixed(0)} s; whole test ${((Date.now() - t0) / 1000).toFixed(0)} s`,
    );
  });
});
