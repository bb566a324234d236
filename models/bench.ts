/**
 * Throughput of the builtin policy path on this machine. Not a test: `sparring bench` prints
 * these figures. Each figure is the median over rounds of back-to-back runs, after a warm-up.
 *
 * - `benchMlp`: a 4096→256→16 MLP, forward with weights baked in as initialisers (B = 1 and
 *   B = 512) and the full AdamW train step (B = 256) — the probe of DESIGN.md §4.
 * - `benchDa`: the builtin DA (models/da-model.ts) at its default size, on observations sliced
 *   from real arena episodes: forward (B = 1, 512; feature encoding included), the same forward
 *   graph run bare through onnxruntime with pre-built tensors (the ceiling), a supervised step
 *   (B = 256), GRPO samples per second with the rollout reward (K = 16), and arena episodes per
 *   second (scripted against scripted, through runMatch). The B = 512 forward and the bare graph
 *   are measured as pairs of short adjacent rounds in alternating order (ABBA), and their ratio
 *   is the median of the per-pair ratios: on a shared machine the load moves within a second, and
 *   a ratio of two separate medians moved with it.
 */
import { Tensor as OrtTensor } from 'onnxruntime-node';
import { ScriptedCa } from '../core/agents/scripted-ca';
import { ScriptedDa } from '../core/agents/scripted-da';
import type { DaChoice } from '../core/agents/da-actions';
import { runMatch } from '../core/arena/match';
import { DEFAULT_CONFIG, withEpisodes } from '../core/config';
import type { SparringConfig } from '../core/config';
import type { Domain } from '../core/domain/types';
import { judgeEpisode } from '../core/judge/judge';
import { daRolloutReward, greedyActor, recordedFromEpisode, sliceEpisodes } from '../core/rl/da-rollout';
import type { DaDecisionPoint } from '../core/rl/da-rollout';
import { DA_GRPO, grpoStep } from '../core/rl/grpo';
import type { GrpoArgs } from '../core/rl/grpo';
import type { DaObservation } from '../core/world/environment';
import { BagCache, buildDaForward, daParams, encodeObservations, N_ACTIONS } from './da-net';
import { DaModel } from './da-model';
import { splitWeights } from './export';
import { buildForward, buildTrainStep } from './graph';
import { mlpForward, mlpLoss, mlpSpec } from './mlp';
import { initParams } from './params';
import { ForwardRunner, TrainStepRunner } from './runner';
import type { Feed } from './runner';
import { createSession, defaultThreads } from './session';
import type { ExecutionProvider, SessionSettings } from './session';

export interface BenchOptions {
  /** Timed rounds per figure (default 7); the median is reported. */
  rounds?: number;
  /** Minimum length of one round in ms (default 200). */
  roundMs?: number;
  session?: SessionSettings;
  /** Called before each figure with its name (progress for the CLI). */
  onFigure?: (name: string) => void;
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

/** Samples/s of `run` (which processes `batch` samples) over one round of at least `roundMs`. */
async function round(run: () => Promise<unknown>, batch: number, roundMs: number): Promise<number> {
  let n = 0;
  const t0 = performance.now();
  let t = t0;
  while (t - t0 < roundMs) {
    await run();
    n++;
    t = performance.now();
  }
  return (n * batch * 1000) / (t - t0);
}

/** Samples/s of `run` (which processes `batch` samples), median over rounds after a warm-up. */
async function measure(run: () => Promise<unknown>, batch: number, rounds: number, roundMs: number): Promise<number> {
  await round(run, batch, roundMs / 2);
  const rates: number[] = [];
  for (let r = 0; r < rounds; r++) rates.push(await round(run, batch, roundMs));
  return median(rates);
}

/**
 * Samples/s of `a` and `b` (each processing `batch` samples) and the ratio a / b, each the median
 * over `pairs` pairs of adjacent rounds, run in ABBA order so that neither always goes first.
 */
export async function measurePaired(
  a: () => Promise<unknown>,
  b: () => Promise<unknown>,
  batch: number,
  pairs: number,
  roundMs: number,
): Promise<{ a: number; b: number; ratio: number }> {
  return pairedRounds(
    () => round(a, batch, roundMs),
    () => round(b, batch, roundMs),
    pairs,
  );
}

/**
 * Two measurements taken in adjacent rounds: one warm-up round of each, then `pairs` pairs in
 * ABBA order; the median rate of each and the median of the per-pair ratios a / b. `a` and `b`
 * each time one round and resolve with its rate (measurePaired's rounds, or a caller's own).
 */
export async function pairedRounds(a: () => Promise<number>, b: () => Promise<number>, pairs: number): Promise<{ a: number; b: number; ratio: number }> {
  await a();
  await b();
  const ra: number[] = [];
  const rb: number[] = [];
  const ratios: number[] = [];
  for (let p = 0; p < pairs; p++) {
    let x: number;
    let y: number;
    if (p % 2 === 0) {
      x = await a();
      y = await b();
    } else {
      y = await b();
      x = await a();
    }
    ra.push(x);
    rb.push(y);
    ratios.push(x / y);
  }
  return { a: median(ra), b: median(rb), ratio: median(ratios) };
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

  opts.onFigure?.('mlp forward');
  const forward = await ForwardRunner.create(buildForward(spec, mlpForward, { weights }), settings);
  const b1 = randomBatch(1, sizes[0]!, sizes[2]!, 1);
  const b512 = randomBatch(512, sizes[0]!, sizes[2]!, 2);
  const forwardB1 = await measure(() => forward.run({ x: b1.x }), 1, rounds, roundMs);
  const forwardB512 = await measure(() => forward.run({ x: b512.x }), 512, rounds, roundMs);
  await forward.dispose();

  opts.onFigure?.('mlp train step');
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

export interface DaBench {
  provider: ExecutionProvider;
  intraOpNumThreads: number;
  /** The DA network measured: embedding, hidden width, hash buckets, bag length, intents. */
  model: string;
  /** DA forward samples/s at batch 1 and 512, feature encoding included (median). */
  forwardB1: number;
  forwardB512: number;
  /** The same forward graph run bare through an InferenceSession with pre-built tensors, B = 512. */
  rawOrtForwardB512: number;
  /** forwardB512 / rawOrtForwardB512, the median of the ratios of adjacent round pairs. */
  forwardB512OverRaw: number;
  /** DA supervised-step samples/s at batch 256, encoding included. */
  trainB256: number;
  /** GRPO samples/s (K = 16, promptsPerStep × K per step), rollout reward included. */
  grpoSamples: number;
  /** GRPO batch: prompts per step and K. */
  grpoBatch: { promptsPerStep: number; K: number };
  /** Arena episodes/s, scripted DA against scripted CA through runMatch (judge and rewards included). */
  arenaEpisodes: number;
}

export interface DaBenchOptions extends BenchOptions {
  /** Prompts per GRPO step (default 16: 256 samples a step at K = 16). */
  grpoPromptsPerStep?: number;
}

/** Measures the builtin DA and the arena; takes tens of seconds. */
export async function benchDa(domain: Domain, opts: DaBenchOptions = {}): Promise<DaBench> {
  const rounds = opts.rounds ?? 7;
  const roundMs = opts.roundMs ?? 200;
  const settings = opts.session ?? {};
  const arena = domain.scenarios.filter((s) => s.set === 'arena');
  if (arena.length === 0) throw new Error(`benchDa: domain '${domain.name}' has no arena scenarios`);
  const config: SparringConfig = withEpisodes(DEFAULT_CONFIG, 1);
  const ca = new ScriptedCa(domain);
  const scripted = new ScriptedDa();
  const match = (seed: number, cfg: SparringConfig = config) =>
    runMatch({ matchId: 'bench', createdAt: '', domain, scenarios: arena, scenarioSet: 'arena', da: scripted, ca, judge: judgeEpisode, config: cfg, seed });

  // Real observations: every DA decision of a few scripted arena episodes.
  const { episodes } = await match(1, withEpisodes(config, 6));
  const points: DaDecisionPoint[] = sliceEpisodes(
    episodes.map((e) => recordedFromEpisode(e, domain.scenarios)),
    config.arena.maxDaTurns,
  );
  const obsOf = (n: number): DaObservation[] => Array.from({ length: n }, (_, i) => points[i % points.length]!.obs);

  const intents = domain.taxonomy.map((t) => ({ intent: t.intent, tool: t.tool }));
  const model = await DaModel.create({ intents, seed: 1, session: settings });
  try {
    const obs1 = obsOf(1);
    const obs512 = obsOf(512);
    opts.onFigure?.('DA forward');
    const forwardB1 = await measure(() => model.predict(obs1), 1, rounds, roundMs);

    opts.onFigure?.('DA forward and bare onnxruntime forward, B = 512, in adjacent pairs');
    const { session } = await createSession(buildDaForward(model.shape).bytes, settings, 'DA forward (bench)');
    const enc = encodeObservations(obs512, new BagCache(model.shape.hashing), true);
    const L = model.shape.hashing.bagLength;
    const weights = splitWeights(daParams(model.shape), (await model.snapshot()).weights, 'the bench DA');
    const feeds: Record<string, OrtTensor> = {
      bag_idx: new OrtTensor('float32', enc.bagIdx, [512, L]),
      bag_w: new OrtTensor('float32', enc.bagW, [512, L]),
      state: new OrtTensor('float32', enc.state, [512, enc.state.length / 512]),
      mask: new OrtTensor('float32', enc.mask, [512, N_ACTIONS]),
    };
    for (const [name, spec] of Object.entries(daParams(model.shape))) feeds[name] = new OrtTensor('float32', weights[name as keyof typeof weights], spec.shape);
    // Three times the rounds, a third as long: pairs of adjacent short rounds see the same load.
    const pair = await measurePaired(
      () => model.predict(obs512),
      () => session.run(feeds),
      512,
      3 * rounds,
      roundMs / 3,
    );
    const [forwardB512, rawOrtForwardB512, forwardB512OverRaw] = [pair.a, pair.b, pair.ratio];
    await session.release();

    opts.onFigure?.('DA supervised step');
    const obs256 = obsOf(256);
    const targets = obs256.map((_, i) => ({ choice: points[i % points.length]!.original.choice ?? 'ask' }));
    const trainB256 = await measure(() => model.supervisedStep(obs256, targets, { lr: 1e-4 }), 256, rounds, roundMs);

    opts.onFigure?.('GRPO with rollouts');
    const promptsPerStep = opts.grpoPromptsPerStep ?? 16;
    const reference = await DaModel.fromSnapshot(await model.snapshot(), settings);
    const args: GrpoArgs<DaDecisionPoint, DaObservation, DaChoice> = {
      model,
      reference,
      prompts: points,
      observe: (p) => p.obs,
      reward: daRolloutReward({ config, ca, judge: judgeEpisode }, greedyActor(model)),
      actionKey: (a) => a,
      config: { ...DA_GRPO, promptsPerStep, lr: 1e-4, steps: 1_000_000 },
    };
    let step = 0;
    const grpoSamples = await measure(() => grpoStep(args, step++), promptsPerStep * DA_GRPO.K, rounds, roundMs);
    await reference.dispose();

    opts.onFigure?.('arena episodes');
    let seed = 100;
    const arenaEpisodes = await measure(() => match(seed++), arena.length, rounds, roundMs);

    return {
      provider: model.provider,
      intraOpNumThreads: settings.intraOpNumThreads ?? defaultThreads(),
      model: `E${model.shape.embedDim} H${model.shape.hidden} V${model.shape.hashing.buckets} L${L} N${intents.length}`,
      forwardB1,
      forwardB512,
      rawOrtForwardB512,
      forwardB512OverRaw,
      trainB256,
      grpoSamples,
      grpoBatch: { promptsPerStep, K: DA_GRPO.K },
      arenaEpisodes,
    };
  } finally {
    await model.dispose();
  }
}
