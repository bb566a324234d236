/**
 * The DA network's features and graphs: the state vector and masks read the DA's own view, and the
 * GRPO step computes the clipped surrogate, k3 KL and clip fraction of its doc comment — checked
 * against the same formulas in plain numbers, from the forward graph's log-probabilities.
 */
import { describe, expect, it } from 'vitest';
import { DA_CHOICES, dialogueState, renderDaChoice } from '../core/agents/da-actions';
import type { DaChoice } from '../core/agents/da-actions';
import { routingObservation } from '../core/rl/demos';
import type { DaObservation } from '../core/world/environment';
import type { Turn } from '../core/world/transcript';
import {
  BagCache,
  DA_STATE_FEATURES,
  N_ACTIONS,
  N_STATE,
  buildDaSftStep,
  daParams,
  dropGrams,
  encodeObservations,
  invalidActions,
  stateFeatures,
} from './da-net';
import type { DaParam } from './da-net';
import { initParams } from './params';
import { RowBagEncoder, rowBagFeeds } from './row-bags';
import { TrainStepRunner } from './runner';
import { DaModel } from './da-model';

const intents = [
  { intent: 'card_declined', tool: 'check_card_status' as const },
  { intent: 'unrecognized_charge', tool: 'dispute_charge' as const },
  { intent: 'terminate_account', tool: 'transfer_to_human' as const },
];
const tinyNet = { hashing: { buckets: 1 << 10, bagLength: 32, wordNgrams: [1], charNgrams: [3] }, embedDim: 8, hidden: 16 };

function feature(obs: DaObservation, name: (typeof DA_STATE_FEATURES)[number]): number {
  const v = new Float32Array(N_STATE);
  stateFeatures(obs, dialogueState(obs), v);
  return v[DA_STATE_FEATURES.indexOf(name)]!;
}

/** The routing observation after the DA called `tool` (result included) and explained it. */
function afterTool(tool: DaChoice, explain: boolean): DaObservation {
  const obs = routingObservation('There is a $12.50 charge I did not make');
  const raw = renderDaChoice(tool, obs, 't');
  const turns: Turn[] = [
    ...obs.turns,
    { role: 'agent', raw, action: JSON.parse(raw), toolResult: { ok: false, tool, error: { code: 'NOT_FOUND', message: 'no matching charge' } } },
  ];
  if (explain) turns.push({ role: 'agent', raw: '', action: { thinking: '', action_type: 'speak', content: 'Sorry.', tool_args: {} } });
  return { ...obs, turns, daSteps: turns.length - 1 };
}

describe('DA features', () => {
  it('encode verification, calls, results, explanation, amount and whose turn it is', () => {
    const routed = routingObservation('I was charged $40 twice');
    expect(feature(routed, 'verified')).toBe(1);
    expect(feature(routed, 'called_lookup_account')).toBe(1);
    expect(feature(routed, 'last_result_ok')).toBe(1);
    expect(feature(routed, 'amount_given')).toBe(1);
    expect(feature(routed, 'customer_last')).toBe(0);
    expect(feature(routed, 'customer_turns')).toBe(0.25);
    expect(feature(routingObservation('my card does not work'), 'amount_given')).toBe(0);

    const fresh: DaObservation = { caller: { phone: '+1 555 100 2000' }, turns: [{ role: 'customer', text: 'hello' }], daSteps: 0, maxDaTurns: 12 };
    expect(feature(fresh, 'verified')).toBe(0);
    expect(feature(fresh, 'last_result_none')).toBe(1);
    expect(feature(fresh, 'customer_last')).toBe(1);

    const done = afterTool('dispute_charge', true);
    expect(feature(done, 'called_dispute_charge')).toBe(1);
    expect(feature(done, 'last_result_error')).toBe(1);
    expect(feature(done, 'explained')).toBe(1);
    expect(feature(done, 'asks')).toBe(0);
    expect(feature(done, 'turn')).toBeCloseTo(3 / 12);
  });

  it('mask explain and end_call before a domain call, and lookup once verified', () => {
    const fresh: DaObservation = { caller: { phone: '+1 555 100 2000' }, turns: [{ role: 'customer', text: 'hi' }], daSteps: 0, maxDaTurns: 12 };
    expect([...invalidActions(dialogueState(fresh))].sort()).toEqual(['end_call', 'explain']);
    expect([...invalidActions(dialogueState(routingObservation('hi')))].sort()).toEqual(['end_call', 'explain', 'lookup_account']);
    expect([...invalidActions(dialogueState(afterTool('get_transactions', false)))]).toEqual(['lookup_account']);
    const b = encodeObservations([fresh], new BagCache(tinyNet.hashing));
    expect(Array.from(b.mask)).toEqual(DA_CHOICES.map((c) => (c === 'explain' || c === 'end_call' ? 1 : 0)));
    expect(encodeObservations([fresh], new BagCache(tinyNet.hashing), false).mask.every((x) => x === 0)).toBe(true);
  });

  it('give samples one bag key exactly when their bags have the same slots', () => {
    const texts = ['my card was declined', 'My card was DECLINED!', 'my card was declined today', 'my card was declined'];
    const b = encodeObservations(
      texts.map((t) => routingObservation(t)),
      new BagCache(tinyNet.hashing),
    );
    const L = tinyNet.hashing.bagLength;
    const slots = (i: number) => [...b.bagIdx.subarray(i * L, (i + 1) * L), ...b.bagW.subarray(i * L, (i + 1) * L)].join();
    for (let i = 0; i < texts.length; i++)
      for (let j = 0; j < texts.length; j++) expect(b.bagKey![i] === b.bagKey![j], `${i}, ${j}`).toBe(slots(i) === slots(j));
    expect(new Set(b.bagKey).size).toBe(2); // the first two texts tokenise alike
    dropGrams(b, L, 0.5, () => 0.9);
    expect(b.bagKey).toBeUndefined(); // dropout changes slots: the keys no longer say which are equal
  });

  it('n-gram dropout keeps each bag at unit norm', () => {
    const b = encodeObservations([routingObservation('my card was declined at the shop yesterday afternoon')], new BagCache(tinyNet.hashing));
    let s = 7;
    dropGrams(b, tinyNet.hashing.bagLength, 0.5, () => (s = (s * 48271) % 2147483647) / 2147483647);
    const sq = Array.from(b.bagW).reduce((a, w) => a + w * w, 0);
    expect(sq).toBeCloseTo(1, 5);
    expect(Array.from(b.bagW).filter((w) => w > 0).length).toBeLessThan(tinyNet.hashing.bagLength);
  });

  it("n-gram dropout keeps a block-normed bag's weight ratios: word grams stay heavier than character grams", () => {
    const hashing = { ...tinyNet.hashing, blockNorm: true };
    const b = encodeObservations([routingObservation('my card was declined at the shop')], new BagCache(hashing));
    const before = Array.from(b.bagW);
    let s = 11;
    dropGrams(b, hashing.bagLength, 0.3, () => (s = (s * 48271) % 2147483647) / 2147483647);
    const after = Array.from(b.bagW);
    expect(after.reduce((a, w) => a + w * w, 0)).toBeCloseTo(1, 5);
    const kept = before.flatMap((w, i) => (w > 0 && after[i]! > 0 ? [after[i]! / w] : []));
    expect(kept.length).toBeGreaterThan(1);
    expect(kept.length).toBeLessThan(before.filter((w) => w > 0).length);
    for (const r of kept) expect(r).toBeCloseTo(kept[0]!, 5); // one factor for every survivor
    expect(new Set(before.filter((w) => w > 0).map((w) => w.toFixed(5))).size).toBe(2); // the two blocks' weights differ
  });
});

describe('DA graphs', () => {
  it('the GRPO step reports the clipped surrogate, k3 KL and clip fraction of its formulas', async () => {
    const model = await DaModel.create({ intents, seed: 3, net: tinyNet });
    const obs = [routingObservation('my card got declined'), routingObservation('close my account please'), routingObservation('a charge I never made')];
    const actions: DaChoice[] = ['check_card_status', 'transfer_to_human', 'get_transactions'];
    const logp = await model.logProbs(obs, actions);
    const oldLogp = Float32Array.from([logp[0]! - 0.5, logp[1]! + 0.05, logp[2]! + 0.4]); // ratios e^0.5, e^-0.05, e^-0.4
    const ref = Float32Array.from([logp[0]! - 0.2, logp[1]!, logp[2]! + 0.3]);
    const adv = Float32Array.from([1, -1, 0.5]);
    const hyper = { lr: 1e-2, clipEps: 0.2, klBeta: 0.1 };

    const ratio = Array.from(logp, (l, i) => Math.exp(l - oldLogp[i]!));
    const surrogate = -ratio.reduce((s, r, i) => s + Math.min(r * adv[i]!, Math.min(Math.max(r, 0.8), 1.2) * adv[i]!), 0) / 3;
    const kl = Array.from(logp, (l, i) => Math.exp(ref[i]! - l) - (ref[i]! - l) - 1).reduce((a, b) => a + b, 0) / 3;
    const m = await model.policyGradientStep({ obs, actions, advantages: adv, oldLogProbs: oldLogp, refLogProbs: ref }, hyper);

    expect(m['gym/policy_loss']).toBeCloseTo(surrogate, 4);
    expect(m['gym/kl']).toBeCloseTo(kl, 5);
    expect(m['gym/loss']).toBeCloseTo(surrogate + 0.1 * kl, 4);
    expect(m['gym/clip_frac']).toBeCloseTo(2 / 3, 6); // e^0.5 and e^-0.4 fall outside [0.8, 1.2]
    expect(m['gym/entropy']).toBeGreaterThan(0);
    expect(m['gym/grad_norm']).toBeGreaterThan(0);
    // The step moved the policy where the surrogate has a gradient: sample 0 is clipped (ρ > 1 + ε
    // with Â > 0), sample 1 (Â < 0) loses probability, sample 2 (ρ < 1 − ε but Â > 0) gains.
    const after = await model.logProbs(obs, actions);
    expect(after[1]).toBeLessThan(logp[1]!);
    expect(after[2]).toBeGreaterThan(logp[2]!);
    await model.dispose();
  });

  it('the supervised step ignores the intent of unlabelled samples', async () => {
    const a = await DaModel.create({ intents, seed: 5, net: tinyNet });
    const obs = [routingObservation('my card got declined'), routingObservation('close my account')];
    const labelled = await a.supervisedStep(obs.slice(0, 1), [{ choice: 'check_card_status', intent: 'card_declined' }], { lr: 1e-3 });
    const b = await DaModel.create({ intents, seed: 5, net: tinyNet });
    const mixed = await b.supervisedStep(obs, [{ choice: 'check_card_status', intent: 'card_declined' }, { choice: 'transfer_to_human' }], { lr: 1e-3 });
    // Same intent loss: the second row has no intent label.
    expect(mixed['sft/intent_loss']).toBeCloseTo(labelled['sft/intent_loss']!, 5);
    expect(mixed['sft/intent_loss']).toBeCloseTo(Math.log(3), 0);
    await expect(b.supervisedStep(obs.slice(0, 1), [{ choice: 'ask', intent: 'no_such_intent' }], { lr: 1e-3 })).rejects.toThrow(/no_such_intent/);
    await a.dispose();
    await b.dispose();
  });
});

describe('DA supervised step', () => {
  const shape = { ...tinyNet, intents: intents.length };
  const texts = ['my card was declined', 'a charge I do not know', 'close my account please', 'declined again at the shop', 'who is this merchant'];
  /**
   * Four observations: texts from, from + 1, from again (a shared bag) and from + 2. Batches that
   * start elsewhere leave some embedding rows out.
   */
  const batchOf = (from: number, share = true) => {
    const obs = [0, 1, 0, 2].map((i) => routingObservation(texts[(from + i) % texts.length]!));
    const b = encodeObservations(obs, new BagCache(tinyNet.hashing));
    return {
      ...rowBagFeeds(new RowBagEncoder().encode(b.bagIdx, b.bagW, b.size, tinyNet.hashing.bagLength, share)),
      state: { data: b.state, dims: [4, N_STATE] },
      mask: { data: b.mask, dims: [4, N_ACTIONS] },
      action: { data: BigInt64Array.from([1n, 2n, 3n, 8n]), dims: [4] },
      intent: { data: BigInt64Array.from([0n, 1n, 0n, 2n]), dims: [4] },
      intent_mask: { data: Float32Array.from([1, 1, 1, 0]), dims: [4] },
      intent_weight: { data: Float32Array.from([0.5]), dims: [] },
      intent_smoothing: { data: Float32Array.from([0]), dims: [] },
      hidden_keep: { data: new Float32Array(4 * tinyNet.hidden).fill(1), dims: [4, tinyNet.hidden] },
    };
  };
  const weights = initParams(daParams(shape), 4);
  const session = { intraOpNumThreads: 2 };
  const order = [0, 2, 4, 1, 3, 0];

  it('with the embedding row-fed gives the bits of the whole table in the graph (the layout before)', async () => {
    const fed = await TrainStepRunner.create(buildDaSftStep(shape), weights, { session, hyper: { lr: 0.01 } });
    const whole = await TrainStepRunner.create(buildDaSftStep(shape, { optimiser: 'graph' }), weights, { session, hyper: { lr: 0.01 } });
    expect(fed.graph.rowFed.map((r) => r.param)).toEqual(['emb']);
    for (const from of [0, 2, 4, 1]) expect((await fed.step(batchOf(from))).loss).toBe((await whole.step(batchOf(from))).loss);
    const [x, y] = [fed.snapshot(), whole.snapshot()];
    for (const p of Object.keys(weights) as (keyof typeof weights)[]) {
      expect(Array.from(x.weights[p]), p).toEqual(Array.from(y.weights[p]));
      expect(Array.from(x.v[p]), p).toEqual(Array.from(y.v[p]));
    }
    await fed.dispose();
    await whole.dispose();
  });

  // Weight decay (w1, wa, wi; the embedding has none) on or off, clipping active (a norm of 0.05
  // clips every step here) or not.
  for (const [name, hyper] of [
    ['no decay, no clipping', { lr: 0.01, weightDecay: 0, maxGradNorm: Infinity }],
    ['decay, clipping', { lr: 0.01, weightDecay: 0.1, maxGradNorm: 0.05 }],
    ['decay, no clipping', { lr: 0.01, weightDecay: 0.1, maxGradNorm: 1e6 }],
  ] as const) {
    it(`with samples sharing a bag follows the step with a bag per sample within float rounding (${name})`, async () => {
      const shared = await TrainStepRunner.create(buildDaSftStep(shape), weights, { session, hyper });
      const own = await TrainStepRunner.create(buildDaSftStep(shape), weights, { session, hyper });
      expect(batchOf(0).bag_sel.dims).toEqual([4, 3]);
      expect(batchOf(0, false).bag_sel.dims).toEqual([4, 4]);
      let clipped = 0;
      for (const from of order) {
        const [a, b] = [await shared.step(batchOf(from)), await own.step(batchOf(from, false))];
        expect(a.loss).toBeCloseTo(b.loss, 5);
        expect(a.gradNorm).toBeCloseTo(b.gradNorm, 5);
        if (b.gradNorm > hyper.maxGradNorm) clipped++;
      }
      expect(clipped).toBe(hyper.maxGradNorm === 0.05 ? order.length : 0);
      const [x, y] = [shared.snapshot(), own.snapshot()];
      let untouched = 0;
      for (let r = 0; r < tinyNet.hashing.buckets; r++) if (y.v.emb[r * tinyNet.embedDim] === 0) untouched++;
      expect(untouched).toBeGreaterThan(0); // rows no batch read: both leave them alone
      for (const p of Object.keys(weights) as DaParam[]) {
        for (const k of ['weights', 'm', 'v'] as const) {
          const [u, w] = [x[k][p], y[k][p]];
          let worst = 0;
          for (let i = 0; i < u.length; i++) {
            expect(u[i] === 0, `${k} of ${p}[${i}] is zero in one only`).toBe(w[i] === 0);
            worst = Math.max(worst, Math.abs(u[i]! - w[i]!) / (1e-6 + Math.abs(w[i]!)));
          }
          expect(worst, `${k} of ${p}`).toBeLessThan(2e-4);
        }
      }
      await shared.dispose();
      await own.dispose();
    });
  }

  it('with samples sharing a bag gives bit-identical weights for the same start and batches', async () => {
    const hyper = { lr: 0.01, weightDecay: 0.1, maxGradNorm: 0.05 };
    const [a, b] = [
      await TrainStepRunner.create(buildDaSftStep(shape), weights, { session, hyper }),
      await TrainStepRunner.create(buildDaSftStep(shape), weights, { session, hyper }),
    ];
    for (const from of order) expect((await a.step(batchOf(from))).loss).toBe((await b.step(batchOf(from))).loss);
    const [x, y] = [a.snapshot(), b.snapshot()];
    for (const p of Object.keys(weights) as DaParam[]) {
      for (const k of ['weights', 'm', 'v'] as const) expect(Buffer.from(x[k][p].buffer).equals(Buffer.from(y[k][p].buffer)), `${k} of ${p}`).toBe(true);
    }
    await Promise.all([a.dispose(), b.dispose()]);
  });
});
