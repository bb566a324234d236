import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { InferenceSession, Tensor } from 'onnxruntime-node';
import { afterAll, describe, expect, it } from 'vitest';
import { bankingDomain } from '../test/support/banking-domain';
import { ScriptedCa } from '../core/agents/scripted-ca';
import { ScriptedDa } from '../core/agents/scripted-da';
import { runEpisode } from '../core/arena/match';
import { DEFAULT_CONFIG } from '../core/config';
import { judgeEpisode } from '../core/judge/judge';
import { recordedFromTranscript, sliceDecisionPoints } from '../core/rl/da-rollout';
import { CustomerEnvironment } from '../core/world/environment';
import { CaModel } from './ca-model';
import { CA_STATE_FEATURES, encodeCaObservations } from './ca-net';
import { DaModel } from './da-model';
import { BagCache, N_ACTIONS, encodeObservations } from './da-net';
import { exportCheckpointOnnx, exportForwardOnnx, readCheckpointOnnx, readExportInfo, splitWeights } from './export';
import { buildForward } from './graph';
import { mlpForward, mlpSpec } from './mlp';
import { initParams } from './params';
import { ForwardRunner } from './runner';

const dir = mkdtempSync(join(tmpdir(), 'sparring-export-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('exportForwardOnnx', () => {
  const spec = mlpSpec('tiny', [12, 16, 5]);
  const weights = initParams(spec.params, 7);
  const B = 6;
  const x = Float32Array.from({ length: B * 12 }, (_, i) => Math.sin(i * 1.7));

  it('gives a standalone model that a fresh onnxruntime session runs with the in-process outputs', async () => {
    const bytes = exportForwardOnnx(spec, mlpForward, weights, {
      description: 'toy export',
      metadata: { 'sparring.model_json': JSON.stringify({ sizes: [12, 16, 5] }), 'sparring.checkpoint': 'DA9' },
    });
    const path = join(dir, 'tiny.onnx');
    writeFileSync(path, bytes);

    // In-process: the same forward with weights fed as inputs, through the runner.
    const inProcess = await ForwardRunner.create(buildForward(spec, mlpForward));
    const feeds = {
      x: { data: x, dims: [B, 12] },
      ...Object.fromEntries(Object.entries(weights).map(([k, w]) => [k, { data: w, dims: spec.params[k]!.shape }])),
    };
    const expected = (await inProcess.run(feeds)).probs!.data as Float32Array;
    await inProcess.dispose();

    // Standalone: plain onnxruntime, from the file, fed nothing but the batch input.
    const session = await InferenceSession.create(path);
    expect(session.inputNames).toEqual(['x']);
    expect(session.outputNames).toEqual(['probs']);
    const got = (await session.run({ x: new Tensor('float32', x, [B, 12]) })).probs!;
    expect(got.dims).toEqual([B, 5]);
    const data = got.data as Float32Array;
    expect(data.length).toBe(expected.length);
    for (let i = 0; i < data.length; i++) expect(data[i]).toBeCloseTo(expected[i]!, 6);
    await session.release();

    // And from the bytes, with the metadata intact.
    const fromBytes = await InferenceSession.create(bytes);
    const again = (await fromBytes.run({ x: new Tensor('float32', x, [B, 12]) })).probs!.data as Float32Array;
    expect(Array.from(again)).toEqual(Array.from(data));
    await fromBytes.release();
    const info = readExportInfo(bytes);
    expect(info.description).toBe('toy export');
    expect(info.metadata['sparring.checkpoint']).toBe('DA9');
    expect(JSON.parse(info.metadata['sparring.model_json']!)).toEqual({ sizes: [12, 16, 5] });
    expect(info.inputs).toEqual(['x']);
  });

  it('refuses missing, mis-sized or non-finite weights', () => {
    const { w0: _w0, ...missing } = weights;
    expect(() => exportForwardOnnx(spec, mlpForward, missing as typeof weights)).toThrow(/no weights for parameter 'w0'/);
    expect(() => exportForwardOnnx(spec, mlpForward, { ...weights, b0: new Float32Array(3) })).toThrow(/'b0' has 3 values, its shape \[16\] needs 16/);
    const nan = Float32Array.from(weights.w1!);
    nan[4] = NaN;
    expect(() => exportForwardOnnx(spec, mlpForward, { ...weights, w1: nan })).toThrow(/'w1' holds NaN at 4/);
  });

  it('splits concatenated snapshot weights by parameter, checking the size', () => {
    const names = Object.keys(spec.params);
    const total = names.reduce((s, k) => s + weights[k]!.length, 0);
    const flat = new Float32Array(total);
    let at = 0;
    for (const k of names) {
      flat.set(weights[k]!, at);
      at += weights[k]!.length;
    }
    const back = splitWeights(spec.params, new Uint8Array(flat.buffer));
    for (const k of names) expect(Array.from(back[k]!)).toEqual(Array.from(weights[k]!));
    // Unaligned bytes are copied, not misread.
    const shifted = new Uint8Array(flat.byteLength + 1);
    shifted.set(new Uint8Array(flat.buffer), 1);
    expect(Array.from(splitWeights(spec.params, shifted.subarray(1)).b1!)).toEqual(Array.from(weights.b1!));
    expect(() => splitWeights(spec.params, new Uint8Array(flat.buffer, 0, 8), 'checkpoint DA3')).toThrow(
      /checkpoint DA3: 2 weights stored, the model's parameters need/,
    );
  });
});

describe('exportCheckpointOnnx', () => {
  const domain = bankingDomain();
  const small = { embedDim: 8, hidden: 16, hashing: { buckets: 1024, bagLength: 32, wordNgrams: [1, 2], charNgrams: [3] } };
  const label = (role: 'DA' | 'CA') => ({ name: `${role}3`, role, source: 'gym', generation: 3 });

  it('a DA checkpoint runs standalone with the outputs of the in-process model', async () => {
    const scenario = domain.scenarios.find((x) => x.set === 'arena')!;
    const o = await runEpisode({
      domain,
      scenario,
      seed: 4,
      da: new ScriptedDa(),
      ca: new ScriptedCa(domain),
      judge: judgeEpisode,
      config: DEFAULT_CONFIG,
      matchId: 'X',
      index: 0,
    });
    const obs = sliceDecisionPoints(recordedFromTranscript(o.transcript, scenario, 4), DEFAULT_CONFIG.arena.maxDaTurns).map((p) => p.obs);
    const model = await DaModel.create({ intents: domain.taxonomy.map((t) => ({ intent: t.intent, tool: t.tool })), seed: 3, net: small });
    await model.supervisedStep(
      obs,
      obs.map(() => ({ choice: 'transfer_to_human' as const })),
      { lr: 1e-2 },
    ); // weights off their init
    const expected = await model.predict(obs);
    const bytes = await exportCheckpointOnnx(await model.snapshot(), label('DA'));
    await model.dispose();

    const info = readExportInfo(bytes);
    expect(info.inputs).toEqual(['bag_idx', 'bag_w', 'state', 'mask']);
    expect(info.metadata['sparring.checkpoint']).toBe('DA3');
    expect(JSON.parse(info.metadata['sparring.actions']!)).toHaveLength(N_ACTIONS);
    expect(info.description).toMatch(/DA checkpoint DA3 \(gym, generation 3\)/);

    const session = await InferenceSession.create(bytes);
    const b = encodeObservations(obs, new BagCache(small.hashing), true);
    const B = obs.length;
    const out = await session.run({
      bag_idx: new Tensor('float32', b.bagIdx, [B, 32]),
      bag_w: new Tensor('float32', b.bagW, [B, 32]),
      state: new Tensor('float32', b.state, [B, b.state.length / B]),
      mask: new Tensor('float32', b.mask, [B, N_ACTIONS]),
    });
    const got = out.action_logp!.data as Float32Array;
    expected.forEach((p, i) => p.actionLogp.forEach((v, j) => expect(got[i * N_ACTIONS + j]).toBeCloseTo(v, 5)));
    await session.release();
  });

  it('a CA checkpoint runs standalone with the outputs of the in-process model', async () => {
    // What the CA sees at its first turn and after the DA's first question.
    const env = new CustomerEnvironment(DEFAULT_CONFIG.arena.maxDaTurns);
    env.reset(
      domain.scenarios.find((x) => x.set === 'arena')!,
      5,
    );
    const obs = [env.observeCustomer()];
    env.step({ role: 'customer', text: 'my card got declined at the store' });
    env.step({ role: 'agent', raw: JSON.stringify({ thinking: 't', action_type: 'speak', content: 'Could you tell me more?', tool_args: {} }) });
    obs.push(env.observeCustomer());
    const model = await CaModel.create(domain.taxonomy, { seed: 2, sizes: { embedDim: 8, hidden: 16, hashing: small.hashing } });
    const expected = await model.headLogProbs(obs);
    const bytes = await exportCheckpointOnnx(await model.snapshot(), label('CA'));
    const b = encodeCaObservations(obs, model.shape, new Map(model.shape.intents.map((n, i) => [n, i])));
    await model.dispose();
    const session = await InferenceSession.create(bytes);
    const L = b.bagIdx.length / 2;
    const out = await session.run({
      intent: new Tensor('int64', b.intent, [2]),
      bag_idx: new Tensor('float32', b.bagIdx, [2, L]),
      bag_w: new Tensor('float32', b.bagW, [2, L]),
      state: new Tensor('float32', b.state, [2, CA_STATE_FEATURES.length]),
    });
    const got = out.logp!.data as Float32Array;
    expect(got.length).toBe(expected.length);
    expected.forEach((v, j) => expect(got[j]).toBeCloseTo(v, 5));
    expect(readExportInfo(bytes).metadata['sparring.role']).toBe('CA');
    await session.release();
  });

  it('reads an exported checkpoint back: the same role, model JSON and weights (what checkpoints add takes)', async () => {
    const da = await DaModel.create({ intents: domain.taxonomy.map((t) => ({ intent: t.intent, tool: t.tool })), seed: 5, net: small });
    const ca = await CaModel.create(domain.taxonomy, { seed: 6, sizes: { embedDim: 8, hidden: 16, hashing: small.hashing } });
    for (const [role, model] of [
      ['DA', da],
      ['CA', ca],
    ] as const) {
      const snap = await model.snapshot();
      const back = await readCheckpointOnnx(await exportCheckpointOnnx(snap, label(role)), 'x.onnx');
      expect(back.role).toBe(role);
      expect(back.snapshot.modelJson).toBe(snap.modelJson);
      expect(back.snapshot.optimiser).toBeNull();
      expect(Buffer.from(back.snapshot.weights).equals(Buffer.from(snap.weights))).toBe(true);
      await model.dispose();
    }
    const plain = exportForwardOnnx(mlpSpec('tiny', [4, 3]), mlpForward, initParams(mlpSpec('tiny', [4, 3]).params, 1));
    await expect(readCheckpointOnnx(plain, 'plain.onnx')).rejects.toThrow(/plain\.onnx carries no sparring\.role/);
    await expect(readCheckpointOnnx(new TextEncoder().encode('{"not": "onnx"}'), 'j.onnx')).rejects.toThrow(/j\.onnx is not an ONNX model/);
  });

  it('names the checkpoint when its snapshot is not a model it knows', async () => {
    const bad = { modelJson: JSON.stringify({ kind: 'da-net', version: 9 }), weights: new Uint8Array(4), optimiser: null };
    await expect(exportCheckpointOnnx(bad, label('DA'))).rejects.toThrow(/checkpoint DA3 cannot be exported: .*version 9/);
  });
});
