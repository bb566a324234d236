/**
 * Issue 15, an LLM coming back from an external trainer: a quick run whose DA gyms an external
 * trainer runs (gym.da.trainer 'external', two DA gyms by a fixed budget) waits; the trainer's
 * result is an LLM endpoint — DA0 served over HTTP by `serve-model` (in process, no network), saved
 * with `models add` — registered with `checkpoints add --model NAME`. DA1 is then an LLM in the
 * lineage with its spec; the run's later matches play it through the endpoint (their DA calls in
 * the lab's LLM ledger), its next DA gym is handed out again (only an LLM may come back for it),
 * a run killed while waiting there resumes waiting, and the run finishes with DA0 → DA1 → DA2 and
 * the held-out evaluation of all three. Refusals by name: an unknown model, a CA endpoint offered
 * for the DA, a GGUF file that is missing or is not one, builtin weights for an LLM's gym.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { GymJobInfo } from '../../core/contract/contract';
import { BuiltinCa } from '../../models/builtin-ca';
import { BuiltinDa } from '../../models/builtin-da';
import { CaModel } from '../../models/ca-model';
import { DaModel } from '../../models/da-model';
import { exportCheckpointOnnx } from '../../models/export';
import { bankingDomain } from '../domain-files';
import { serveModel } from '../llm/serve-model';
import type { ServedModel } from '../llm/serve-model';
import { checkpointStore, describeLlm } from '../store/checkpoint-store';
import { gymJobStore } from '../store/gym-job-store';
import { llmStore } from '../store/llm-store';
import { openSqliteStore } from '../store/sqlite-store';
import { registerTrainerResult } from './external-gym';
import { EXTERNAL_DA_QUICK, until } from './external-gym.fixture';
import { createRunService } from './service';

const tmp = mkdtempSync(path.join(os.tmpdir(), 'sparring-ext-llm-'));
const db = path.join(tmp, 'lab.db');

const config = EXTERNAL_DA_QUICK;

const closing: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const c of closing.reverse()) await c();
});

describe('an LLM handed back by an external trainer', () => {
  it(
    'joins the lineage with its spec, plays the role through its endpoint, gets the next gym handed out, survives a restart',
    { timeout: 900_000 },
    async () => {
      let service = createRunService({ dbPath: db, trainerPollMs: 50 });
      closing.push(() => service.close());
      const lab = openSqliteStore(db);
      closing.push(async () => lab.close());
      const jobs = gymJobStore(lab.db);
      const checkpoints = checkpointStore(lab.db);
      const { runId } = await service.start({ preset: 'custom', configJson: JSON.stringify(config), seed: 1 });
      const j1 = await until<GymJobInfo>('gym 1 to wait', () => (service.get(runId).phase === 'waiting-for-trainer' ? jobs.forGym(runId, 1) : null), 600_000);
      expect(j1).toMatchObject({ role: 'DA', from: 'DA0', opponent: 'CA0', status: 'waiting' });

      // The trainer's stand-in: DA0 served over HTTP as "the new adapter", saved in the lab by name;
      // and a CA served the same way, which cannot play the DA.
      const domain = bankingDomain();
      const daModel = await DaModel.fromSnapshot(checkpoints.resolve('DA0', 'DA').snapshot, {});
      const served: ServedModel = await serveModel({ da: new BuiltinDa(daModel, { name: 'DA0' }), modelId: 'da0-lora', token: null });
      closing.push(async () => (await served.close(), await daModel.dispose()));
      const caModel = await CaModel.fromSnapshot(checkpoints.resolve('CA0', 'CA').snapshot, {});
      const servedCa = await serveModel({ ca: new BuiltinCa(caModel, domain.bank, { name: 'CA0' }), modelId: 'ca0-lora', token: null });
      closing.push(async () => (await servedCa.close(), await caModel.dispose()));
      const llms = llmStore(lab.db);
      llms.addEndpoint({ name: 'da-lora', baseUrl: served.baseUrl, model: 'da0-lora', apiKeyEnv: null, toolCalls: 'native', maxConcurrency: 8 });
      llms.addEndpoint({ name: 'cust-lora', baseUrl: servedCa.baseUrl, model: 'ca0-lora', apiKeyEnv: null, toolCalls: 'text', maxConcurrency: 8 });

      const add = (gym: number, parent: string, model: string) => registerTrainerResult(lab.db, { runId, gym, role: 'DA', model, parent });
      const notGguf = path.join(tmp, 'adapter.gguf');
      writeFileSync(notGguf, 'not a gguf file');
      await expect(add(1, 'DA0', 'qwen-lora')).rejects.toThrow(
        '--model qwen-lora: no LLM endpoint or GGUF model of that name in this lab (save it first: sparring models add qwen-lora --base-url URL --model M, or --gguf FILE), and no such file',
      );
      await expect(add(1, 'DA0', 'cust-lora')).rejects.toThrow(
        /--model cust-lora: the endpoint .* \(model ca0-lora\) did not answer a DA turn, so it cannot play the DA/,
      );
      await expect(add(1, 'DA0', `gguf:${path.join(tmp, 'missing.gguf')}`)).rejects.toThrow(/no such GGUF file .*missing\.gguf/);
      await expect(add(1, 'DA0', `gguf:${notGguf}`)).rejects.toThrow(/adapter\.gguf is not a GGUF file \(no GGUF magic\)/);
      await expect(add(1, 'DA0', notGguf)).rejects.toThrow(`a GGUF file is given as gguf:${notGguf}`);
      expect(checkpoints.list('DA').map((c) => c.name)).toEqual(['DA0']); // nothing half-written
      expect(jobs.get(j1.id)!.status).toBe('waiting');

      // 1. The LLM comes back: DA1, an LLM child of DA0 with its spec; the live run goes on with it.
      const completionsBefore = served.stats.completions;
      const { checkpoint: da1 } = await add(1, 'DA0', 'da-lora');
      expect(da1).toMatchObject({ name: 'DA1', role: 'DA', parent: 'DA0', generation: 1, source: 'external', runId, weightBytes: 0 });
      expect(da1.llm).toEqual({ kind: 'endpoint', spec: 'da-lora', baseUrl: served.baseUrl, model: 'da0-lora' });
      expect(served.stats.completions).toBe(completionsBefore + 1); // the role probe: one DA turn

      // 2. Its next gym is handed out again, from DA1; only an LLM can follow an LLM.
      const j2 = await until<GymJobInfo>('gym 2 to wait', () => jobs.forGym(runId, 2), 600_000);
      expect(j2).toMatchObject({ role: 'DA', from: 'DA1', matchId: `${runId}-M2`, status: 'waiting' });
      expect(
        service
          .get(runId)
          .gymJobs!.find((j) => j.id === j2.id)!
          .commands!.at(-1),
      ).toBe(`npx sparring checkpoints add --role DA --model ENDPOINT --parent DA1 --run ${runId} --gym 2 --db ${db}`);
      const onnx = path.join(tmp, 'da0.onnx');
      const da0 = checkpoints.resolve('DA0', 'DA');
      writeFileSync(onnx, await exportCheckpointOnnx(da0.snapshot, { name: 'DA0', role: 'DA', source: da0.source, generation: 0 }));
      await expect(add(2, 'DA1', onnx)).rejects.toThrow(
        /gym job J2 trains from DA1, an LLM \(LLM da-lora: endpoint .*, model da0-lora\); what comes back for it is an LLM too/,
      );

      // 3. Killed while waiting (the service closed with the run live), resumed by another: it waits on the same job.
      await service.close();
      service = createRunService({ dbPath: db, trainerPollMs: 50 });
      expect(service.get(runId).status).toBe('running');
      await service.resume(runId);
      await until('the resumed run to wait', () => (service.get(runId).phase === 'waiting-for-trainer' ? true : null), 60_000);
      expect(jobs.list(runId).map((j) => [j.id, j.status])).toEqual([
        ['J1', 'done'],
        ['J2', 'waiting'],
      ]);
      const { checkpoint: da2 } = await add(2, 'DA1', 'da-lora');
      expect(da2).toMatchObject({ name: 'DA2', parent: 'DA1', generation: 2, source: 'external' });

      const d = await until(
        'the run to finish',
        () => {
          const r = service.get(runId);
          return ['finished', 'failed'].includes(r.status) ? r : null;
        },
        600_000,
      );
      expect(d.status, d.error ?? '').toBe('finished');
      const spec = describeLlm(da1.llm!);
      expect(d.gyms).toEqual([
        { role: 'DA', from: 'DA0', to: 'DA1', afterMatch: 1, llm: 'da-lora', note: `trained by an external trainer (gym job J1): ${spec}` },
        { role: 'DA', from: 'DA1', to: 'DA2', afterMatch: 2, llm: 'da-lora', note: `trained by an external trainer (gym job J2): ${spec}` },
      ]);
      expect(d.matchSummaries.map((m) => m.da)).toEqual(['DA0', 'DA1', 'DA2']);
      expect(checkpoints.lineage('DA2').map((c) => [c.name, c.llm?.spec ?? null])).toEqual([
        ['DA2', 'da-lora'],
        ['DA1', 'da-lora'],
        ['DA0', null],
      ]);
      expect((d.evaluation as { checkpoints: { da: string; heldout: { episodes: number } }[] }).checkpoints.map((c) => c.da)).toEqual(['DA0', 'DA1', 'DA2']);

      // The matches after the LLM came back played it through the endpoint: each agent turn one DA call
      // in the ledger, the match recording the checkpoint; the builtin DA0's match made none.
      const calls = (matchId: string) =>
        lab.db.prepare("SELECT COUNT(*) FROM llm_calls WHERE role = 'DA' AND endpoint = 'da-lora' AND episode_id LIKE ?").pluck().get(`${matchId}:%`) as number;
      const agentTurns = (matchId: string) =>
        lab.db
          .prepare("SELECT COUNT(*) FROM turns WHERE role = 'agent' AND episode_id IN (SELECT id FROM episodes WHERE match_id = ?)")
          .pluck()
          .get(matchId) as number;
      expect(calls(`${runId}-M1`)).toBe(0);
      for (const [m, name] of [
        [`${runId}-M2`, 'DA1'],
        [`${runId}-M3`, 'DA2'],
      ] as const) {
        expect(agentTurns(m)).toBeGreaterThan(0);
        expect(calls(m)).toBe(agentTurns(m));
        expect(lab.db.prepare('SELECT da_spec, da_checkpoint_name FROM matches WHERE id = ?').get(m)).toEqual({ da_spec: name, da_checkpoint_name: name });
      }
      // The held-out evaluation of DA1 and DA2 played the endpoint too (its calls recorded, its episodes not stored).
      expect(lab.db.prepare("SELECT COUNT(*) FROM llm_calls WHERE endpoint = 'da-lora' AND episode_id NOT LIKE ?").pluck().get(`${runId}-M%`)).toBeGreaterThan(
        0,
      );
    },
  );
});
