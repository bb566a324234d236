/**
 * Issue 15 item 3, end to end: a quick run whose DA gyms an external trainer runs
 * (gym.da.trainer 'external', two DA gyms by a fixed budget) reaches 'waiting-for-trainer' in a
 * `sparring run` process, with its gym job and export; killed with SIGKILL there, it resumes
 * waiting (the same job, the export untouched); `checkpoints add` refuses bad input by name and,
 * with no process running the run, registers the trainer's result (a builtin DA as an .onnx, the
 * stand-in for a trainer); resumed, the run goes on with it; the second gym's job is cancelled
 * from another connection while the run waits live, and the run keeps its DA, says so, and
 * finishes with the right lineage. A second run, paused while waiting, is stopped and its job
 * ends with it.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import type { GymJobInfo, RunDetail } from '../../core/contract/contract';
import { exportCheckpointOnnx } from '../../models/export';
import { checkpointStore } from '../store/checkpoint-store';
import { gymJobStore } from '../store/gym-job-store';
import { openSqliteStore } from '../store/sqlite-store';
import { cancelGymJob, GYM_JOB, gymJobFolder, registerTrainerResult } from './external-gym';
import { EXTERNAL_DA_QUICK, until } from './external-gym.fixture';
import { createRunService } from './service';

const BIN = path.resolve(__dirname, '..', '..', 'bin', 'sparring.js');
const tmp = mkdtempSync(path.join(os.tmpdir(), 'sparring-ext-gym-'));
const db = path.join(tmp, 'lab.db');
const configFile = path.join(tmp, 'external-da.json');

const config = EXTERNAL_DA_QUICK;
writeFileSync(configFile, JSON.stringify(config));

const children: ReturnType<typeof spawn>[] = [];
afterAll(() => children.forEach((c) => c.exitCode === null && c.kill('SIGKILL')));

function read<T>(sql: string, ...args: unknown[]): T | undefined {
  if (!existsSync(db)) return undefined;
  const d = new Database(db, { readonly: true, fileMustExist: true });
  try {
    return d.prepare(sql).get(...args) as T | undefined;
  } catch {
    return undefined; // the lab is still being created (no tables yet)
  } finally {
    d.close();
  }
}

describe('a gym handed to an external trainer', () => {
  it('waits (surviving kill -9), takes the registered checkpoint or a cancel, and finishes with the right lineage', { timeout: 600_000 }, async () => {
    // 1. `sparring run` reaches the DA gym and waits; then it is killed with SIGKILL.
    const child = spawn(process.execPath, [BIN, '--db', db, '--create', 'run', '--config', configFile], {
      env: { ...process.env, ORT_DISABLE_TELEMETRY: '1' },
    });
    children.push(child);
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    await until(
      'the run to wait for a trainer',
      () =>
        read<{ v: string }>("SELECT json_extract(snapshot_json, '$.value') AS v FROM runs WHERE id = 'R1'")?.v === 'waiting-for-trainer' &&
        read('SELECT id FROM gym_jobs')
          ? true
          : null,
      400_000,
    );
    await until('the CLI to print the commands', () => (stderr.includes('checkpoints add') ? true : null), 10_000);
    child.kill('SIGKILL');
    await new Promise((r) => child.once('close', r));
    expect(stderr).toContain('waiting for an external trainer: DA gym 1 (DA0 against frozen CA0), gym job J1');
    expect(stderr).toContain('npx sparring checkpoints add --role DA --model MODEL.onnx --parent DA0 --run R1 --gym 1');
    expect(stderr).toContain('python trainers/train_da.py --data');

    const folder = gymJobFolder(db, 'R1', 1);
    const points = readFileSync(path.join(folder, 'gym.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { run: string; gym: number; role: string; from: string; frozen_opponent: string; reset: { seed: number } });
    expect(points.length).toBeGreaterThan(0);
    for (const p of points) expect([p.run, p.gym, p.role, p.from, p.frozen_opponent]).toEqual(['R1', 1, 'DA', 'DA0', 'CA0']);
    const manifest = JSON.parse(readFileSync(path.join(folder, 'job.json'), 'utf8')) as Record<string, unknown>;
    expect(manifest).toMatchObject({
      run: 'R1',
      gym: 1,
      role: 'DA',
      from: 'DA0',
      frozen_opponent: 'CA0',
      match_id: 'R1-M1',
      decision_points: points.length,
      failure_share: 0.7,
    });
    expect((manifest.rewards as { da: Record<string, number> }).da.toolCorrect).toBe(1);
    const exportedAt = statSync(path.join(folder, 'gym.jsonl')).mtimeMs;

    // 2. Resumed (in process), it waits again on the same job, the export untouched.
    let service = createRunService({ dbPath: db, trainerPollMs: 50 });
    // The trainer's side (checkpoints add, gym cancel) writes through its own connection, as another process would.
    const lab = openSqliteStore(db);
    try {
      const jobs = gymJobStore(lab.db);
      await service.resume('R1');
      await until('the resumed run to wait', () => (service.get('R1').phase === 'waiting-for-trainer' ? true : null), 30_000);
      await new Promise((r) => setTimeout(r, 300)); // a few polls
      expect(service.get('R1').phase).toBe('waiting-for-trainer');
      expect(jobs.list()).toHaveLength(1);
      expect(statSync(path.join(folder, 'gym.jsonl')).mtimeMs).toBe(exportedAt);
      const detail: RunDetail = service.get('R1');
      expect(detail.gymJobs).toHaveLength(1);
      expect(detail.gymJobs![0]).toMatchObject({ id: 'J1', gym: 1, role: 'DA', from: 'DA0', opponent: 'CA0', status: 'waiting', exportPath: folder });
      expect(detail.gymJobs![0]!.commands!.at(-1)).toBe(`npx sparring checkpoints add --role DA --model MODEL.onnx --parent DA0 --run R1 --gym 1 --db ${db}`);

      // 3. The stand-in for the trainer: a builtin DA as an .onnx (DA0's weights, as export-model writes them).
      const checkpoints = checkpointStore(lab.db);
      const da0 = checkpoints.resolve('DA0', 'DA');
      const onnx = path.join(tmp, 'trained-da.onnx');
      writeFileSync(onnx, await exportCheckpointOnnx(da0.snapshot, { name: 'DA0', role: 'DA', source: da0.source, generation: 0 }));
      const ca0 = checkpoints.resolve('CA0', 'CA');
      const caOnnx = path.join(tmp, 'ca.onnx');
      writeFileSync(caOnnx, await exportCheckpointOnnx(ca0.snapshot, { name: 'CA0', role: 'CA', source: ca0.source, generation: 0 }));
      const notOnnx = path.join(tmp, 'notes.txt');
      writeFileSync(notOnnx, 'not a model');
      const add = (over: Partial<Parameters<typeof registerTrainerResult>[1]>) =>
        registerTrainerResult(lab.db, { runId: 'R1', gym: 1, role: 'DA', model: onnx, parent: 'DA0', ...over });
      await expect(add({ runId: 'R9' })).rejects.toThrow('no run R9 in this lab');
      await expect(add({ gym: 2 })).rejects.toThrow('run R1 has no gym job for gym 2; its jobs: gym 1 (J1, waiting)');
      await expect(add({ role: 'CA' })).rejects.toThrow('gym job J1 trains the DA, not the CA (--role CA)');
      await expect(add({ parent: 'CA0' })).rejects.toThrow('gym job J1 trains from DA0, not CA0 (--parent CA0)');
      await expect(add({ model: path.join(tmp, 'missing.onnx') })).rejects.toThrow(/--model .*missing\.onnx: no such file/);
      await expect(add({ model: notOnnx })).rejects.toThrow(/--model .*notes\.txt is not an ONNX model/);
      await expect(add({ model: caOnnx })).rejects.toThrow(/holds a CA policy, not a DA one/);
      await expect(add({ model: 'qwen-da-lora' })).rejects.toThrow(/--model qwen-da-lora: no LLM endpoint or GGUF model of that name in this lab/);
      expect(checkpoints.list('DA').map((c) => c.name)).toEqual(['DA0']); // nothing half-written
      expect(jobs.get('J1')!.status).toBe('waiting');

      // 4. Registered while no process runs it (this one closed while waiting); resumed, the run goes
      //    on with DA1 and reaches gym 2, whose cancel the live run reads from the lab at its next poll.
      await service.close();
      const { checkpoint, job } = await add({});
      expect(checkpoint).toMatchObject({ name: 'DA1', role: 'DA', parent: 'DA0', generation: 1, source: 'external', runId: 'R1' });
      expect(checkpoint.trainingData).toEqual([
        { kind: 'match', id: 'R1-M1' },
        { kind: GYM_JOB, id: 'J1' },
      ]);
      expect(job).toMatchObject({ status: 'done', checkpoint: 'DA1' });
      await expect(add({})).rejects.toThrow('gym job J1 (run R1, gym 1) is done (DA1), not waiting for a trainer');
      service = createRunService({ dbPath: db, trainerPollMs: 50 });
      await service.resume('R1');
      const j2 = await until<GymJobInfo>('gym 2 to wait', () => jobs.forGym('R1', 2), 300_000);
      expect(j2).toMatchObject({ id: 'J2', role: 'DA', from: 'DA1', opponent: 'CA0', matchId: 'R1-M2', status: 'waiting' });
      expect(cancelGymJob(lab.db, 'J2').status).toBe('cancelled');
      expect(() => cancelGymJob(lab.db, 'J2')).toThrow('gym job J2 (run R1, gym 2) is cancelled, not waiting');
      expect(() => cancelGymJob(lab.db, 'J7')).toThrow('no gym job J7 in this lab');

      const d = await until(
        'the run to finish',
        () => {
          const r = service.get('R1');
          return ['finished', 'failed'].includes(r.status) ? r : null;
        },
        300_000,
      );
      expect(d.status, d.error ?? '').toBe('finished');
      expect(d.gyms).toEqual([
        { role: 'DA', from: 'DA0', to: 'DA1', afterMatch: 1, note: 'trained by an external trainer (gym job J1)' },
        { role: 'DA', from: 'DA1', to: 'DA1', afterMatch: 2, note: 'gym job J2 cancelled (cancelled by the user): DA1 kept unchanged' },
      ]);
      expect(d.matchSummaries.map((m) => m.da)).toEqual(['DA0', 'DA1', 'DA1']);
      expect(checkpoints.lineage('DA1').map((c) => c.name)).toEqual(['DA1', 'DA0']);
      expect((d.evaluation as { checkpoints: { da: string }[] }).checkpoints.map((c) => c.da)).toEqual(['DA0', 'DA1']);
      expect(d.gymJobs!.map((j) => [j.id, j.status, j.checkpoint])).toEqual([
        ['J1', 'done', 'DA1'],
        ['J2', 'cancelled', null],
      ]);
      expect(d.gymJobs!.every((j) => j.commands === undefined)).toBe(true);

      // 5. Another run waiting: a pause takes effect at once and keeps the job waiting; the paused
      //    run can still be stopped, and its job ends with it.
      const { runId } = await service.start({ preset: 'custom', configJson: JSON.stringify(config), seed: 2 });
      const j = await until<GymJobInfo>(`${runId} to wait`, () => (service.get(runId).phase === 'waiting-for-trainer' ? jobs.forGym(runId, 1) : null), 300_000);
      service.pause(runId);
      await until('the pause', () => (service.get(runId).status === 'paused' ? true : null), 5_000);
      expect(jobs.get(j.id)!.status).toBe('waiting');
      service.stop(runId);
      await until('the stop', () => (service.get(runId).status === 'stopped' ? true : null), 5_000);
      expect(jobs.get(j.id)).toMatchObject({ status: 'cancelled', note: 'the run was stopped' });
    } finally {
      await service.close();
      lab.close();
    }
  });
});
