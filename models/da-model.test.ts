/**
 * DaModel behind the PolicyModel port: snapshots round-trip (weights and AdamW state), a snapshot of
 * another shape is refused with a clear error and leaves the model as it was, sampling agrees with
 * log-probabilities, and a diverging SFT run restores the last good state.
 */
import { describe, expect, it } from 'vitest';
import { DA_CHOICES } from '../core/agents/da-actions';
import { DOMAIN_TOOLS } from '../core/domain/types';
import { routingObservation } from '../core/rl/demos';
import type { DaTarget } from '../core/rl/demos';
import { runSft, SftDivergedError } from '../core/rl/sft';
import type { SftModel } from '../core/rl/sft';
import type { DaObservation } from '../core/world/environment';
import { isMetricKey } from '../core/rl/metrics';
import { DA_LOSS_DEFAULTS, DaModel, sampleIndex, SnapshotMismatchError, topK } from './da-model';
import { temperLogp } from './policy-loss';
import { daParams } from './da-net';
import type { DaParam } from './da-net';
import { splitWeights } from './export';

const intents = [
  { intent: 'card_declined', tool: 'check_card_status' as const },
  { intent: 'unrecognized_charge', tool: 'dispute_charge' as const },
  { intent: 'terminate_account', tool: 'transfer_to_human' as const },
  { intent: 'internal_transfer', tool: 'transfer_funds' as const },
];
const net = { hashing: { buckets: 1 << 10, bagLength: 32, wordNgrams: [1, 2], charNgrams: [3] }, embedDim: 8, hidden: 16 };
const create = (seed = 1, over: Partial<typeof net> = {}) => DaModel.create({ intents, seed, net: { ...net, ...over } });

const samples: { obs: ReturnType<typeof routingObservation>; target: DaTarget }[] = [
  ['my card was declined at the shop', 'check_card_status', 'card_declined'],
  ['there is a charge I never made', 'dispute_charge', 'unrecognized_charge'],
  ['I want to close my account', 'transfer_to_human', 'terminate_account'],
  ['move $50 from savings to checking', 'transfer_funds', 'internal_transfer'],
].map(([text, choice, intent]) => ({ obs: routingObservation(text!), target: { choice: choice as DaTarget['choice'], intent: intent! } }));
const obs = samples.map((s) => s.obs);

/** One parameter of the model's current weights, as its snapshot stores them (a copy). */
const paramOf = async (m: DaModel, name: DaParam): Promise<Float32Array> =>
  splitWeights(daParams(m.shape), (await m.snapshot()).weights, 'the test DA')[name].slice();

describe('DaModel', () => {
  it('train steps on two threads give the same bits on every run (no order-dependent scatter)', async () => {
    // The default network and 64 samples: big enough that onnxruntime splits its kernels across threads.
    const batch = Array.from({ length: 64 }, (_, i) => samples[i % samples.length]!);
    const weightsAfter = async () => {
      const model = await DaModel.create({ intents, seed: 3, session: { intraOpNumThreads: 2 } });
      for (let i = 0; i < 3; i++)
        await model.supervisedStep(
          batch.map((s) => s.obs),
          batch.map((s) => s.target),
          { lr: 1e-2 },
        );
      const w = new Uint8Array((await model.snapshot()).weights);
      await model.dispose();
      return w;
    };
    const [a, b] = [await weightsAfter(), await weightsAfter()];
    expect(Buffer.from(a).equals(Buffer.from(b))).toBe(true);
  });

  it('learns a toy routing task and reports only registered metrics', async () => {
    const model = await create();
    const first = await model.supervisedStep(
      obs,
      samples.map((s) => s.target),
      { lr: 1e-2 },
    );
    let last = first;
    for (let i = 0; i < 60; i++)
      last = await model.supervisedStep(
        obs,
        samples.map((s) => s.target),
        { lr: 1e-2 },
      );
    expect(last['sft/loss']).toBeLessThan(first['sft/loss']! / 3);
    expect(last['sft/accuracy']).toBe(1);
    expect(Object.keys(first).every(isMetricKey)).toBe(true);
    expect((await model.greedy(obs)).map((g) => g.action)).toEqual(samples.map((s) => s.target.choice));
    const hyps = await model.intentHypotheses(obs[0]!, 2);
    expect(hyps).toHaveLength(2);
    expect(hyps[0]).toMatchObject({ intent: 'card_declined', tool: 'check_card_status' });
    expect(hyps[0]!.p).toBeGreaterThan(hyps[1]!.p);
    const routed = await model.routeTools(obs);
    expect(routed.map((r) => r.tool)).toEqual(['check_card_status', 'dispute_charge', 'transfer_to_human', 'transfer_funds']);
    await model.dispose();
  });

  it('sample and greedy agree with logProbs, and masked actions are never drawn', async () => {
    const model = await create(2);
    let s = 1;
    const u = () => (s = (s * 16807) % 2147483647) / 2147483647;
    const drawn = await model.sample([...obs, ...obs, ...obs], u);
    const lp = await model.logProbs(
      [...obs, ...obs, ...obs],
      drawn.map((d) => d.action),
    );
    drawn.forEach((d, i) => expect(d.logProb).toBeCloseTo(lp[i]!, 6));
    // After a successful lookup with no domain call, lookup, explain and end_call are masked.
    expect(drawn.every((d) => !['lookup_account', 'explain', 'end_call'].includes(d.action))).toBe(true);
    const [p] = await model.predict([obs[0]!]);
    expect(Math.exp(p!.actionLogp[DA_CHOICES.indexOf('end_call')]!)).toBe(0);
    const g = await model.greedy(obs);
    const preds = await model.predict(obs);
    g.forEach((x, i) => expect(x.logProb).toBe(Math.max(...preds[i]!.actionLogp)));
    // sampleIndex: a draw below the first action's share picks it; temperature sharpens toward the argmax.
    const logp = [Math.log(0.5), Math.log(0.3), Math.log(0.2)];
    expect(sampleIndex(logp, 0.49, 1)).toBe(0);
    expect(sampleIndex(logp, 0.51, 1)).toBe(1);
    expect(sampleIndex(logp, 0.95, 1)).toBe(2);
    expect(sampleIndex(logp, 0.95, 0.05)).toBe(0);
    await model.dispose();
  });

  it('at a sampling temperature T, sample, logProbs and the policy-gradient step all read π_T ∝ π^(1/T)', async () => {
    // temperLogp by hand: π = (0.5, 0.3, 0.2) at T = 2 is √π normalised; per head with sizes; T = 1 is the array itself.
    const p = Float32Array.from([0.5, 0.3, 0.2, 1e-30], Math.log);
    const hot = Array.from(temperLogp(p, 2), Math.exp);
    const root = [0.5, 0.3, 0.2].map(Math.sqrt);
    const z = root.reduce((a, b) => a + b, 0);
    root.forEach((r, i) => expect(hot[i]).toBeCloseTo(r / z, 6)); // 0.4155, 0.3218, 0.2628
    expect(hot[3]).toBeLessThan(1e-14);
    const heads = Array.from(temperLogp(p, 2, [2, 2]), Math.exp);
    expect(heads[0]).toBeCloseTo(Math.sqrt(0.5) / (Math.sqrt(0.5) + Math.sqrt(0.3)), 6);
    expect(heads[2]).toBeCloseTo(1, 6); // 0.2 against 1e-30: √ leaves 1e-15
    expect(temperLogp(p, 1)).toBe(p);
    expect(() => temperLogp(p, 0)).toThrow(/temperature must be positive/);
    expect(() => temperLogp(p, 2, [3])).toThrow(/4 values are not rows of 3/);

    const model = await create(4);
    let s = 7;
    const u = () => (s = (s * 16807) % 2147483647) / 2147483647;
    const drawn = await model.sample(obs, u, 2);
    const actions = drawn.map((d) => d.action);
    const lp2 = await model.logProbs(obs, actions, 2);
    const preds = await model.predict(obs);
    drawn.forEach((d, i) => {
      expect(d.logProb).toBeCloseTo(lp2[i]!, 6);
      expect(lp2[i]).toBeCloseTo(temperLogp(preds[i]!.actionLogp, 2)[DA_CHOICES.indexOf(d.action)]!, 6);
    });
    // The train graph at T: π_old = π_ref = π_T gives ratio 1 and KL 0; the same numbers read at T = 1 do not.
    const batch = { obs, actions, advantages: new Float32Array(obs.length), oldLogProbs: lp2, refLogProbs: lp2 };
    const atT = await model.policyGradientStep(batch, { lr: 1e-12, clipEps: 0.2, klBeta: 0.1, temperature: 2 });
    expect(atT['gym/kl']).toBeLessThan(1e-6);
    expect(atT['gym/clip_frac']).toBe(0);
    const at1 = await model.policyGradientStep(batch, { lr: 1e-12, clipEps: 0.2, klBeta: 0.1 });
    expect(at1['gym/kl']).toBeGreaterThan(1e-3);
    await model.dispose();
  });

  it('snapshots round-trip weights and optimiser state: a restored model continues identically', async () => {
    const a = await create(3);
    for (let i = 0; i < 5; i++)
      await a.supervisedStep(
        obs,
        samples.map((x) => x.target),
        { lr: 1e-2 },
      );
    const snap = await a.snapshot();
    expect(JSON.parse(snap.modelJson)).toMatchObject({ kind: 'da-net', intents, embedDim: 8, hidden: 16 });
    const b = await DaModel.fromSnapshot(snap);
    expect(await b.logProbs(obs, ['ask', 'ask', 'ask', 'ask'])).toEqual(await a.logProbs(obs, ['ask', 'ask', 'ask', 'ask']));
    const stepA = await a.supervisedStep(
      obs,
      samples.map((x) => x.target),
      { lr: 1e-2 },
    );
    const stepB = await b.supervisedStep(
      obs,
      samples.map((x) => x.target),
      { lr: 1e-2 },
    );
    expect(stepB).toEqual(stepA);
    expect(await b.snapshot()).toEqual(await a.snapshot());

    // A snapshot restores into a model that trained on since (switching step kinds in between).
    await a.policyGradientStep(
      {
        obs,
        actions: ['ask', 'ask', 'ask', 'ask'],
        advantages: new Float32Array([1, 1, 1, 1]),
        oldLogProbs: await a.logProbs(obs, ['ask', 'ask', 'ask', 'ask']),
        refLogProbs: new Float32Array(4),
      },
      { lr: 1e-2, clipEps: 0.2, klBeta: 0 },
    );
    await a.restore(snap);
    expect(await a.snapshot()).toEqual(snap);
    await a.dispose();
    await b.dispose();
  });

  it('refuses a snapshot of another shape, saying what differs, and keeps its own state', async () => {
    const a = await create(4);
    const before = await a.snapshot();
    const wider = await create(4, { hidden: 32 });
    await expect(a.restore(await wider.snapshot())).rejects.toThrow(SnapshotMismatchError);
    await expect(a.restore(await wider.snapshot())).rejects.toThrow(/parameter 'w1' is \[\d+, 32\] in the snapshot but \[\d+, 16\] here/);
    const other = await DaModel.create({ intents: intents.slice(0, 3), seed: 4, net });
    await expect(a.restore(await other.snapshot())).rejects.toThrow(/intents differ \(3 in the snapshot, 4 here/);
    await expect(a.restore({ ...before, modelJson: '{"kind":"ca-net","version":1}' })).rejects.toThrow(/not a DA network/);
    await expect(a.restore({ ...before, weights: before.weights.slice(0, 100) })).rejects.toThrow(/weights hold 100 bytes/);
    expect(await a.snapshot()).toEqual(before);
    for (const m of [a, wider, other]) await m.dispose();
  });

  it('the grouped tool head: a domain tool gains the log of the intent mass on it, and a policy-gradient step moves the intent head', async () => {
    const grouped = await create(6);
    expect(grouped.toolHead).toBe('grouped');
    for (let i = 0; i < 3; i++)
      await grouped.supervisedStep(
        obs,
        samples.map((x) => x.target),
        { lr: 1e-2 },
      );
    const snap = await grouped.snapshot();
    expect(JSON.parse(snap.modelJson)).toMatchObject({ toolHead: 'grouped', massWeight: 4 });
    // The same weights read as separate heads (the modelJson of a snapshot made before the grouped head).
    const { toolHead: _t, massWeight: _m, intentSmoothing: _s, ...oldJson } = JSON.parse(snap.modelJson) as Record<string, unknown>;
    const separate = await DaModel.fromSnapshot({ ...snap, modelJson: JSON.stringify(oldJson) });
    expect(separate.toolHead).toBe('separate');
    await expect(separate.restore(snap)).rejects.toThrow(/the tool head is grouped in the snapshot but separate here/);
    const [g, s] = [await grouped.predict(obs), await separate.predict(obs)];
    for (let b = 0; b < obs.length; b++) {
      expect(Array.from(g[b]!.intentProbs)).toEqual(Array.from(s[b]!.intentProbs));
      const mass = new Map<string, number>();
      intents.forEach((x, j) => mass.set(x.tool, (mass.get(x.tool) ?? 0) + s[b]!.intentProbs[j]!));
      // grouped − separate − 4·log(mass) is one constant (the two normalisers) over the unmasked actions;
      // get_transactions, which no intent here routes to, keeps its own logit.
      const offsets = DA_CHOICES.flatMap((c, a) =>
        s[b]!.actionLogp[a]! > -1e3 // unmasked
          ? [g[b]!.actionLogp[a]! - s[b]!.actionLogp[a]! - (mass.has(c) ? 4 * Math.log(mass.get(c)! + 1e-12) : 0)]
          : [],
      );
      expect(offsets.length).toBe(6); // ask and the five domain tools (lookup, explain and end_call are masked)
      for (const o of offsets) expect(o).toBeCloseTo(offsets[0]!, 4);
      // Routing: the grouped head's best domain tool; the separate heads' product.
      expect(grouped.routedTool(g[b]!)).toBe(
        DOMAIN_TOOLS.reduce((best, t) => (g[b]!.actionLogp[DA_CHOICES.indexOf(t)]! > g[b]!.actionLogp[DA_CHOICES.indexOf(best)]! ? t : best)),
      );
    }
    // GRPO trains the action head only; through the grouped head its gradient reaches the intent
    // head's weights wi, which otherwise only weight decay moves (every entry by the same factor).
    const wiRatios = async (m: DaModel) => {
      const wi = () => paramOf(m, 'wi');
      const before = await wi();
      const actions = samples.map((x) => x.target.choice);
      await m.policyGradientStep(
        { obs, actions, advantages: new Float32Array([1, -1, 1, -1]), oldLogProbs: await m.logProbs(obs, actions), refLogProbs: new Float32Array(4) },
        { lr: 1e-2, clipEps: 0.2, klBeta: 0 },
      );
      const after = await wi();
      const r = Array.from(after, (x, i) => x / before[i]!);
      return Math.max(...r) - Math.min(...r);
    };
    // From the same weights with fresh AdamW moments (the SFT steps' momentum would move wi too).
    const bare = { ...snap, optimiser: null };
    const [g2, s2] = [await DaModel.fromSnapshot(bare), await DaModel.fromSnapshot({ ...bare, modelJson: JSON.stringify(oldJson) })];
    expect(await wiRatios(g2)).toBeGreaterThan(1e-3);
    expect(await wiRatios(s2)).toBeLessThan(1e-6);
    for (const m of [grouped, separate, g2, s2]) await m.dispose();
  });

  it('supervised steps decay weights by the model weightDecay, kept in snapshots; an older snapshot trains with the optimiser default', async () => {
    // Same start (seed 4), same batch: the same gradient and AdamW update for both; only the decay
    // differs (a decayed weight is first multiplied by 1 − lr · weightDecay), so after one step the
    // two differ by w · lr · (0.5 − 0.01).
    const [a, b] = [await DaModel.create({ intents, seed: 4, net }), await DaModel.create({ intents, seed: 4, net, weightDecay: 0.01 })];
    expect([a.weightDecay, b.weightDecay]).toEqual([DA_LOSS_DEFAULTS.weightDecay, 0.01]);
    const w1 = (m: DaModel) => paramOf(m, 'w1');
    const start = await w1(a);
    for (const m of [a, b])
      await m.supervisedStep(
        obs,
        samples.map((x) => x.target),
        { lr: 1e-2 },
      );
    const [wa, wb] = [await w1(a), await w1(b)];
    for (let i = 0; i < start.length; i += 7) expect(wb[i]! - wa[i]!).toBeCloseTo(start[i]! * 1e-2 * (0.5 - 0.01), 6);
    const snap = await a.snapshot();
    expect(JSON.parse(snap.modelJson)).toMatchObject({ weightDecay: 0.5 });
    expect((await DaModel.fromSnapshot(snap)).weightDecay).toBe(0.5);
    const { weightDecay: _w, ...older } = JSON.parse(snap.modelJson) as Record<string, unknown>;
    expect((await DaModel.fromSnapshot({ ...snap, modelJson: JSON.stringify(older) })).weightDecay).toBe(0.01);
    await expect(DaModel.create({ intents, seed: 1, net, weightDecay: -1 })).rejects.toThrow(/weightDecay must be a finite number ≥ 0, got -1/);
    for (const m of [a, b]) await m.dispose();
  });

  it('hidden dropout zeroes hidden units in supervised steps only, is kept in snapshots and refused outside [0, 1)', async () => {
    // Every unit dropped (p just under 1, no decay): the layers under the hidden one get no gradient
    // and AdamW moves them by exactly 0, while the heads' biases still learn; without dropout w1 moves.
    const [a, b] = [
      await DaModel.create({ intents, seed: 4, net, weightDecay: 0, hiddenDropout: 1 - 1e-9 }),
      await DaModel.create({ intents, seed: 4, net, weightDecay: 0 }),
    ];
    const [startW1, startBa] = [await paramOf(a, 'w1'), await paramOf(a, 'ba')];
    const before = await a.predict(obs);
    for (const m of [a, b])
      await m.supervisedStep(
        obs,
        samples.map((x) => x.target),
        { lr: 1e-2 },
      );
    expect(Buffer.from((await paramOf(a, 'w1')).buffer).equals(Buffer.from(startW1.buffer))).toBe(true);
    expect(Buffer.from((await paramOf(a, 'ba')).buffer).equals(Buffer.from(startBa.buffer))).toBe(false);
    expect(Buffer.from((await paramOf(b, 'w1')).buffer).equals(Buffer.from(startW1.buffer))).toBe(false);
    // The forward keeps every unit: its predictions moved only by the heads' biases, not to zero hidden units.
    expect((await a.predict(obs))[0]!.intentLogp).not.toEqual(before[0]!.intentLogp);
    const snap = await a.snapshot();
    expect(JSON.parse(snap.modelJson)).toMatchObject({ hiddenDropout: 1 - 1e-9 });
    expect((await DaModel.fromSnapshot(snap)).hiddenDropout).toBe(1 - 1e-9);
    expect(JSON.parse((await b.snapshot()).modelJson)).not.toHaveProperty('hiddenDropout');
    await expect(DaModel.create({ intents, seed: 1, net, hiddenDropout: 1 })).rejects.toThrow(/hiddenDropout must be in \[0, 1\), got 1/);
    for (const m of [a, b]) await m.dispose();
  });

  it('label smoothing spreads ε over the batch label marginal with the grouped head, over all intents with separate heads', async () => {
    // Three labelled samples (intents 0, 0, 2) and one without a label: the marginal is (2/3, 0, 1/3, 0).
    const batch = [samples[0]!, samples[0]!, samples[2]!, { obs: samples[1]!.obs, target: { choice: 'dispute_charge' as const } }];
    const eps = 0.2;
    for (const toolHead of ['grouped', 'separate'] as const) {
      const model = await DaModel.create({ intents, seed: 3, net, toolHead, intentSmoothing: eps, intentWeight: 1 });
      const before = await model.predict(batch.map((s) => s.obs));
      const logp = before.map((p) => p.intentProbs.map(Math.log));
      const target = toolHead === 'grouped' ? [2 / 3, 0, 1 / 3, 0] : [0.25, 0.25, 0.25, 0.25];
      const label = [0, 0, 2];
      // Hand-computed: −mean over the labelled rows of (1 − ε)·log p(label) + ε·Σ_j target_j log p_j.
      const want = -label.reduce((s, y, b) => s + (1 - eps) * logp[b]![y]! + eps * target.reduce((t, q, j) => t + q * logp[b]![j]!, 0), 0) / label.length;
      const m = await model.supervisedStep(
        batch.map((s) => s.obs),
        batch.map((s) => s.target),
        { lr: 1e-3 },
      );
      expect(m['sft/intent_loss'], toolHead).toBeCloseTo(want, 4);
      await model.dispose();
    }
  });

  it('a diverging SFT run throws and restores the last good state', async () => {
    const model = await create(5);
    const before = await model.snapshot();
    // A NaN learning rate poisons the weights at the first step; the second step's loss is NaN.
    const err = await runSft(model, samples, { epochs: 3, batchSize: 2, lr: Number.NaN, warmupFrac: 0 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RangeError); // refused before any step
    expect(await model.snapshot()).toEqual(before);

    const calls: number[] = [];
    const poisoned: SftModel<DaObservation, DaTarget> = {
      snapshot: () => model.snapshot(),
      restore: (s) => model.restore(s),
      supervisedStep: (o, t, h) => {
        calls.push(h.lr);
        return model.supervisedStep(o, t, { lr: calls.length === 3 ? Number.NaN : h.lr });
      },
    };
    const e2 = await runSft(poisoned, samples, { epochs: 3, batchSize: 2, lr: 1e-2, warmupFrac: 0 }).catch((e: unknown) => e);
    expect(e2).toBeInstanceOf(SftDivergedError);
    expect((e2 as Error).message).toMatch(/step 4 of 6 \(epoch 2.*loss of NaN.*restored to its state at the end of epoch 1 \(step 2\)/);
    const restored = await model.snapshot();
    expect(new Float32Array(restored.weights.slice().buffer).every(Number.isFinite)).toBe(true);
    expect(restored).not.toEqual(before); // epoch 1 trained
    await model.dispose();
  });
});

describe('topK', () => {
  it('is a sort by value (descending, ties to the lower index) cut to k', () => {
    let x = 12345;
    const rand = () => ((x = (Math.imul(x, 1103515245) + 12345) >>> 0) % 7) / 7; // few values: many ties
    for (let trial = 0; trial < 200; trial++) {
      const v = Float32Array.from({ length: 1 + (trial % 20) }, rand);
      const k = trial % 5;
      const bySort = Array.from(v, (p, i) => ({ p, i }))
        .sort((a, b) => b.p - a.p || a.i - b.i)
        .slice(0, k)
        .map((e) => e.i);
      expect(topK(v, k)).toEqual(bySort);
    }
  });
});
