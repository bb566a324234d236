/**
 * Supervised fine-tuning (RL-ADA §3.2, Phase 0): behaviour cloning of demonstrations into any
 * trainable policy behind the `PolicyModel` port. Read top to bottom in the order it runs:
 * config → schedule → epochs of shuffled minibatches → metrics → divergence guard.
 *
 * A step whose loss (or gradient norm) is not finite has already written NaNs into the weights,
 * so the model is restored to the last good snapshot (the start, or the end of the last clean
 * epoch) and a `SftDivergedError` says where it happened. Nothing stored is touched: SFT never
 * writes checkpoints itself; callers store what `runSft` returns.
 */
import { Rng } from '../random';
import type { MetricKey } from './metrics';
import type { ModelSnapshot, PolicyModel, StepMetrics } from './ports';

export interface SftConfig {
  /** Passes over the demonstrations. */
  epochs: number;
  /** Demonstrations per minibatch (the last minibatch of an epoch may be smaller). */
  batchSize: number;
  /** Peak learning rate, reached at the end of the warmup. */
  lr: number;
  /** Share of all steps over which the learning rate rises linearly from lr/warmupSteps to lr. */
  warmupFrac: number;
  /** The cosine decay ends at this share of lr. */
  minLrFrac: number;
  /** Seed of the minibatch shuffle. */
  seed: number;
  /**
   * Stochastic weight averaging over epoch ends: the model ends with the mean of its weights at the
   * ends of the last `averageEpochs` epochs (1: the last epoch's weights, no averaging). The
   * optimiser state stays the last epoch's. Needs snapshots whose weights are float32 (`ModelSnapshot`).
   */
  averageEpochs?: number;
}

export const DEFAULT_SFT_CONFIG: SftConfig = {
  epochs: 8,
  batchSize: 64,
  lr: 3e-3,
  warmupFrac: 0.05,
  minLrFrac: 0.05,
  seed: 1,
};

/** One demonstration: an observation and the target the model is trained toward. */
export interface SftSample<Obs, Target> {
  obs: Obs;
  target: Target;
}

export interface SftProgress {
  /** 1-based epoch. */
  epoch: number;
  /** Steps done so far (1-based after the first). */
  step: number;
  totalSteps: number;
  /** The step's metrics, under registry keys (`sft/loss`, `sft/accuracy`, `sft/lr`, …). */
  metrics: StepMetrics;
}

export interface SftResult {
  steps: number;
  /** Per epoch, each metric's mean over its steps weighted by minibatch size. */
  epochs: { epoch: number; metrics: StepMetrics }[];
}

export interface SftHooks {
  /** After every step. */
  onStep?: (p: SftProgress) => void;
  /** After every epoch, with that epoch's mean metrics. */
  onEpoch?: (epoch: number, metrics: StepMetrics) => void | Promise<void>;
}

/** The loss or gradient went non-finite; the model was put back to its last good state. */
export class SftDivergedError extends Error {
  override name = 'SftDivergedError';
}

function checkConfig(c: SftConfig): void {
  const bad = (what: string, v: number) => {
    throw new RangeError(`sft config: ${what}, got ${v}`);
  };
  if (!Number.isInteger(c.epochs) || c.epochs < 1) bad('epochs must be a positive integer', c.epochs);
  if (!Number.isInteger(c.batchSize) || c.batchSize < 1) bad('batchSize must be a positive integer', c.batchSize);
  if (!(Number.isFinite(c.lr) && c.lr > 0)) bad('lr must be a positive number', c.lr);
  if (!(c.warmupFrac >= 0 && c.warmupFrac < 1)) bad('warmupFrac must be in [0, 1)', c.warmupFrac);
  if (!(c.minLrFrac >= 0 && c.minLrFrac <= 1)) bad('minLrFrac must be in [0, 1]', c.minLrFrac);
  const k = c.averageEpochs ?? 1;
  if (!Number.isInteger(k) || k < 1 || k > c.epochs) bad(`averageEpochs must be an integer in [1, epochs = ${c.epochs}]`, k);
}

/** The element-wise mean of snapshots of one model, as float32 weights; the last one's model JSON and optimiser. */
export function averageSnapshots(snaps: readonly ModelSnapshot[]): ModelSnapshot {
  const last = snaps.at(-1);
  if (!last) throw new Error('averageSnapshots: no snapshots');
  const n = last.weights.byteLength / 4;
  const sum = new Float64Array(n);
  for (const s of snaps) {
    if (s.weights.byteLength !== last.weights.byteLength) throw new Error('averageSnapshots: snapshots of different sizes');
    const w = new Float32Array(s.weights.slice().buffer);
    for (let i = 0; i < n; i++) sum[i]! += w[i]!;
  }
  const mean = new Float32Array(n);
  for (let i = 0; i < n; i++) mean[i] = sum[i]! / snaps.length;
  return { modelJson: last.modelJson, weights: new Uint8Array(mean.buffer), optimiser: last.optimiser };
}

/**
 * Learning rate of step `step` (0-based) of `total`: linear warmup over the first
 * round(warmupFrac · total) steps, then cosine decay from lr to minLrFrac · lr at the last step.
 */
export function sftLr(step: number, total: number, c: Pick<SftConfig, 'lr' | 'warmupFrac' | 'minLrFrac'>): number {
  const warm = Math.round(c.warmupFrac * total);
  if (step < warm) return (c.lr * (step + 1)) / warm;
  const span = total - warm - 1;
  const progress = span <= 0 ? 0 : Math.min(1, (step - warm) / span);
  return c.lr * (c.minLrFrac + (1 - c.minLrFrac) * 0.5 * (1 + Math.cos(Math.PI * progress)));
}

/** Indices 0..n−1 in a seeded random order (Fisher–Yates). */
export function shuffled(n: number, rng: Rng): number[] {
  const idx = Array.from({ length: n }, (_, i) => i);
  for (let i = n - 1; i > 0; i--) {
    const j = rng.int(0, i);
    [idx[i], idx[j]] = [idx[j]!, idx[i]!];
  }
  return idx;
}

const LOSS: MetricKey = 'sft/loss';
const GRAD_NORM: MetricKey = 'sft/grad_norm';

/** What SFT needs of a model: supervised steps and snapshots. */
export type SftModel<Obs, Target> = Pick<PolicyModel<Obs, unknown, Target>, 'supervisedStep' | 'snapshot' | 'restore'>;

/** Trains `model` on `samples`; returns per-epoch metrics. */
export async function runSft<Obs, Target>(
  model: SftModel<Obs, Target>,
  samples: readonly SftSample<Obs, Target>[],
  config: Partial<SftConfig> = {},
  hooks: SftHooks = {},
): Promise<SftResult> {
  const cfg: SftConfig = { ...DEFAULT_SFT_CONFIG, ...config };
  checkConfig(cfg);
  if (samples.length === 0) throw new Error('sft: no demonstrations to train on');

  const perEpoch = Math.ceil(samples.length / cfg.batchSize);
  const totalSteps = perEpoch * cfg.epochs;
  const rng = new Rng(cfg.seed);
  let lastGood: { snapshot: ModelSnapshot; where: string } = { snapshot: await model.snapshot(), where: 'its state before training' };
  const epochs: SftResult['epochs'] = [];
  const averageEpochs = cfg.averageEpochs ?? 1;
  const averaged: ModelSnapshot[] = [];
  let step = 0;

  for (let epoch = 1; epoch <= cfg.epochs; epoch++) {
    const order = shuffled(samples.length, rng.fork('epoch', epoch));
    const sums: Record<string, number> = {};
    let seen = 0;
    for (let start = 0; start < order.length; start += cfg.batchSize) {
      const batch = order.slice(start, start + cfg.batchSize).map((i) => samples[i]!);
      const lr = sftLr(step, totalSteps, cfg);
      const m = await model.supervisedStep(
        batch.map((s) => s.obs),
        batch.map((s) => s.target),
        { lr },
      );
      step++;
      const loss = m[LOSS];
      const gradNorm = m[GRAD_NORM];
      if (loss === undefined || !Number.isFinite(loss) || (gradNorm !== undefined && !Number.isFinite(gradNorm))) {
        await model.restore(lastGood.snapshot);
        const what = loss === undefined ? `no ${LOSS} metric` : !Number.isFinite(loss) ? `a loss of ${loss}` : `a gradient norm of ${gradNorm}`;
        throw new SftDivergedError(
          `sft diverged: step ${step} of ${totalSteps} (epoch ${epoch}, lr ${lr.toExponential(2)}) gave ${what}; ` +
            `the model was restored to ${lastGood.where}. Lower the learning rate or check the demonstrations.`,
        );
      }
      const metrics: StepMetrics = { ...m, 'sft/lr': lr, 'sft/epoch': epoch };
      for (const [k, v] of Object.entries(metrics)) sums[k] = (sums[k] ?? 0) + v * batch.length;
      seen += batch.length;
      hooks.onStep?.({ epoch, step, totalSteps, metrics });
    }
    const means: StepMetrics = {};
    for (const [k, v] of Object.entries(sums)) means[k] = v / seen;
    epochs.push({ epoch, metrics: means });
    lastGood = { snapshot: await model.snapshot(), where: `its state at the end of epoch ${epoch} (step ${step})` };
    if (epoch > cfg.epochs - averageEpochs) averaged.push(lastGood.snapshot);
    await hooks.onEpoch?.(epoch, means);
  }
  if (averaged.length > 1) await model.restore(averageSnapshots(averaged));
  return { steps: step, epochs };
}
