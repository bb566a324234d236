/**
 * Parity of the WebGPU execution provider with the CPU one, for every graph the models build: the
 * DA and CA forwards, their SFT and policy-gradient (GRPO) train steps (at T = 1 and at a sampling
 * temperature of 2), and the exported inference
 * model; and a short SFT run on each, compared by the decisions it leads to.
 *
 * Tolerances (float32 throughout; WebGPU's shaders sum in another order than the CPU's kernels
 * and use their own exp/log, so bits differ while values agree). Measured on llvmpipe (Mesa 25)
 * in brackets; the test prints them:
 * - forward probabilities and the exported model's log-probabilities: |Δ| ≤ 1e-5 (FORWARD_ATOL;
 *   seen ≤ 5e-7);
 * - one SFT or GRPO train step: loss and metrics within 1e-5 relative (seen ≤ 3e-7), every updated
 *   weight within 5e-5 (STEP_ATOL; seen ≤ 2.2e-6; AdamW's first step moves a weight by about lr,
 *   1e-3, so this is a twentieth of one step);
 * - a 24-step SFT run: the same greedy decision on at least 97% of 200 held-out utterances
 *   (AGREEMENT; seen 200/200, weights within 3.8e-6). Differences of 1e-6 per step compound over
 *   steps, and an utterance whose top two actions are that close can go either way.
 *
 * On a machine without a WebGPU adapter (no Vulkan, D3D12 or Metal driver; on Linux, Mesa ≥ 24
 * for a software one) the tests are skipped, and the suite's name says why. CI installs Mesa 25
 * from bookworm-backports (.ci/run), whose llvmpipe device runs them.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { Tensor } from 'onnxruntime-node';
import { DA_CHOICES } from '../core/agents/da-actions';
import { CA_LOGITS } from '../core/agents/ca-choices';
import type { CaChoice } from '../core/agents/ca-choices';
import { bankRoutingItems, routingObservation, splitBank } from '../core/rl/demos';
import type { DaTarget } from '../core/rl/demos';
import type { CaObservation } from '../core/world/environment';
import type { CustomerFacts } from '../core/world/backend';
import { bankingDomain } from '../test/support/banking-domain';
import { CaModel } from './ca-model';
import { DaModel } from './da-model';
import type { DaModelOptions } from './da-model';
import { BagCache, N_ACTIONS, encodeObservations } from './da-net';
import { probeProvider } from './device';
import { exportCheckpointOnnx } from './export';
import { createSession } from './session';
import type { SessionSettings } from './session';

const FORWARD_ATOL = 1e-5;
const STEP_ATOL = 5e-5;
const LOSS_RTOL = 1e-5;
const AGREEMENT = 0.97;

// Detected once for the file: a small graph must load and run on WebGPU.
const webgpu = await probeProvider('webgpu');
const reason = webgpu.available ? webgpu.detail : `skipped: no WebGPU adapter (${webgpu.detail})`;

const CPU: SessionSettings = { provider: 'cpu', intraOpNumThreads: 1 };
// A failure to run on WebGPU must fail the test, not fall back quietly.
const GPU: SessionSettings = {
  provider: 'webgpu',
  intraOpNumThreads: 1,
  warn: (l) => {
    throw new Error(l);
  },
};

const domain = bankingDomain();
const intents = domain.taxonomy.map((t) => ({ intent: t.intent, tool: t.tool }));
const net: DaModelOptions['net'] = { hashing: { buckets: 1 << 12, bagLength: 48, wordNgrams: [1, 2], charNgrams: [3] }, embedDim: 16, hidden: 32 };
const split = splitBank(domain.bank.utterances, 1);
const trainItems = bankRoutingItems(domain, split.train, { seed: 1 }).slice(0, 192);
const heldout = bankRoutingItems(domain, split.heldout, { seed: 2 }).slice(0, 200);
const obsOf = (items: typeof trainItems) => items.map((r) => routingObservation(r.text));
const targetsOf = (items: typeof trainItems): DaTarget[] => items.map((r) => ({ choice: r.tool, intent: r.intent }));

/** The largest differences seen, printed at the end (the figures behind the tolerances above). */
const seen: Record<string, number> = {};
afterAll(() => {
  if (Object.keys(seen).length)
    console.log(
      `webgpu parity, largest |cpu − webgpu|: ${Object.entries(seen)
        .map(([k, v]) => `${k} ${v.toExponential(1)}`)
        .join(', ')}`,
    );
});
function within(what: string, diff: number, tol: number): void {
  seen[what] = Math.max(seen[what] ?? 0, diff);
  expect(diff, what).toBeLessThanOrEqual(tol);
}

function maxAbsDiff(a: ArrayLike<number>, b: ArrayLike<number>): number {
  expect(a.length).toBe(b.length);
  let m = 0;
  for (let i = 0; i < a.length; i++) m = Math.max(m, Math.abs(a[i]! - b[i]!));
  return m;
}
const floats = (bytes: Uint8Array) => new Float32Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength));

/** The DA of `seed` on both providers, from the same weights. */
async function daPair(seed = 1): Promise<[DaModel, DaModel]> {
  const cpu = await DaModel.create({ intents, seed, net, session: CPU });
  const gpu = await DaModel.fromSnapshot(await cpu.snapshot(), GPU);
  expect(gpu.provider).toBe('webgpu');
  return [cpu, gpu];
}

const FACTS: CustomerFacts = {
  merchant: 'Shell',
  amount: 18.4,
  datePhrase: 'yesterday',
  channel: 'card',
  place: 'Leeds',
  account: 'savings',
  cardLast4: '1234',
};
const caObs: CaObservation[] = domain.taxonomy
  .filter((e) => e.core)
  .slice(0, 12)
  .map((e, i) => ({
    intent: e.intent,
    situation: 'unrecognized_charge',
    facts: FACTS,
    name: 'Sam Lee',
    dialogue:
      i % 2
        ? [
            { role: 'customer', text: 'My card failed.' },
            { role: 'agent', text: 'Could you tell me a bit more about what happened?' },
          ]
        : [],
  }));
const CA_SIZES = { hashing: { buckets: 1 << 10, bagLength: 24, wordNgrams: [1, 2], charNgrams: [] as number[] }, embedDim: 16, hidden: 32 };

async function caPair(): Promise<[CaModel, CaModel]> {
  const cpu = await CaModel.create(domain.taxonomy, { sizes: CA_SIZES, seed: 3, session: CPU });
  const gpu = await CaModel.fromSnapshot(await cpu.snapshot(), { session: GPU });
  expect(gpu.provider).toBe('webgpu');
  return [cpu, gpu];
}

describe.skipIf(!webgpu.available)(`WebGPU gives the CPU's results (${reason})`, { timeout: 240_000 }, () => {
  it(`DA forward: action and intent probabilities within ${FORWARD_ATOL}`, async () => {
    const [cpu, gpu] = await daPair();
    const obs = obsOf(heldout.slice(0, 64));
    const [a, b] = [await cpu.predict(obs), await gpu.predict(obs)];
    within('DA action probs', Math.max(...a.map((p, i) => maxAbsDiff(p.actionLogp.map(Math.exp), b[i]!.actionLogp.map(Math.exp)))), FORWARD_ATOL);
    within('DA intent probs', Math.max(...a.map((p, i) => maxAbsDiff(p.intentProbs, b[i]!.intentProbs))), FORWARD_ATOL);
    await cpu.dispose();
    await gpu.dispose();
  });

  it(`CA forward: per-head log-probabilities within ${FORWARD_ATOL} (as probabilities)`, async () => {
    const [cpu, gpu] = await caPair();
    const [a, b] = [await cpu.headLogProbs(caObs), await gpu.headLogProbs(caObs)];
    expect(a.length).toBe(caObs.length * CA_LOGITS);
    within('CA head probs', maxAbsDiff(a.map(Math.exp), b.map(Math.exp)), FORWARD_ATOL);
    await cpu.dispose();
    await gpu.dispose();
  });

  it(`DA SFT and GRPO steps: loss within ${LOSS_RTOL} relative, weights within ${STEP_ATOL}`, async () => {
    const [cpu, gpu] = await daPair(2);
    const obs = obsOf(trainItems.slice(0, 64));
    const targets = targetsOf(trainItems.slice(0, 64));
    const [la, lb] = [await cpu.supervisedStep(obs, targets, { lr: 3e-3 }), await gpu.supervisedStep(obs, targets, { lr: 3e-3 })];
    within('DA SFT loss (relative)', Math.abs(lb['sft/loss']! - la['sft/loss']!) / Math.abs(la['sft/loss']!), LOSS_RTOL);
    within('DA SFT step weights', maxAbsDiff(floats((await cpu.snapshot()).weights), floats((await gpu.snapshot()).weights)), STEP_ATOL);

    // A GRPO step (the clipped policy-gradient graph with its KL term) on sampled actions.
    const actions = obs.map((_, i) => DA_CHOICES[(i * 7) % DA_CHOICES.length]!);
    const old = await cpu.logProbs(obs, actions);
    const batch = { obs, actions, advantages: Float32Array.from(obs, (_, i) => Math.sin(i)), oldLogProbs: old, refLogProbs: old.map((x) => x - 0.01) };
    const hyper = { lr: 1e-3, clipEps: 0.2, klBeta: 0.04 };
    const [pa, pb] = [await cpu.policyGradientStep(batch, hyper), await gpu.policyGradientStep(batch, hyper)];
    // Metrics near zero (KL, clip fraction) are compared absolutely, the rest relatively.
    for (const [k, v] of Object.entries(pa)) within(`DA GRPO ${k}`, Math.abs(pb[k]! - v) / Math.max(1, Math.abs(v)), LOSS_RTOL);
    within('DA GRPO step weights', maxAbsDiff(floats((await cpu.snapshot()).weights), floats((await gpu.snapshot()).weights)), STEP_ATOL);
    // Again at a sampling temperature: the graph divides the action logits by T before its log-softmax.
    const hot = await cpu.logProbs(obs, actions, 2);
    const hotBatch = { ...batch, oldLogProbs: hot, refLogProbs: hot.map((x) => x - 0.01) };
    const [ta, tb] = [
      await cpu.policyGradientStep(hotBatch, { ...hyper, temperature: 2 }),
      await gpu.policyGradientStep(hotBatch, { ...hyper, temperature: 2 }),
    ];
    for (const [k, v] of Object.entries(ta)) within(`DA GRPO at T = 2 ${k}`, Math.abs(tb[k]! - v) / Math.max(1, Math.abs(v)), LOSS_RTOL);
    within('DA GRPO step at T = 2 weights', maxAbsDiff(floats((await cpu.snapshot()).weights), floats((await gpu.snapshot()).weights)), STEP_ATOL);
    await cpu.dispose();
    await gpu.dispose();
  });

  it(`CA SFT and GRPO steps: weights within ${STEP_ATOL}`, async () => {
    const [cpu, gpu] = await caPair();
    const choices = await cpu.greedy(caObs);
    const targets: CaChoice[] = choices.map((c) => c.action);
    await cpu.supervisedStep(caObs, targets, { lr: 3e-3 });
    await gpu.supervisedStep(caObs, targets, { lr: 3e-3 });
    within('CA SFT step weights', maxAbsDiff(floats((await cpu.snapshot()).weights), floats((await gpu.snapshot()).weights)), STEP_ATOL);
    const old = await cpu.logProbs(caObs, targets);
    const batch = { obs: caObs, actions: targets, advantages: Float32Array.from(caObs, (_, i) => (i % 2 ? 1 : -1)), oldLogProbs: old, refLogProbs: old };
    await cpu.policyGradientStep(batch, { lr: 2e-3, clipEps: 0.2, klBeta: 0.05 });
    await gpu.policyGradientStep(batch, { lr: 2e-3, clipEps: 0.2, klBeta: 0.05 });
    within('CA GRPO step weights', maxAbsDiff(floats((await cpu.snapshot()).weights), floats((await gpu.snapshot()).weights)), STEP_ATOL);
    const hot = await cpu.logProbs(caObs, targets, 2);
    const hotBatch = { ...batch, oldLogProbs: hot, refLogProbs: hot };
    await cpu.policyGradientStep(hotBatch, { lr: 2e-3, clipEps: 0.2, klBeta: 0.05, temperature: 2 });
    await gpu.policyGradientStep(hotBatch, { lr: 2e-3, clipEps: 0.2, klBeta: 0.05, temperature: 2 });
    within('CA GRPO step at T = 2 weights', maxAbsDiff(floats((await cpu.snapshot()).weights), floats((await gpu.snapshot()).weights)), STEP_ATOL);
    await cpu.dispose();
    await gpu.dispose();
  });

  it(`the exported inference model runs on WebGPU with the CPU's outputs within ${FORWARD_ATOL}`, async () => {
    const model = await DaModel.create({ intents, seed: 4, net, session: CPU });
    const bytes = await exportCheckpointOnnx(await model.snapshot(), { name: 'DA-parity', role: 'DA', source: 'test', generation: 0 });
    const B = 16;
    const enc = encodeObservations(obsOf(heldout.slice(0, B)), new BagCache(model.shape.hashing), true);
    const L = model.shape.hashing.bagLength;
    const feeds = {
      bag_idx: new Tensor('float32', enc.bagIdx, [B, L]),
      bag_w: new Tensor('float32', enc.bagW, [B, L]),
      state: new Tensor('float32', enc.state, [B, enc.state.length / B]),
      mask: new Tensor('float32', enc.mask, [B, N_ACTIONS]),
    };
    const run = async (s: SessionSettings) => {
      const { session, provider } = await createSession(bytes, s, 'the exported DA');
      try {
        const out = await session.run(feeds);
        return { provider, out: Object.fromEntries(Object.entries(out).map(([k, v]) => [k, v.data as Float32Array])) };
      } finally {
        await session.release();
      }
    };
    const [a, b] = [await run(CPU), await run(GPU)];
    expect(b.provider).toBe('webgpu');
    expect(Object.keys(b.out).sort()).toEqual(Object.keys(a.out).sort());
    for (const k of Object.keys(a.out)) within(`exported DA ${k}`, maxAbsDiff(a.out[k]!, b.out[k]!), FORWARD_ATOL);
    await model.dispose();
  });

  it(`a 24-step SFT run makes the CPU's greedy decisions on ≥ ${AGREEMENT * 100}% of ${heldout.length} held-out utterances`, async () => {
    const [cpu, gpu] = await daPair(5);
    for (let epoch = 0; epoch < 8; epoch++) {
      for (let i = 0; i < trainItems.length; i += 64) {
        const items = trainItems.slice(i, i + 64);
        await cpu.supervisedStep(obsOf(items), targetsOf(items), { lr: 3e-3 });
        await gpu.supervisedStep(obsOf(items), targetsOf(items), { lr: 3e-3 });
      }
    }
    const obs = obsOf(heldout);
    const [a, b] = [await cpu.greedy(obs), await gpu.greedy(obs)];
    const same = a.filter((x, i) => x.action === b[i]!.action).length;
    seen['weights after 24 SFT steps'] = maxAbsDiff(floats((await cpu.snapshot()).weights), floats((await gpu.snapshot()).weights));
    console.log(`webgpu parity: 24 SFT steps, ${same}/${obs.length} identical greedy decisions`);
    expect(same / obs.length).toBeGreaterThanOrEqual(AGREEMENT);
    await cpu.dispose();
    await gpu.dispose();
  });
});
