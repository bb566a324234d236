/**
 * Throughput of the builtin policy path on this machine: a 4096→256→16 MLP, forward with
 * weights baked in as initialisers (B = 1 and B = 512) and the full AdamW train step (B = 256).
 * Not a test: `sparring bench` prints these figures. Each figure is the median over rounds of
 * back-to-back runs, after a warm-up.
 */
import { buildForward, buildTrainStep } from './graph';
import { mlpForward, mlpLoss, mlpSpec } from './mlp';
import { initParams } from './params';
import { ForwardRunner, TrainStepRunner } from './runner';
import type { Feed } from './runner';
import { defaultThreads } from './session';
import type { ExecutionProvider, SessionSettings } from './session';

export interface BenchOptions {
  /** Timed rounds per figure (default 7); the median is reported. */
  rounds?: number;
  /** Minimum length of one round in ms (default 200). */
  roundMs?: number;
  session?: SessionSettings;
}

export interface MlpBench {
  /** The model measured. */
  model: string;
  provider: ExecutionProvider;
  intraOpNumThreads: number;
  /** Forward samples/s at batch 1 (median). */
  forwardB1: number;
  /** Forward samples/s at batch 512 (median). */
  forwardB512: number;
  /** Train-step samples/s at batch 256 (median). */
  trainB256: number;
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

/** Samples/s of `run` (which processes `batch` samples), median over rounds. */
async function measure(run: () => Promise<unknown>, batch: number, rounds: number, roundMs: number): Promise<number> {
  const warmEnd = performance.now() + roundMs / 2;
  do await run();
  while (performance.now() < warmEnd);
  const rates: number[] = [];
  for (let r = 0; r < rounds; r++) {
    let n = 0;
    const t0 = performance.now();
    let t = t0;
    while (t - t0 < roundMs) {
      await run();
      n++;
      t = performance.now();
    }
    rates.push((n * batch * 1000) / (t - t0));
  }
  return median(rates);
}

function randomBatch(batch: number, inputs: number, classes: number, seed: number): { x: Feed; y: Feed } {
  let s = seed >>> 0;
  const rnd = (): number => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 4294967296;
  };
  const x = new Float32Array(batch * inputs);
  for (let i = 0; i < x.length; i++) x[i] = rnd() < 0.02 ? 1 : 0; // sparse, like hashed n-gram counts
  const y = BigInt64Array.from({ length: batch }, () => BigInt(Math.floor(rnd() * classes)));
  return { x: { data: x, dims: [batch, inputs] }, y: { data: y, dims: [batch] } };
}

/** Measures the 4096→256→16 MLP; takes a few seconds. */
export async function benchMlp(opts: BenchOptions = {}): Promise<MlpBench> {
  const rounds = opts.rounds ?? 7;
  const roundMs = opts.roundMs ?? 200;
  const settings = opts.session ?? {};
  const sizes = [4096, 256, 16];
  const spec = mlpSpec('bench-mlp', sizes);
  const weights = initParams(spec.params, 1);

  const forward = await ForwardRunner.create(buildForward(spec, mlpForward, { weights }), settings);
  const b1 = randomBatch(1, sizes[0]!, sizes[2]!, 1);
  const b512 = randomBatch(512, sizes[0]!, sizes[2]!, 2);
  const forwardB1 = await measure(() => forward.run({ x: b1.x }), 1, rounds, roundMs);
  const forwardB512 = await measure(() => forward.run({ x: b512.x }), 512, rounds, roundMs);
  await forward.dispose();

  const trainer = await TrainStepRunner.create(buildTrainStep(spec, mlpLoss), weights, { session: settings, hyper: { lr: 1e-3 } });
  const b256 = randomBatch(256, sizes[0]!, sizes[2]!, 3);
  const trainB256 = await measure(() => trainer.step(b256), 256, rounds, roundMs);
  const provider = trainer.provider;
  await trainer.dispose();

  return {
    model: sizes.join('→'),
    provider,
    intraOpNumThreads: settings.intraOpNumThreads ?? defaultThreads(),
    forwardB1,
    forwardB512,
    trainB256,
  };
}
