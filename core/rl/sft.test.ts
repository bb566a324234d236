/**
 * The SFT loop against a fake model: the schedule on hand-computed numbers, every demonstration
 * once per epoch in a seeded order, and the divergence guard restoring the last good snapshot.
 */
import { describe, expect, it } from 'vitest';
import { Rng } from '../random';
import type { ModelSnapshot, StepMetrics } from './ports';
import { averageSnapshots, DEFAULT_SFT_CONFIG, runSft, sftLr, SftDivergedError, shuffled } from './sft';
import type { SftModel } from './sft';

/** A model whose "weights" are the number of steps taken; loss falls with them, or is NaN on cue. */
function fakeModel(nanAtStep?: number) {
  let steps = 0;
  const batches: number[][] = [];
  const lrs: number[] = [];
  const restored: string[] = [];
  const model: SftModel<number, number> = {
    async supervisedStep(obs, _targets, { lr }): Promise<StepMetrics> {
      steps++;
      batches.push([...obs]);
      lrs.push(lr);
      return { 'sft/loss': steps === nanAtStep ? Number.NaN : 1 / steps, 'sft/accuracy': 0.5, 'sft/grad_norm': 1 };
    },
    async snapshot(): Promise<ModelSnapshot> {
      return { modelJson: JSON.stringify({ steps }), weights: new Uint8Array([steps]), optimiser: null };
    },
    async restore(s) {
      restored.push(s.modelJson);
      steps = (JSON.parse(s.modelJson) as { steps: number }).steps;
    },
  };
  return { model, batches, lrs, restored, steps: () => steps };
}

const data = Array.from({ length: 10 }, (_, i) => ({ obs: i, target: i }));

describe('sftLr', () => {
  it('warms up linearly, then decays on a cosine to minLrFrac · lr', () => {
    const c = { lr: 1, warmupFrac: 0.2, minLrFrac: 0.1 };
    // 10 steps: 2 warmup steps (0.5, 1), then cosine over steps 2..9.
    expect(sftLr(0, 10, c)).toBeCloseTo(0.5);
    expect(sftLr(1, 10, c)).toBeCloseTo(1);
    expect(sftLr(2, 10, c)).toBeCloseTo(1);
    expect(sftLr(9, 10, c)).toBeCloseTo(0.1);
    // Half way through the decay: 0.1 + 0.9 · 0.5 · (1 + cos(π/2)) = 0.55.
    expect(sftLr(2 + 3.5, 10, c)).toBeCloseTo(0.55);
    expect(sftLr(0, 1, { lr: 2, warmupFrac: 0, minLrFrac: 0 })).toBe(2);
  });
});

describe('runSft', () => {
  it('visits every demonstration once per epoch in a seeded order, with the scheduled rates', async () => {
    const f = fakeModel();
    const r = await runSft(f.model, data, { epochs: 3, batchSize: 4, lr: 0.1, warmupFrac: 0, minLrFrac: 0, seed: 7 });
    expect(r.steps).toBe(9); // ⌈10 / 4⌉ · 3
    expect(f.batches.map((b) => b.length)).toEqual([4, 4, 2, 4, 4, 2, 4, 4, 2]);
    for (let e = 0; e < 3; e++)
      expect(
        f.batches
          .slice(e * 3, e * 3 + 3)
          .flat()
          .sort((a, b) => a - b),
      ).toEqual(data.map((d) => d.obs));
    expect(f.batches.slice(0, 3).flat()).not.toEqual(f.batches.slice(3, 6).flat()); // reshuffled each epoch
    expect(f.lrs).toEqual(Array.from({ length: 9 }, (_, i) => sftLr(i, 9, { lr: 0.1, warmupFrac: 0, minLrFrac: 0 })));
    expect(r.epochs.map((e) => e.metrics['sft/epoch'])).toEqual([1, 2, 3]);
    expect(r.epochs[0]!.metrics['sft/loss']).toBeCloseTo((4 * 1 + 4 / 2 + 2 / 3) / 10); // weighted by batch size

    const again = fakeModel();
    await runSft(again.model, data, { epochs: 3, batchSize: 4, lr: 0.1, seed: 7 });
    expect(again.batches).toEqual(f.batches);
  });

  it('on a NaN loss restores the last good snapshot and says where it happened', async () => {
    const f = fakeModel(5);
    const progress: number[] = [];
    const err = await runSft(f.model, data, { epochs: 3, batchSize: 4, lr: 0.1 }, { onStep: (p) => progress.push(p.step) }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SftDivergedError);
    expect((err as Error).message).toMatch(
      /step 5 of 9 \(epoch 2, lr [\d.e+-]+\) gave a loss of NaN; the model was restored to its state at the end of epoch 1 \(step 3\)/,
    );
    expect(f.restored).toEqual([JSON.stringify({ steps: 3 })]);
    expect(f.steps()).toBe(3);
    expect(progress).toEqual([1, 2, 3, 4]);

    const early = fakeModel(1);
    await expect(runSft(early.model, data, { epochs: 1 })).rejects.toThrow(/restored to its state before training/);
    expect(early.steps()).toBe(0);
  });

  it('rejects a bad config or an empty set before touching the model', async () => {
    const f = fakeModel();
    await expect(runSft(f.model, data, { epochs: 0 })).rejects.toThrow(/epochs must be a positive integer, got 0/);
    await expect(runSft(f.model, data, { batchSize: 2.5 })).rejects.toThrow(/batchSize/);
    await expect(runSft(f.model, data, { lr: -1 })).rejects.toThrow(/lr must be a positive number/);
    await expect(runSft(f.model, data, { warmupFrac: 1 })).rejects.toThrow(/warmupFrac/);
    await expect(runSft(f.model, [], {})).rejects.toThrow(/no demonstrations/);
    expect(f.batches).toEqual([]);
    expect(DEFAULT_SFT_CONFIG.epochs).toBeGreaterThan(0);
  });

  it("averageEpochs ends on the mean of the last epochs' weights, with the last optimiser state", async () => {
    // Weights [steps, −2·steps] as float32; the optimiser's bytes say which step it was taken at.
    let w = new Float32Array([0, 0]);
    const model: SftModel<number, number> = {
      async supervisedStep(): Promise<StepMetrics> {
        w = new Float32Array([w[0]! + 1, w[1]! - 2]);
        return { 'sft/loss': 1 };
      },
      async snapshot(): Promise<ModelSnapshot> {
        return { modelJson: '{}', weights: new Uint8Array(w.slice().buffer), optimiser: new Uint8Array([w[0]!]) };
      },
      async restore(s) {
        w = new Float32Array(s.weights.slice().buffer);
        expect(s.optimiser).toEqual(new Uint8Array([9]));
      },
    };
    // 3 steps an epoch; epochs end at steps 3, 6, 9: the last two average to 7.5.
    await runSft(model, data, { epochs: 3, batchSize: 4, averageEpochs: 2 });
    expect([...w]).toEqual([7.5, -15]);
    await runSft(model, data, { epochs: 3, batchSize: 4, averageEpochs: 1 });
    expect([...w]).toEqual([16.5, -33]); // 1: the last epoch's weights, nothing restored
    await expect(runSft(model, data, { epochs: 3, averageEpochs: 4 })).rejects.toThrow(/averageEpochs must be an integer in \[1, epochs = 3\], got 4/);
    const one = { modelJson: '{}', weights: new Uint8Array(new Float32Array([1, 2]).buffer), optimiser: null };
    expect(() => averageSnapshots([one, { ...one, weights: new Uint8Array(4) }])).toThrow(/different sizes/);
  });

  it('shuffled is a permutation and depends only on the stream', () => {
    const a = shuffled(50, new Rng(3));
    expect([...a].sort((x, y) => x - y)).toEqual(Array.from({ length: 50 }, (_, i) => i));
    expect(shuffled(50, new Rng(3))).toEqual(a);
    expect(shuffled(50, new Rng(4))).not.toEqual(a);
  });
});
