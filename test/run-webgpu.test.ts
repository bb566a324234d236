/**
 * A quick co-evolution run with `--provider webgpu`, killed with `kill -9` inside an isolation gym
 * and resumed: it finishes, records webgpu as the run's device and with every checkpoint, and
 * the lab holds each match's episodes exactly once. Skipped, saying why, without a WebGPU
 * adapter (see models/webgpu-parity.test.ts for the numerical parity of the graphs).
 */
import { execFile, spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { PRESETS } from '../core/presets';
import { probeProvider } from '../models/device';

const run = promisify(execFile);
const BIN = path.resolve(__dirname, '..', 'bin', 'sparring.js');
const tmp = mkdtempSync(path.join(os.tmpdir(), 'sparring-run-webgpu-'));

const webgpu = await probeProvider('webgpu');
const reason = webgpu.available ? webgpu.detail : `skipped: no WebGPU adapter (${webgpu.detail})`;

/**
 * The quick preset cut for software Vulkan: two matches (so exactly one gym, of 16 steps, where
 * the kill lands; not the 40 of test/run.test.ts), two episodes per arena scenario, one SFT epoch
 * and one gate episode per scenario.
 */
function config(): string {
  const c = structuredClone(PRESETS.smoke.config);
  c.arena.episodesPerScenario = 2;
  c.stopping.nMin = 2;
  c.stopping.nMax = 2;
  c.bootstrap.sft.epochs = 1;
  c.eval.gateEpisodesPerScenario = 1;
  c.gym.da.steps = 16;
  c.gym.ca.steps = 16;
  const file = path.join(tmp, 'quick-webgpu.json');
  writeFileSync(file, JSON.stringify(c));
  return file;
}

describe.skipIf(!webgpu.available)(`sparring run --provider webgpu (${reason})`, () => {
  it('completes after kill -9 mid-gym and --resume, recording webgpu for the run and its checkpoints', async () => {
    const db = path.join(tmp, 'lab.db');
    const killed = await new Promise<string>((resolve, reject) => {
      const child = spawn(process.execPath, [BIN, 'run', '--config', config(), '--provider', 'webgpu', '--db', db], { stdio: ['ignore', 'ignore', 'pipe'] });
      let err = '';
      child.stderr.on('data', (d: Buffer) => {
        err += d.toString();
        const steps = [...err.matchAll(/gym: (?:DA\d → DA\d|CA\d → CA\d) .*: (\d+)\/(\d+)\n/g)];
        if (steps.some((m) => Number(m[1]) < Number(m[2]))) child.kill('SIGKILL');
      });
      child.on('exit', (code, signal) => (signal === 'SIGKILL' ? resolve(err) : reject(new Error(`run ended (${code}) before a gym: ${err}`))));
    });
    expect(killed).toMatch(/run R1: device: webgpu — webgpu requested/);
    expect(killed).not.toMatch(/held-out evaluation/);

    // The config now names webgpu, so the resume runs there without --provider.
    const { stdout, stderr } = await run(process.execPath, [BIN, 'run', '--resume', 'R1', '--db', db, '--json'], { maxBuffer: 1 << 24 });
    expect(stderr).toMatch(/run R1: device: webgpu/);
    const r = JSON.parse(stdout) as {
      status: string;
      device: { provider: string; requested: string };
      matches: unknown[];
      checkpoints: { name: string; provider: string | null }[];
    };
    expect(r.status).toBe('finished');
    expect(r.device).toMatchObject({ requested: 'webgpu', provider: 'webgpu' });
    expect(r.checkpoints.length).toBeGreaterThanOrEqual(3);
    for (const c of r.checkpoints) expect(c.provider, c.name).toBe('webgpu');

    const sql = new Database(db, { readonly: true });
    expect(JSON.parse(sql.prepare("SELECT device_json FROM runs WHERE id = 'R1'").pluck().get() as string)).toMatchObject({ provider: 'webgpu' });
    const perMatch = sql.prepare("SELECT match_id, COUNT(*) AS n FROM episodes WHERE match_id LIKE 'R1-M%' GROUP BY match_id").all() as { n: number }[];
    expect(perMatch.length).toBe(r.matches.length);
    for (const m of perMatch) expect(m.n).toBe(20);
    sql.close();
  }, 600_000);
});
