/**
 * `sparring bench` and `sparring export-model`: the JSON contract (one document on stdout,
 * progress on stderr), not the speed. `bench --json` runs the real bin in a child process; the
 * other commands run the same commander program in-process (test/support/cli-in-process.ts),
 * which spares a node + tsx + onnxruntime start-up each.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { InferenceSession } from 'onnxruntime-node';
import { afterAll, describe, expect, it } from 'vitest';
import { bankingDomain } from '../../domain-files';
import { DaModel } from '../../../models/da-model';
import { checkpointStore } from '../../store/checkpoint-store';
import { openSqliteStore } from '../../store/sqlite-store';
import { sparringInProcess } from '../../../test/support/cli-in-process';

const run = promisify(execFile);
const BIN = path.resolve(__dirname, '..', '..', '..', 'bin', 'sparring.js');
const tmp = mkdtempSync(path.join(os.tmpdir(), 'sparring-bench-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

/** `sparring ...args` through bin/sparring.js in a child process. */
async function sparringBin(args: string[], extraEnv: Record<string, string> = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, [BIN, ...args], {
      cwd: tmp,
      env: { ...process.env, SPARRING_DB: path.join(tmp, 'default.db'), ...extraEnv },
    });
    return { code: 0, stdout, stderr };
  } catch (e) {
    const err = e as { code: number; stdout: string; stderr: string };
    return { code: err.code, stdout: err.stdout, stderr: err.stderr };
  }
}

/** `sparring ...args` in this process, with sparringBin's working directory and SPARRING_DB. */
const sparring = (args: string[]) => sparringInProcess(args, { SPARRING_DB: path.join(tmp, 'default.db') }, tmp);

describe('sparring bench', () => {
  it('--json prints every figure as one document, with progress on stderr', async () => {
    // The GGUF part on the CPU: the software Vulkan device a CI box may have is slower than it.
    const r = await sparringBin(['bench', '--json', '--rounds', '1', '--round-ms', '5', '--threads', '1'], { SPARRING_GGUF_GPU: 'cpu' });
    expect(r.code, r.stderr).toBe(0);
    const doc = JSON.parse(r.stdout) as Record<string, unknown>;
    for (const key of [
      'da_forward_per_s_b1',
      'da_forward_per_s_b512',
      'raw_ort_forward_per_s_b512',
      'da_forward_b512_over_raw',
      'train_step_per_s_b256',
      'grpo_samples_per_s',
      'arena_episodes_per_s',
      'mlp_forward_per_s_b1',
      'mlp_forward_per_s_b512',
      'mlp_train_step_per_s_b256',
      'env_in_process_steps_per_s',
      'env_ws_steps_per_s',
      'env_http_steps_per_s',
      'env_ws_over_in_process',
      'env_http_over_in_process',
      'llm_http_episodes_per_s',
      'llm_in_process_episodes_per_s',
      'llm_http_over_in_process',
      'llm_http_over_arena',
      'gguf_tokens_per_s',
    ]) {
      expect(typeof doc[key], key).toBe('number');
      expect(doc[key] as number, key).toBeGreaterThan(0);
    }
    expect(doc.machine).toMatchObject({ provider: 'cpu', intraOpNumThreads: 1 });
    expect(r.stderr).toMatch(/bench: GRPO with rollouts/);
    expect(r.stderr).toMatch(/bench: env WebSocket/);
    expect(doc.env_ws_over_in_process).toBeCloseTo((doc.env_ws_steps_per_s as number) / (doc.env_in_process_steps_per_s as number), 2);
    expect(doc.llm).toMatchObject({ concurrency: 8 });
    expect((doc.llm as { callsPerEpisode: number }).callsPerEpisode).toBeGreaterThan(1);
    expect(doc.gguf).toMatchObject({ gpu: 'cpu', threads: 1 });
  }, 240_000);

  it('prints a table without --json and rejects unknown parts', async () => {
    const r = await sparring(['bench', '--only', 'mlp', '--rounds', '1', '--round-ms', '5']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/mlp_forward_per_s_b512 +[\d,]+ +samples\/s/);
    expect(r.stdout).not.toMatch(/da_forward/);
    const bad = await sparring(['bench', '--only', 'gpu']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--only takes a comma-separated list of da, mlp, env, llm, gguf, got "gpu"/);
  }, 60_000);
});

describe('sparring export-model', () => {
  it('writes a checkpoint as an .onnx that onnxruntime loads, and never overwrites without --force', async () => {
    const db = path.join(tmp, 'lab.db');
    const lab = openSqliteStore(db);
    const model = await DaModel.create({
      intents: bankingDomain().taxonomy.map((t) => ({ intent: t.intent, tool: t.tool })),
      seed: 1,
      net: { embedDim: 8, hidden: 16, hashing: { buckets: 1024, bagLength: 32, wordNgrams: [1], charNgrams: [3] } },
    });
    checkpointStore(lab.db).save({ role: 'DA', source: 'sft', snapshot: await model.snapshot() });
    await model.dispose();
    lab.close();

    const out = path.join(tmp, 'models', 'da.onnx');
    const r = await sparring(['export-model', 'latest', '--out', out, '--json', '--db', db]);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({
      checkpoint: 'DA0',
      role: 'DA',
      out,
      inputs: ['bag_idx', 'bag_w', 'state', 'mask'],
      outputs: ['action_logp', 'intent_logp'],
    });
    const session = await InferenceSession.create(out);
    expect(session.inputNames).toEqual(['bag_idx', 'bag_w', 'state', 'mask']);
    await session.release();

    const again = await sparring(['export-model', 'DA0', '--out', out, '--db', db]);
    expect(again.code).toBe(2);
    expect(again.stderr).toMatch(/exists; pass --force/);
    const missing = await sparring(['export-model', 'CA2', '--db', db]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/no CA checkpoint CA2: this lab holds no CA checkpoints yet/);
    expect(existsSync(path.join(tmp, 'CA2.onnx'))).toBe(false);
  }, 60_000);
});
