import { describe, expect, it } from 'vitest';
import {
  DA_GRPO,
  CA_GRPO,
  dynamicBatch,
  GRPO_PRESETS,
  GrpoDivergenceError,
  groupAdvantages,
  KL_WINDOW,
  learningRate,
  meanKl,
  plannedSteps,
  promptsForStep,
  runGrpo,
} from './grpo';
import type { GrpoConfig, GrpoStepMetrics } from './grpo';
import type { ModelSnapshot, PolicyGradientBatch, PolicyGradientHyper, PolicyModel, StepMetrics, SupervisedHyper } from './ports';

/**
 * A tabular softmax policy in plain TypeScript: logits θ[s][a], trained by the GRPO surrogate
 * with plain SGD. Just enough of a PolicyModel to check the algorithm end to end.
 */
class TabularPolicy implements PolicyModel<number, number> {
  theta: Float64Array;
  steps = 0;
  constructor(
    readonly states: number,
    readonly actions: number,
  ) {
    this.theta = new Float64Array(states * actions);
  }
  /** π_T(·|s) ∝ exp(θ[s] / T). */
  probs(s: number, T = 1): number[] {
    const row = Array.from(this.theta.subarray(s * this.actions, (s + 1) * this.actions), (x) => x / T);
    const m = Math.max(...row);
    const e = row.map((x) => Math.exp(x - m));
    const z = e.reduce((a, b) => a + b, 0);
    return e.map((x) => x / z);
  }
  async sample(obs: readonly number[], u: () => number, T = 1) {
    return obs.map((s) => {
      const p = this.probs(s, T);
      let r = u();
      let a = 0;
      while (a < p.length - 1 && r >= p[a]!) r -= p[a++]!;
      return { action: a, logProb: Math.log(p[a]!) };
    });
  }
  async greedy(obs: readonly number[]) {
    return obs.map((s) => {
      const p = this.probs(s);
      const a = p.indexOf(Math.max(...p));
      return { action: a, logProb: Math.log(p[a]!) };
    });
  }
  async logProbs(obs: readonly number[], actions: readonly number[], T = 1) {
    return Float32Array.from(obs, (s, i) => Math.log(this.probs(s, T)[actions[i]!]!));
  }
  async supervisedStep(_obs: readonly number[], _t: readonly number[], _h: SupervisedHyper): Promise<StepMetrics> {
    throw new Error('not used');
  }
  /** L = −mean[min(ρÂ, clip(ρ)Â) − β·KL_k3] on π_T; dL/dθ[s][b] through d log π_T(a|s) = (1[a=b] − π_T(b|s)) / T. */
  async policyGradientStep(b: PolicyGradientBatch<number, number>, h: PolicyGradientHyper): Promise<StepMetrics> {
    const n = b.obs.length;
    const T = h.temperature ?? 1;
    const grad = new Float64Array(this.theta.length);
    let loss = 0;
    let clipped = 0;
    let kl = 0;
    for (let i = 0; i < n; i++) {
      const s = b.obs[i]!;
      const a = b.actions[i]!;
      const p = this.probs(s, T);
      const logp = Math.log(p[a]!);
      const ratio = Math.exp(logp - b.oldLogProbs[i]!);
      const A = b.advantages[i]!;
      const unclipped = ratio * A;
      const clippedVal = Math.min(Math.max(ratio, 1 - h.clipEps), 1 + h.clipEps) * A;
      const d = b.refLogProbs[i]! - logp;
      const k3 = Math.exp(d) - d - 1;
      kl += k3;
      loss -= (Math.min(unclipped, clippedVal) - h.klBeta * k3) / n;
      // d(objective)/d logp
      let dObj = 0;
      if (unclipped <= clippedVal) dObj += ratio * A;
      else clipped++;
      dObj -= h.klBeta * (1 - Math.exp(d));
      for (let c = 0; c < this.actions; c++) grad[s * this.actions + c] = grad[s * this.actions + c]! - (dObj * ((c === a ? 1 : 0) - p[c]!)) / (n * T);
    }
    let norm = 0;
    for (let j = 0; j < grad.length; j++) norm += grad[j]! ** 2;
    for (let j = 0; j < grad.length; j++) this.theta[j] = this.theta[j]! - h.lr * grad[j]!;
    this.steps++;
    return { 'gym/loss': loss, 'gym/clip_frac': clipped / n, 'gym/grad_norm': Math.sqrt(norm), 'gym/kl': kl / n };
  }
  async snapshot(): Promise<ModelSnapshot> {
    return {
      modelJson: JSON.stringify({ states: this.states, actions: this.actions }),
      weights: new Uint8Array(new Float64Array(this.theta).buffer),
      optimiser: null,
    };
  }
  async restore(s: ModelSnapshot): Promise<void> {
    this.theta = new Float64Array(s.weights.slice().buffer);
  }
}

function copyOf(m: TabularPolicy): TabularPolicy {
  const c = new TabularPolicy(m.states, m.actions);
  c.theta = new Float64Array(m.theta);
  return c;
}

const windowMean = (h: readonly GrpoStepMetrics[], from: number, to: number) => h.slice(from, to).reduce((s, m) => s + m['gym/reward_mean'], 0) / (to - from);

describe('groupAdvantages', () => {
  it('normalises each group by its own mean and sample std, on hand-computed numbers', () => {
    // Group 0: r = [1, 2, 3, 4]: mean 2.5, sample std √(5/3) = 1.290994…
    // Group 1: r = [0, 0, 1, 1]: mean 0.5, sample std √(1/3) = 0.577350…
    const { advantages, keep, skippedGroups, groupMean, groupStd } = groupAdvantages([1, 2, 3, 4, 0, 0, 1, 1], 4, 1e-4);
    expect(Array.from(groupMean)).toEqual([2.5, 0.5]);
    expect(groupStd[0]).toBeCloseTo(1.2909944, 6);
    expect(groupStd[1]).toBeCloseTo(0.5773503, 6);
    const expected = [
      -1.5 / 1.2910944,
      -0.5 / 1.2910944,
      0.5 / 1.2910944,
      1.5 / 1.2910944,
      -0.5 / 0.5774503,
      -0.5 / 0.5774503,
      0.5 / 0.5774503,
      0.5 / 0.5774503,
    ];
    expected.forEach((e, i) => expect(advantages[i]).toBeCloseTo(e, 5));
    expect(advantages[0]).toBeCloseTo(-1.161806, 5);
    expect(advantages[7]).toBeCloseTo(0.865876, 5);
    expect(keep).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    expect(skippedGroups).toBe(0);
  });

  it('skips and counts groups whose rewards are all equal', () => {
    const { advantages, keep, skippedGroups } = groupAdvantages([2, 2, 2, -1, 0, 1, 0.3, 0.3, 0.3], 3, 1e-4);
    expect(skippedGroups).toBe(2);
    expect(keep).toEqual([3, 4, 5]);
    // Middle group: mean 0, sample std 1 → Â = r / (1 + 1e-4).
    expect(advantages[3]).toBeCloseTo(-1 / 1.0001, 6);
    expect(advantages[4]).toBe(0);
    expect(advantages[5]).toBeCloseTo(1 / 1.0001, 6);
    expect(Array.from(advantages.slice(0, 3))).toEqual([0, 0, 0]);
    expect(Array.from(advantages.slice(6))).toEqual([0, 0, 0]);
  });

  it('sums to zero within a group and is invariant to shifting and scaling the rewards', () => {
    const r = [0.5, -3, 2, 7, 1.25, 0];
    const a = groupAdvantages(r, 6, 0).advantages;
    const b = groupAdvantages(
      r.map((x) => 10 * x - 4),
      6,
      0,
    ).advantages;
    expect(a.reduce((s, x) => s + x, 0)).toBeCloseTo(0, 5);
    a.forEach((x, i) => expect(b[i]).toBeCloseTo(x, 5));
  });

  it('rejects a reward count that does not split into groups', () => {
    expect(() => groupAdvantages([1, 2, 3], 2, 1e-4)).toThrow(/groups of 2/);
    expect(() => groupAdvantages([1], 1, 1e-4)).toThrow(/K must be/);
  });
});

describe('GRPO helpers', () => {
  it('k3 KL is 0 for identical policies and matches exp(d) − d − 1 otherwise', () => {
    expect(meanKl(Float32Array.of(-1, -2), Float32Array.of(-1, -2))).toBe(0);
    // d = ref − logp = [0.5, −0.5]: (e^0.5 − 1.5 + e^−0.5 − 0.5) / 2
    expect(meanKl(Float32Array.of(-1, -1), Float32Array.of(-0.5, -1.5))).toBeCloseTo((Math.exp(0.5) - 1.5 + Math.exp(-0.5) - 0.5) / 2, 6);
  });

  it('cosine LR starts at lr and decays toward lr · lrFinalRatio; constant stays put', () => {
    const c = { lr: 1e-3, lrSchedule: 'cosine' as const, lrFinalRatio: 0.1, steps: 100 };
    expect(learningRate(c, 0)).toBeCloseTo(1e-3, 12);
    expect(learningRate(c, 50)).toBeCloseTo(0.55e-3, 12);
    expect(learningRate(c, 100)).toBeCloseTo(1e-4, 12);
    expect(learningRate({ ...c, lrSchedule: 'constant' }, 77)).toBe(1e-3);
  });

  it('presets follow the paper: K 16 vs 8, β 0.04 vs 0.05, cosine LR for the CA', () => {
    expect([DA_GRPO.K, DA_GRPO.klBeta, DA_GRPO.clipEps, DA_GRPO.lrSchedule]).toEqual([16, 0.04, 0.2, 'constant']);
    expect([CA_GRPO.K, CA_GRPO.klBeta, CA_GRPO.clipEps, CA_GRPO.lrSchedule]).toEqual([8, 0.05, 0.2, 'cosine']);
    expect(GRPO_PRESETS.DA.mu).toBe(1);
  });

  it('uses every prompt once per pass, in a seeded order', () => {
    const a = [0, 1, 2, 3].flatMap((s) => promptsForStep(10, 5, 3, s));
    expect([...a.slice(0, 10)].sort((x, y) => x - y)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect([...a.slice(10)].sort((x, y) => x - y)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(promptsForStep(10, 5, 3, 1)).toEqual(a.slice(5, 10));
    expect(promptsForStep(10, 5, 4, 0)).not.toEqual(a.slice(0, 5));
  });
});

describe('runGrpo on a tabular bandit', () => {
  // 6 states × 5 actions; one action per state pays 1, another 0.3, the rest 0.
  const S = 6;
  const A = 5;
  const best = (s: number) => (s * 2 + 1) % A;
  const second = (s: number) => (s * 2 + 3) % A;
  const reward = (s: number, a: number) => (a === best(s) ? 1 : a === second(s) ? 0.3 : 0);
  const config: GrpoConfig = { ...DA_GRPO, K: 8, promptsPerStep: 6, steps: 300, lr: 0.5, klBeta: 0.01, seed: 11 };
  const prompts = Array.from({ length: S }, (_, s) => s);

  it('raises the mean reward, reports KL to the reference, and counts skipped groups', async () => {
    const model = new TabularPolicy(S, A);
    const reference = copyOf(model);
    const { history, stepsDone, stopped } = await runGrpo({ model, reference, prompts, observe: (s) => s, reward, config });
    expect(stepsDone).toBe(300);
    expect(stopped).toBe(false);
    expect(history).toHaveLength(300);
    const first = windowMean(history, 0, 20);
    const last = windowMean(history, 280, 300);
    expect(first).toBeLessThan(0.4); // uniform: (1 + 0.3) / 5 = 0.26
    expect(last).toBeGreaterThan(0.85);
    expect(history[0]!['gym/kl']).toBe(0); // the policy starts as the reference
    expect(history[299]!['gym/kl']).toBeGreaterThan(0.1);
    for (const m of history) {
      for (const v of Object.values(m)) expect(Number.isFinite(v)).toBe(true);
    }
    // Late on, most groups sample only the best action: no variance, skipped.
    expect(history.slice(-20).reduce((s, m) => s + m['gym/skipped_groups'], 0)).toBeGreaterThan(20);
    const greedy = await model.greedy(prompts);
    expect(greedy.map((g) => g.action)).toEqual(prompts.map(best));
  });

  it('is reproducible from its seed, with μ > 1 and a batch reward with de-duplicated actions', async () => {
    const run = async () => {
      const model = new TabularPolicy(S, A);
      const calls: number[] = [];
      const res = await runGrpo({
        model,
        reference: (obs, actions) => copyOf(new TabularPolicy(S, A)).logProbs(obs, actions),
        prompts,
        observe: (s) => s,
        reward: {
          async batch(items) {
            calls.push(items.length);
            return items.map((it) => reward(it.prompt, it.action));
          },
        },
        actionKey: (a) => String(a),
        config: { ...config, steps: 30, mu: 2 },
      });
      return { res, theta: Array.from(model.theta), calls };
    };
    const a = await run();
    const b = await run();
    expect(a.theta).toEqual(b.theta);
    expect(a.res.history).toEqual(b.res.history);
    // At most A distinct actions per group of 8 are scored.
    for (const n of a.calls) expect(n).toBeLessThanOrEqual(S * A);
    expect(a.calls[0]!).toBeLessThan(S * 8);
  });

  it('the reference may be a model or a callback, with the same result', async () => {
    const m1 = new TabularPolicy(S, A);
    const m2 = new TabularPolicy(S, A);
    const ref = copyOf(m1);
    await runGrpo({ model: m1, reference: ref, prompts, observe: (s) => s, reward, config: { ...config, steps: 20 } });
    await runGrpo({ model: m2, reference: (o, a) => ref.logProbs(o, a), prompts, observe: (s) => s, reward, config: { ...config, steps: 20 } });
    expect(Array.from(m1.theta)).toEqual(Array.from(m2.theta));
  });

  it('a NaN reward restores the model to its state before the step and stops with a clear error', async () => {
    const model = new TabularPolicy(S, A);
    let step = 0;
    let thetaAfter5: number[] = [];
    const err = await runGrpo({
      model,
      reference: copyOf(model),
      prompts,
      observe: (s) => s,
      reward: (s, a) => (step >= 5 && s === 2 ? NaN : reward(s, a)),
      config: { ...config, steps: 50 },
      onStep: (_m, i) => {
        step = i + 1;
        if (i === 4) thetaAfter5 = Array.from(model.theta);
      },
    }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(GrpoDivergenceError);
    const e = err as GrpoDivergenceError;
    expect(e.step).toBe(5);
    expect(e.message).toMatch(
      /GRPO step 5: reward NaN for sample \d+ of prompt \d+ \(not a finite number\); training stopped with the model as it was before step 5/,
    );
    expect(e.history).toHaveLength(5);
    expect(Array.from(model.theta)).toEqual(thetaAfter5);
    expect(model.theta.every(Number.isFinite)).toBe(true);
  });

  it('a non-finite loss from the update restores the weights the step started from', async () => {
    const model = new TabularPolicy(S, A);
    await runGrpo({ model, reference: copyOf(model), prompts, observe: (s) => s, reward, config: { ...config, steps: 3 } });
    const before = Array.from(model.theta);
    const real = model.policyGradientStep.bind(model);
    model.policyGradientStep = async (b, h) => {
      const m = await real(b, h);
      model.theta.fill(NaN); // the update blew up
      return { ...m, 'gym/loss': Infinity };
    };
    const err = await runGrpo({ model, reference: copyOf(model), prompts, observe: (s) => s, reward, config: { ...config, steps: 3 } }).catch(
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(GrpoDivergenceError);
    expect((err as Error).message).toMatch(
      /GRPO step 0: gym\/loss = Infinity in policy-gradient iteration 1 of 1; training stopped with the model as it was before step 0/,
    );
    expect(Array.from(model.theta)).toEqual(before);
  });

  it('resumes from a step: 10 + 10 steps equal 20, and shouldStop ends a run early', async () => {
    const whole = new TabularPolicy(S, A);
    await runGrpo({ model: whole, reference: copyOf(whole), prompts, observe: (s) => s, reward, config: { ...config, steps: 20 } });
    const split = new TabularPolicy(S, A);
    const ref = copyOf(split);
    let n = 0;
    const first = await runGrpo({
      model: split,
      reference: ref,
      prompts,
      observe: (s) => s,
      reward,
      config: { ...config, steps: 20 },
      shouldStop: () => n++ >= 10,
    });
    expect(first).toMatchObject({ stepsDone: 10, stopped: true });
    const rest = await runGrpo({
      model: split,
      reference: ref,
      prompts,
      observe: (s) => s,
      reward,
      config: { ...config, steps: 20 },
      startStep: first.stepsDone,
    });
    expect(rest).toMatchObject({ stepsDone: 20, stopped: false });
    expect(rest.history).toHaveLength(10);
    expect(Array.from(split.theta)).toEqual(Array.from(whole.theta));
  });

  it('a reference with non-finite log-probabilities stops before any update', async () => {
    const model = new TabularPolicy(S, A);
    const before = Array.from(model.theta);
    const err = await runGrpo({ model, reference: async (o) => new Float32Array(o.length).fill(-Infinity), prompts, observe: (s) => s, reward, config }).catch(
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(GrpoDivergenceError);
    expect((err as Error).message).toMatch(/GRPO step 0: gym\/kl = (Infinity|NaN) \(the reference gave log-probabilities that are not finite\)/);
    expect(Array.from(model.theta)).toEqual(before);
  });

  it('with a KL penalty, a group whose samples all agree is still pulled toward the reference', async () => {
    // One state, and a policy collapsed onto action 0 while the reference is uniform: every
    // sample is action 0 and earns the same reward, so the group has no advantage signal.
    const model = new TabularPolicy(1, A);
    model.theta[0] = 12;
    const reference = new TabularPolicy(1, A);
    const flat = () => 1;
    const c: GrpoConfig = { ...config, steps: 5, promptsPerStep: 1, lr: 1 };
    const p0 = model.probs(0)[0]!;
    const r = await runGrpo({ model, reference, prompts: [0], observe: (s) => s, reward: flat, config: c });
    expect(r.history.every((m) => m['gym/skipped_groups'] === 1)).toBe(true);
    expect(model.probs(0)[0]!).toBeLessThan(p0); // the KL term moved it back
    // Without the penalty there is nothing to learn from, and nothing changes.
    const still = new TabularPolicy(1, A);
    still.theta[0] = 12;
    await runGrpo({ model: still, reference, prompts: [0], observe: (s) => s, reward: flat, config: { ...c, klBeta: 0 } });
    expect(still.theta[0]).toBe(12);
  });

  it('dynamic sampling (oversample) fills the batch with groups whose rewards differ, and oversample 1 is plain GRPO', async () => {
    expect(dynamicBatch([false, true, false, true, true, false], 2)).toEqual([1, 3]);
    expect(dynamicBatch([false, true, false, false], 3)).toEqual([0, 1, 2]); // one with signal, then the first two without
    expect(dynamicBatch([true, false], 2)).toEqual([0, 1]);
    // States 0–2 pay the same for every action (no signal); states 3–5 are the bandit's.
    const live = (s: number) => s >= 3;
    const r2 = (s: number, a: number) => (live(s) ? reward(s, a) : 0.5);
    const run = async (oversample: number | undefined) => {
      const model = new TabularPolicy(S, A);
      const batches: number[][] = [];
      const step = model.policyGradientStep.bind(model);
      model.policyGradientStep = (b, h) => {
        batches.push(b.obs.slice());
        return step(b, h);
      };
      const c: GrpoConfig = { ...config, steps: 20, promptsPerStep: 3, ...(oversample !== undefined ? { oversample } : {}) };
      const res = await runGrpo({ model, reference: copyOf(new TabularPolicy(S, A)), prompts, observe: (s) => s, reward: r2, config: c });
      return { res, batches, theta: Array.from(model.theta) };
    };
    const plain = await run(undefined);
    const one = await run(1);
    expect(one.theta).toEqual(plain.theta);
    expect(one.res.history).toEqual(plain.res.history);
    const two = await run(2);
    // Every batch is promptsPerStep groups of K rows; with 6 drawn of which 3 are live, all 3 are live
    // for as long as the live states' samples still differ.
    for (const b of two.batches) expect(b).toHaveLength(3 * config.K);
    const liveRows = (bs: number[][]) => bs.slice(0, 5).flat().filter(live).length;
    expect(liveRows(two.batches)).toBe(5 * 3 * config.K);
    expect(liveRows(plain.batches)).toBeLessThan(liveRows(two.batches));
    expect(two.res.history.slice(0, 5).every((m) => m['gym/skipped_groups'] === 0)).toBe(true);
    await expect(
      runGrpo({
        model: new TabularPolicy(S, A),
        reference: new TabularPolicy(S, A),
        prompts,
        observe: (s) => s,
        reward: r2,
        config: { ...config, oversample: 0 },
      }),
    ).rejects.toThrow(/oversample must be an integer ≥ 1/);
  });

  it('entropyCoef reaches every policy-gradient step, absent when not set; a negative one is refused', async () => {
    const run = async (entropyCoef: number | undefined) => {
      const model = new TabularPolicy(S, A);
      const hypers: PolicyGradientHyper[] = [];
      const step = model.policyGradientStep.bind(model);
      model.policyGradientStep = (b, h) => {
        hypers.push(h);
        return step(b, h);
      };
      const c: GrpoConfig = { ...config, steps: 5, ...(entropyCoef !== undefined ? { entropyCoef } : {}) };
      await runGrpo({ model, reference: copyOf(new TabularPolicy(S, A)), prompts, observe: (s) => s, reward, config: c });
      return hypers;
    };
    const withBonus = await run(0.1);
    expect(withBonus.length).toBeGreaterThan(0);
    expect(withBonus.every((h) => h.entropyCoef === 0.1)).toBe(true);
    expect((await run(undefined)).every((h) => !('entropyCoef' in h))).toBe(true);
    await expect(run(-0.1)).rejects.toThrow(/entropyCoef must be a number in \[0, Infinity\], got -0.1/);
  });

  it('a temperature above 1 finds an action the policy holds 9 nats down, which sampling at T = 1 never draws; the greedy action follows', async () => {
    // One state; action 0 is the favourite (θ 9 nats above the rest) and pays 0, action 3 pays 1.
    const run = async (temperature: number | undefined) => {
      const model = new TabularPolicy(1, 4);
      model.theta.set([9, 0, 0, 0]);
      const reference = copyOf(model);
      const seen = { sample: new Set<number | undefined>(), ref: new Set<number | undefined>(), step: new Set<number | undefined>() };
      const sample = model.sample.bind(model);
      model.sample = (o, u, T) => (seen.sample.add(T), sample(o, u, T));
      const step = model.policyGradientStep.bind(model);
      model.policyGradientStep = (b, h) => (seen.step.add(h.temperature), step(b, h));
      const c: GrpoConfig = { ...config, K: 16, promptsPerStep: 1, steps: 40, lr: 2, klBeta: 0.01, ...(temperature !== undefined ? { temperature } : {}) };
      const res = await runGrpo({
        model,
        reference: async (o, a, T) => (seen.ref.add(T), reference.logProbs(o, a, T)),
        prompts: [0],
        observe: (s) => s,
        reward: (_s, a) => (a === 3 ? 1 : 0),
        config: c,
      });
      return { res, seen, greedy: (await model.greedy([0]))[0]!.action };
    };
    const cold = await run(undefined);
    expect(cold.res.history.every((m) => m['gym/reward_mean'] === 0)).toBe(true); // 640 draws at p ≈ 4e-5 each: never drawn
    expect(cold.greedy).toBe(0);
    expect([...cold.seen.sample, ...cold.seen.ref, ...cold.seen.step]).toEqual([1, 1, 1]);
    const hot = await run(3); // 3 nats down at T = 3: drawn about once a group
    expect(hot.res.history.some((m) => m['gym/reward_mean'] > 0)).toBe(true);
    expect(hot.greedy).toBe(3);
    expect([...hot.seen.sample, ...hot.seen.ref, ...hot.seen.step]).toEqual([3, 3, 3]);
    await expect(run(0)).rejects.toThrow(/temperature must be a positive number, got 0/);
  });

  it("ε-greedy exploration (explore) finds an action 12 nats down among the valid ones, with the policy's own log-probability as the old one", async () => {
    // One state; action 0 is the favourite (12 nats above the rest) and pays 0, action 3 pays 1;
    // action 2 is never valid, so exploration never draws it.
    const run = async (explore: number | undefined, explorable?: (s: number) => readonly number[]) => {
      const model = new TabularPolicy(1, 4);
      model.theta.set([12, 0, 0, 0]);
      const reference = copyOf(model);
      const drawn = new Set<number>();
      const step = model.policyGradientStep.bind(model);
      model.policyGradientStep = async (b, h) => {
        // ρ = 1 at the first iteration: every old log-probability is the policy's own.
        const own = await model.logProbs(b.obs, b.actions);
        b.actions.forEach((a, i) => (drawn.add(a), expect(b.oldLogProbs[i]).toBeCloseTo(own[i]!, 4)));
        return step(b, h);
      };
      const c: GrpoConfig = { ...config, K: 16, promptsPerStep: 1, steps: 40, lr: 2, klBeta: 0.01, ...(explore !== undefined ? { explore } : {}) };
      const res = await runGrpo({
        model,
        reference,
        prompts: [0],
        observe: (s) => s,
        reward: (_s, a) => (a === 3 ? 1 : 0),
        config: c,
        ...(explorable ? { explorable } : {}),
      });
      return { res, drawn, greedy: (await model.greedy([0]))[0]!.action };
    };
    const valid = () => [0, 1, 3];
    const none = await run(undefined, valid);
    expect(none.res.history.every((m) => m['gym/reward_mean'] === 0)).toBe(true);
    expect(none.greedy).toBe(0);
    const ignored = await run(0.25); // no explorable: ε is ignored
    expect(ignored.greedy).toBe(0);
    const tried = await run(0.25, valid);
    expect(tried.res.history.some((m) => m['gym/reward_mean'] > 0)).toBe(true);
    expect(tried.greedy).toBe(3);
    expect(tried.drawn.has(2)).toBe(false);
    expect(await run(0.25, valid)).toEqual(tried); // seeded
    await expect(run(1.5, valid)).rejects.toThrow(/explore must be a number in \[0, 1\], got 1.5/);
  });

  it("enumerate tries every valid action at every prompt, with the policy's own log-probability as the old one; the rest of the group is sampled", async () => {
    // Two states: action 3 pays 1 in state 1 and −1 in state 0; action 0, 12 nats above the rest, pays 0 in both.
    const run = async (enumerate: boolean | undefined, explorable?: (s: number) => readonly number[]) => {
      const model = new TabularPolicy(2, 4);
      model.theta.set([12, 0, 0, 0, 12, 0, 0, 0]);
      const reference = copyOf(model);
      const groups: number[][] = [];
      const step = model.policyGradientStep.bind(model);
      model.policyGradientStep = async (b, h) => {
        const own = await model.logProbs(b.obs, b.actions);
        b.actions.forEach((_a, i) => expect(b.oldLogProbs[i]).toBeCloseTo(own[i]!, 4));
        for (let g = 0; g < b.actions.length; g += 8) groups.push(b.actions.slice(g, g + 8));
        return step(b, h);
      };
      const c: GrpoConfig = { ...config, K: 8, promptsPerStep: 2, steps: 30, lr: 2, klBeta: 0.01, ...(enumerate !== undefined ? { enumerate } : {}) };
      await runGrpo({
        model,
        reference,
        prompts: [0, 1],
        observe: (s) => s,
        reward: (s, a) => (a === 3 ? (s === 1 ? 1 : -1) : 0),
        config: c,
        ...(explorable ? { explorable } : {}),
      });
      return { groups, greedy: (await model.greedy([0, 1])).map((x) => x.action) };
    };
    const valid = () => [0, 1, 3];
    const off = await run(undefined, valid);
    expect(off.greedy).toEqual([0, 0]); // 12 nats down: never drawn
    const on = await run(true, valid);
    // Each group opens with the valid actions, once each; action 2 (never valid) only if the policy draws it.
    expect(on.groups.length).toBeGreaterThan(0);
    expect(on.groups.every((g) => g[0] === 0 && g[1] === 1 && g[2] === 3)).toBe(true);
    expect(on.greedy).toEqual([0, 3]); // learnt where it pays, not where it costs
    expect((await run(true)).greedy).toEqual([0, 0]); // no explorable: ignored
  });

  it("gym/kl and the trust region read the policy's own draws, not the rows enumerate or ε-greedy replaced", async () => {
    // The policy and the reference differ only on action 3 (e^−7 against e^−12): KL(π ‖ π_ref) ≈ 0.005.
    // A replaced row holding action 3 alone reads k3 = e^−5 + 5 − 1 ≈ 4.0, a sixteenth of it 0.25.
    const run = async (extra: Partial<GrpoConfig>) => {
      const model = new TabularPolicy(1, 4);
      model.theta.set([12, 0, 0, 5]);
      const reference = new TabularPolicy(1, 4);
      reference.theta.set([12, 0, 0, 0]);
      const c: GrpoConfig = { ...config, K: 16, promptsPerStep: 1, steps: 3, lr: 1e-9, klBeta: 0.01, maxKl: 0.1, ...extra };
      return runGrpo({ model, reference, prompts: [0], observe: (s) => s, reward: () => 0, config: c, explorable: () => [0, 1, 2, 3] });
    };
    for (const extra of [{ enumerate: true }, { explore: 0.5 }]) {
      const r = await run(extra);
      expect(r.earlyStop).toBeNull();
      expect(r.stepsDone).toBe(3);
      expect(r.history.every((m) => m['gym/kl'] < 0.02)).toBe(true);
    }
  });

  it('maxKl ends the run at the first step past the trust region; maxPasses cuts the steps to the data', async () => {
    const free = new TabularPolicy(S, A);
    const all = await runGrpo({ model: free, reference: copyOf(free), prompts, observe: (s) => s, reward, config: { ...config, steps: 80 } });
    // The trust region reads the mean KL of the last KL_WINDOW steps.
    const windowKl = all.history.map((_, i) => {
      const w = all.history.slice(Math.max(0, i + 1 - KL_WINDOW), i + 1);
      return w.reduce((s, m) => s + m['gym/kl'], 0) / w.length;
    });
    const crossed = windowKl.findIndex((kl) => kl > 0.05);
    expect(crossed).toBeGreaterThan(0); // the unbounded run leaves it, so the bound is tested
    const model = new TabularPolicy(S, A);
    const bounded = await runGrpo({ model, reference: copyOf(model), prompts, observe: (s) => s, reward, config: { ...config, steps: 80, maxKl: 0.05 } });
    expect(bounded.earlyStop).toEqual({ reason: 'max_kl', step: crossed, kl: windowKl[crossed], maxKl: 0.05 });
    expect(bounded.stepsDone).toBe(crossed + 1);
    expect(bounded.history).toEqual(all.history.slice(0, crossed + 1));
    expect(all.earlyStop).toBeNull();

    expect(plannedSteps({ steps: 60, promptsPerStep: 16, maxPasses: 4 }, 40)).toBe(10); // ⌈4 · 40 / 16⌉
    expect(plannedSteps({ steps: 60, promptsPerStep: 16, maxPasses: 4 }, 1000)).toBe(60);
    expect(plannedSteps({ steps: 60, promptsPerStep: 16 }, 40)).toBe(60);
    const capped = await runGrpo({
      model: new TabularPolicy(S, A),
      reference: copyOf(model),
      prompts,
      observe: (s) => s,
      reward,
      config: { ...config, steps: 80, maxPasses: 2 },
    });
    expect(capped).toMatchObject({ plannedSteps: 2, stepsDone: 2, earlyStop: null }); // 2 passes over 6 prompts, 6 a step
  });

  it('checks its config', async () => {
    const model = new TabularPolicy(S, A);
    await expect(runGrpo({ model, reference: model, prompts, observe: (s) => s, reward, config: { ...config, K: 1 } })).rejects.toThrow(
      /K must be an integer ≥ 2/,
    );
    await expect(runGrpo({ model, reference: model, prompts: [], observe: (s) => s, reward, config })).rejects.toThrow(/no prompts/);
  });

  it('keeps nothing between runs: two models trained side by side match models trained alone', async () => {
    const alone = new TabularPolicy(S, A);
    await runGrpo({ model: alone, reference: copyOf(alone), prompts, observe: (s) => s, reward, config: { ...config, steps: 15 } });
    const x = new TabularPolicy(S, A);
    const y = new TabularPolicy(S, A);
    const other = (s: number, a: number) => (a === 0 ? 1 : 0);
    await Promise.all([
      runGrpo({ model: x, reference: copyOf(x), prompts, observe: (s) => s, reward, config: { ...config, steps: 15 } }),
      runGrpo({ model: y, reference: copyOf(y), prompts, observe: (s) => s, reward: other, config: { ...CA_GRPO, steps: 15, promptsPerStep: 6, lr: 0.5 } }),
    ]);
    expect(Array.from(x.theta)).toEqual(Array.from(alone.theta));
  });
});
