/**
 * The builtin CA as a trainable policy (`PolicyModel<CaObservation, CaChoice>`): the network of
 * `ca-net.ts` on onnxruntime, with its weights and AdamW state.
 *
 * One logical optimiser state serves both objectives: the supervised and the policy-gradient
 * graphs each have a runner, and whichever ran last owns the state; the other takes it over
 * (weights, moments and step) before its next step.
 *
 * Snapshot layout: `weights` is every parameter as float32 in `caParams` order; `optimiser` is
 * AdamW's m for every parameter, then v for every parameter (same order), then the step count as
 * one float32. `modelJson` lists the network's kind, sizes, heads, hashing, intents and the
 * parameter shapes, so a snapshot can be checked before its bytes are read.
 */
import type { CaChoice } from '../core/agents/ca-choices';
import { CA_HEADS, CA_HEAD_OFFSETS, CA_HEAD_SIZES, CA_LOGITS, decodeCaChoice, encodeCaChoice, DECOY_HEAD } from '../core/agents/ca-choices';
import type { DomainTool, TaxonomyEntry } from '../core/domain/types';
import { DOMAIN_TOOLS } from '../core/domain/types';
import type { ModelSnapshot, PolicyGradientBatch, PolicyGradientHyper, PolicyModel, StepMetrics, SupervisedHyper } from '../core/rl/ports';
import type { CaObservation } from '../core/world/environment';
import { buildCaForward, buildCaPgStep, buildCaSftStep, caNetShape, caParams, CA_STATE_FEATURES, encodeCaObservations } from './ca-net';
import { temperLogp } from './policy-loss';
import { HashedTexts } from './features';
import type { CaBatch, CaNetShape, CaParam } from './ca-net';
import type { AdamWHyper, TrainStepGraph } from './graph';
import { initParams, zeroParams } from './params';
import { RowBagEncoder, rowBagFeeds } from './row-bags';
import { ForwardRunner, TrainStepRunner } from './runner';
import type { Feed, TrainState } from './runner';
import type { ExecutionProvider, SessionSettings } from './session';

/** Identifies this network in a snapshot's modelJson. */
export const CA_MODEL_KIND = 'sparring/ca-net';
export const CA_MODEL_VERSION = 1;

export interface CaModelOptions {
  /** Sizes other than the taxonomy's intents (defaults: DEFAULT_CA_NET). */
  sizes?: Partial<Omit<CaNetShape, 'intents' | 'intentTools'>>;
  /** Seeds the initial weights. */
  seed?: number;
  session?: SessionSettings;
  /** AdamW settings other than the learning rate, which each step passes. */
  adam?: Partial<Omit<AdamWHyper, 'lr'>>;
}

/** What `modelJson` holds. */
interface CaModelJson {
  kind: string;
  version: number;
  heads: { name: string; size: number }[];
  stateFeatures: readonly string[];
  hashing: CaNetShape['hashing'];
  embedDim: number;
  hidden: number;
  intents: readonly string[];
  intentTools: readonly DomainTool[];
  params: { name: string; shape: readonly number[] }[];
}

// ------------------------------------------------------------------ choices from log-probabilities

/** A choice drawn from row `row` of per-head log-probabilities [B, CA_LOGITS]; `u` gives uniform [0, 1) draws, one per head. */
export function sampleChoice(logp: Float32Array, row: number, u: () => number): { choice: CaChoice; logProb: number } {
  const ix: number[] = [];
  let logProb = 0;
  CA_HEAD_SIZES.forEach((size, h) => {
    const base = row * CA_LOGITS + CA_HEAD_OFFSETS[h]!;
    let total = 0;
    for (let i = 0; i < size; i++) total += Math.exp(logp[base + i]!);
    let r = u() * total;
    let pick = -1;
    for (let i = 0; i < size; i++) {
      const p = Math.exp(logp[base + i]!);
      if (p <= 0) continue;
      pick = i; // rounding can leave r ≥ 0 after the last term: the last possible value then wins
      r -= p;
      if (r < 0) break;
    }
    ix.push(pick);
    logProb += logp[base + pick]!;
  });
  return { choice: decodeCaChoice(ix), logProb };
}

/** The most probable value of each head, from row `row` of [B, CA_LOGITS]. */
export function greedyChoice(logp: Float32Array, row: number): { choice: CaChoice; logProb: number } {
  const ix: number[] = [];
  let logProb = 0;
  CA_HEAD_SIZES.forEach((size, h) => {
    const base = row * CA_LOGITS + CA_HEAD_OFFSETS[h]!;
    let best = 0;
    for (let i = 1; i < size; i++) if (logp[base + i]! > logp[base + best]!) best = i;
    ix.push(best);
    logProb += logp[base + best]!;
  });
  return { choice: decodeCaChoice(ix), logProb };
}

/** Σ_h logπ_h(choice_h) from row `row` of [B, CA_LOGITS]. */
export function choiceLogProb(logp: Float32Array, row: number, choice: CaChoice): number {
  return encodeCaChoice(choice).reduce((s, i, h) => s + logp[row * CA_LOGITS + CA_HEAD_OFFSETS[h]! + i]!, 0);
}

// ------------------------------------------------------------------ the model

export class CaModel implements PolicyModel<CaObservation, CaChoice> {
  private readonly intentIndex: Map<string, number>;
  private readonly paramNames: CaParam[];
  /** The state while no train runner owns it (at start and after restore). */
  private state: TrainState<CaParam>;
  private owner: TrainStepRunner<CaParam> | null = null;
  private sftRunner: Promise<TrainStepRunner<CaParam>> | null = null;
  private pgRunner: Promise<TrainStepRunner<CaParam>> | null = null;
  private sftGraph: TrainStepGraph<CaParam> | null = null;
  private pgGraph: TrainStepGraph<CaParam> | null = null;
  private readonly rowBags = new RowBagEncoder();
  /** Hashed texts of this network's observations, kept between calls (`encodeCaObservations`). */
  private readonly texts: HashedTexts;

  private constructor(
    readonly shape: CaNetShape,
    private readonly forwardRunner: ForwardRunner,
    weights: Record<CaParam, Float32Array>,
    private readonly opts: CaModelOptions,
  ) {
    this.intentIndex = new Map(shape.intents.map((n, i) => [n, i]));
    this.texts = new HashedTexts(shape.hashing, 20_000);
    this.paramNames = Object.keys(caParams(shape)) as CaParam[];
    this.state = { weights, m: zerosLike(weights), v: zerosLike(weights), step: 0 };
  }

  /** A fresh model for a domain's taxonomy, with seeded initial weights. */
  static async create(taxonomy: readonly TaxonomyEntry[], opts: CaModelOptions = {}): Promise<CaModel> {
    return CaModel.fromShape(caNetShape(taxonomy, opts.sizes), opts);
  }

  /** A model shaped and loaded from a snapshot (whatever the sizes it was saved with). */
  static async fromSnapshot(s: ModelSnapshot, opts: Omit<CaModelOptions, 'sizes'> = {}): Promise<CaModel> {
    const j = parseModelJson(s.modelJson);
    const shape: CaNetShape = { intents: j.intents, intentTools: j.intentTools, hashing: j.hashing, embedDim: j.embedDim, hidden: j.hidden };
    const model = await CaModel.fromShape(shape, opts, 'none');
    await model.restore(s);
    return model;
  }

  /** @param init 'none': zero weights, for a model whose snapshot is restored next. */
  private static async fromShape(shape: CaNetShape, opts: CaModelOptions, init: 'seeded' | 'none' = 'seeded'): Promise<CaModel> {
    if (shape.intents.length !== shape.intentTools.length)
      throw new Error(`CaModel: ${shape.intents.length} intents but ${shape.intentTools.length} intent tools`);
    const forward = await ForwardRunner.create(buildCaForward(shape), opts.session);
    const params = caParams(shape);
    return new CaModel(shape, forward, init === 'seeded' ? initParams(params, opts.seed ?? 0) : zeroParams(params), opts);
  }

  /** Index of an intent in the network's intent table; throws on an unknown one. */
  intentOf(intent: string): number {
    const i = this.intentIndex.get(intent);
    if (i === undefined) throw new Error(`CaModel: unknown intent "${intent}" (the network knows the ${this.shape.intents.length} intents of its taxonomy)`);
    return i;
  }

  /** Current weights (owned by the model; do not modify). */
  get weights(): Record<CaParam, Float32Array> {
    return this.owner ? this.owner.weights : this.state.weights;
  }

  private current(): TrainState<CaParam> {
    return this.owner ? this.owner.snapshot() : this.state;
  }

  private weightFeeds(): Record<string, Feed> {
    const specs = caParams(this.shape);
    const w = this.weights;
    const out: Record<string, Feed> = {};
    for (const p of this.paramNames) out[p] = { data: w[p], dims: specs[p].shape };
    return out;
  }

  private encode(obs: readonly CaObservation[]): CaBatch {
    return encodeCaObservations(obs, this.shape, this.intentIndex, this.texts);
  }

  private obsFeeds(b: CaBatch): Record<string, Feed> {
    const L = b.size === 0 ? 0 : b.bagIdx.length / b.size;
    return {
      intent: { data: b.intent, dims: [b.size] },
      bag_idx: { data: b.bagIdx, dims: [b.size, L] },
      bag_w: { data: b.bagW, dims: [b.size, L] },
      state: { data: b.state, dims: [b.size, CA_STATE_FEATURES.length] },
    };
  }

  /** A batch as the train steps take it: bags as distinct rows and a weight matrix. */
  private trainFeeds(b: CaBatch): Record<string, Feed> {
    const L = b.bagIdx.length / b.size;
    return {
      intent: { data: b.intent, dims: [b.size] },
      ...rowBagFeeds(this.rowBags.encode(b.bagIdx, b.bagW, b.size, L)),
      state: { data: b.state, dims: [b.size, CA_STATE_FEATURES.length] },
    };
  }

  /** Per-head log-probabilities, [B, CA_LOGITS] row-major (heads side by side, offsets CA_HEAD_OFFSETS). */
  async headLogProbs(obs: readonly CaObservation[]): Promise<Float32Array> {
    if (obs.length === 0) return new Float32Array(0);
    const out = await this.forwardRunner.run({ ...this.weightFeeds(), ...this.obsFeeds(this.encode(obs)) });
    return out.logp!.data as Float32Array;
  }

  async sample(obs: readonly CaObservation[], u: () => number, temperature = 1): Promise<{ action: CaChoice; logProb: number }[]> {
    const logp = temperLogp(await this.headLogProbs(obs), temperature, CA_HEAD_SIZES);
    return obs.map((_, b) => {
      const { choice, logProb } = sampleChoice(logp, b, u);
      return { action: choice, logProb };
    });
  }

  async greedy(obs: readonly CaObservation[]): Promise<{ action: CaChoice; logProb: number }[]> {
    const logp = await this.headLogProbs(obs);
    return obs.map((_, b) => {
      const { choice, logProb } = greedyChoice(logp, b);
      return { action: choice, logProb };
    });
  }

  async logProbs(obs: readonly CaObservation[], actions: readonly CaChoice[], temperature = 1): Promise<Float32Array> {
    sameLength(obs, actions, 'logProbs');
    const logp = temperLogp(await this.headLogProbs(obs), temperature, CA_HEAD_SIZES);
    return Float32Array.from(actions, (a, b) => choiceLogProb(logp, b, a));
  }

  /** Per-head indices [B, 6], refusing a decoy of the intent's own tool (the network never picks one). */
  private choiceIndices(obs: readonly CaObservation[], choices: readonly CaChoice[], what: string): BigInt64Array {
    const out = new BigInt64Array(choices.length * CA_HEADS.length);
    choices.forEach((c, b) => {
      const ix = encodeCaChoice(c);
      const own = this.shape.intentTools[this.intentOf(obs[b]!.intent)]!;
      if (ix[DECOY_HEAD] === 1 + DOMAIN_TOOLS.indexOf(own)) {
        throw new Error(`CaModel.${what}: sample ${b} uses a decoy of its own intent's tool (${own}), which the network never chooses`);
      }
      ix.forEach((v, h) => (out[b * CA_HEADS.length + h] = BigInt(v)));
    });
    return out;
  }

  /** The runner for a graph, holding the current state (taken over from the other runner when needed). */
  /** The provider the forward graph actually runs on (after any fallback). */
  get provider(): ExecutionProvider {
    return this.forwardRunner.provider;
  }

  private async takeOver(which: 'sft' | 'pg'): Promise<TrainStepRunner<CaParam>> {
    const hyper = { ...this.opts.adam };
    const session = this.opts.session;
    let runner: TrainStepRunner<CaParam>;
    if (which === 'sft') {
      this.sftGraph ??= buildCaSftStep(this.shape);
      const graph = this.sftGraph;
      this.sftRunner ??= TrainStepRunner.create(graph, this.current(), { hyper, session });
      runner = await this.sftRunner;
    } else {
      this.pgGraph ??= buildCaPgStep(this.shape);
      const graph = this.pgGraph;
      this.pgRunner ??= TrainStepRunner.create(graph, this.current(), { hyper, session });
      runner = await this.pgRunner;
    }
    if (this.owner !== runner) {
      // A runner just created was loaded from current(); loading again is harmless.
      runner.load(this.current());
      this.owner = runner;
    }
    return runner;
  }

  async supervisedStep(obs: readonly CaObservation[], targets: readonly CaChoice[], hyper: SupervisedHyper): Promise<StepMetrics> {
    sameLength(obs, targets, 'supervisedStep');
    if (obs.length === 0) throw new Error('CaModel.supervisedStep: empty batch');
    const target = this.choiceIndices(obs, targets, 'supervisedStep');
    const feeds = { ...this.trainFeeds(this.encode(obs)), target: { data: target, dims: [obs.length, CA_HEADS.length] } };
    const runner = await this.takeOver('sft');
    const r = await runner.step(feeds, { lr: hyper.lr });
    return { 'sft/loss': r.loss, 'sft/accuracy': scalar(r.outputs.accuracy), 'sft/grad_norm': r.gradNorm };
  }

  async policyGradientStep(batch: PolicyGradientBatch<CaObservation, CaChoice>, hyper: PolicyGradientHyper): Promise<StepMetrics> {
    const B = batch.obs.length;
    sameLength(batch.obs, batch.actions, 'policyGradientStep');
    if (B === 0) throw new Error('CaModel.policyGradientStep: empty batch');
    for (const [name, arr] of [
      ['advantages', batch.advantages],
      ['oldLogProbs', batch.oldLogProbs],
      ['refLogProbs', batch.refLogProbs],
    ] as const) {
      if (arr.length !== B) throw new Error(`CaModel.policyGradientStep: ${name} has ${arr.length} entries for ${B} samples`);
    }
    const action = this.choiceIndices(batch.obs, batch.actions, 'policyGradientStep');
    const feeds = {
      ...this.trainFeeds(this.encode(batch.obs)),
      action: { data: action, dims: [B, CA_HEADS.length] },
      advantage: { data: batch.advantages, dims: [B] },
      old_logp: { data: batch.oldLogProbs, dims: [B] },
      ref_logp: { data: batch.refLogProbs, dims: [B] },
      clip_eps: { data: new Float32Array([hyper.clipEps]), dims: [] },
      kl_beta: { data: new Float32Array([hyper.klBeta]), dims: [] },
      entropy_coef: { data: new Float32Array([hyper.entropyCoef ?? 0]), dims: [] },
      temperature: { data: new Float32Array([hyper.temperature ?? 1]), dims: [] },
    };
    const runner = await this.takeOver('pg');
    const r = await runner.step(feeds, { lr: hyper.lr });
    return {
      'gym/loss': r.loss,
      'gym/policy_loss': scalar(r.outputs.policy_loss),
      'gym/kl': scalar(r.outputs.kl),
      'gym/clip_frac': scalar(r.outputs.clip_frac),
      'gym/entropy': scalar(r.outputs.entropy),
      'gym/grad_norm': r.gradNorm,
    };
  }

  /** The modelJson of this network. */
  modelJson(): string {
    const specs = caParams(this.shape);
    const j: CaModelJson = {
      kind: CA_MODEL_KIND,
      version: CA_MODEL_VERSION,
      heads: CA_HEADS.map((h) => ({ name: h.name, size: h.values.length })),
      stateFeatures: CA_STATE_FEATURES,
      hashing: this.shape.hashing,
      embedDim: this.shape.embedDim,
      hidden: this.shape.hidden,
      intents: this.shape.intents,
      intentTools: this.shape.intentTools,
      params: this.paramNames.map((name) => ({ name, shape: specs[name].shape })),
    };
    return JSON.stringify(j);
  }

  async snapshot(): Promise<ModelSnapshot> {
    const s = this.current();
    const weights = concat(this.paramNames.map((p) => s.weights[p]));
    const optimiser = concat([...this.paramNames.map((p) => s.m[p]), ...this.paramNames.map((p) => s.v[p]), new Float32Array([s.step])]);
    return { modelJson: this.modelJson(), weights: bytesOf(weights), optimiser: bytesOf(optimiser) };
  }

  async restore(saved: ModelSnapshot): Promise<void> {
    const s = withAppendedHeads(saved);
    const problems = fitProblems(parseModelJson(s.modelJson), JSON.parse(this.modelJson()) as CaModelJson);
    if (problems.length > 0) throw new Error(`CaModel.restore: the snapshot does not fit this model: ${problems.join('; ')}`);
    const specs = caParams(this.shape);
    const sizes = this.paramNames.map((p) => specs[p].shape.reduce((a, d) => a * d, 1));
    const total = sizes.reduce((a, b) => a + b, 0);
    const w = floatsOf(s.weights, 'weights');
    if (w.length !== total) throw new Error(`CaModel.restore: the snapshot has ${w.length} weights, the model needs ${total}`);
    const split = (data: Float32Array, from: number): Record<CaParam, Float32Array> => {
      const out = {} as Record<CaParam, Float32Array>;
      let at = from;
      this.paramNames.forEach((p, i) => {
        out[p] = data.slice(at, at + sizes[i]!);
        at += sizes[i]!;
      });
      return out;
    };
    const weights = split(w, 0);
    let state: TrainState<CaParam> = { weights, m: zerosLike(weights), v: zerosLike(weights), step: 0 };
    if (s.optimiser) {
      const o = floatsOf(s.optimiser, 'optimiser state');
      if (o.length !== 2 * total + 1)
        throw new Error(`CaModel.restore: the snapshot has ${o.length} optimiser values, the model needs ${2 * total + 1} (m, v, step)`);
      state = { weights, m: split(o, 0), v: split(o, total), step: o[2 * total]! };
    }
    this.state = state;
    this.owner = null;
  }

  async dispose(): Promise<void> {
    await this.forwardRunner.dispose();
    for (const r of [this.sftRunner, this.pgRunner]) if (r) await (await r).dispose();
  }
}

// ------------------------------------------------------------------ helpers

/**
 * The logit a snapshot saved before a head was added gets for that head's first value (0 for the
 * others): 'need-first' e^10 / (1 + e^10) ≈ 0.99995, a random sentence e^10 / (4 + e^10) ≈ 0.9998,
 * so an older CA keeps stating its need first in a sentence drawn at random.
 */
const NEW_HEAD_PIN = 10;

/**
 * A snapshot saved before the last heads of CA_HEADS were added (placement, then phrasing) as one
 * with them: the output layer's new columns are zero weights, its bias pins each new head's first
 * value, the optimiser's moments are zero there. Any other snapshot is returned as it is (and
 * restore checks it as before).
 */
export function withAppendedHeads(s: ModelSnapshot): ModelSnapshot {
  const j = parseModelJson(s.modelJson);
  const want = CA_HEADS.map((h) => ({ name: h.name, size: h.values.length }));
  const had = j.heads.length;
  if (had >= want.length || had === 0 || JSON.stringify(j.heads) !== JSON.stringify(want.slice(0, had))) return s;
  const before = CA_HEAD_OFFSETS[had]!;
  const added = CA_LOGITS - before;
  /** Columns (from `before`) that start an appended head: their bias is pinned. */
  const pinned = new Set(CA_HEAD_OFFSETS.slice(had).map((o) => o - before));
  const sizeOf = (shape: readonly number[]) => shape.reduce((a, d) => a * d, 1);
  const widen = (data: Float32Array, from: number, pin: boolean): [Float32Array, number] => {
    const parts: Float32Array[] = [];
    let at = from;
    for (const p of j.params) {
      const n = sizeOf(p.shape);
      const src = data.subarray(at, at + n);
      at += n;
      const last = p.shape.at(-1);
      if ((p.name === 'wo' || p.name === 'bo') && last === before) {
        const rows = n / before;
        const out = new Float32Array(rows * (before + added));
        for (let r = 0; r < rows; r++) {
          out.set(src.subarray(r * before, (r + 1) * before), r * (before + added));
          for (let c = 0; c < added; c++) out[r * (before + added) + before + c] = pin && p.name === 'bo' && pinned.has(c) ? NEW_HEAD_PIN : 0;
        }
        parts.push(out);
      } else parts.push(src.slice());
    }
    return [concat(parts), at];
  };
  const w = floatsOf(s.weights, 'weights');
  const [weights] = widen(w, 0, true);
  let optimiser: Uint8Array | null = null;
  if (s.optimiser) {
    const o = floatsOf(s.optimiser, 'optimiser state');
    const [m, next] = widen(o, 0, false);
    const [v, end] = widen(o, next, false);
    optimiser = bytesOf(concat([m, v, o.subarray(end, end + 1)]));
  }
  const params = j.params.map((p) =>
    (p.name === 'wo' || p.name === 'bo') && p.shape.at(-1) === before ? { ...p, shape: [...p.shape.slice(0, -1), before + added] } : p,
  );
  return { ...s, modelJson: JSON.stringify({ ...j, heads: want, params }), weights: bytesOf(weights), optimiser };
}

function sameLength(a: readonly unknown[], b: readonly unknown[], what: string): void {
  if (a.length !== b.length) throw new Error(`CaModel.${what}: ${a.length} observations but ${b.length} choices`);
}

function scalar(f: { data: Float32Array | BigInt64Array | Uint8Array } | undefined): number {
  const v = f?.data[0];
  return typeof v === 'number' ? v : Number.NaN;
}

function zerosLike(w: Record<CaParam, Float32Array>): Record<CaParam, Float32Array> {
  const out = {} as Record<CaParam, Float32Array>;
  for (const [k, v] of Object.entries(w) as [CaParam, Float32Array][]) out[k] = new Float32Array(v.length);
  return out;
}

function concat(parts: readonly Float32Array[]): Float32Array {
  const out = new Float32Array(parts.reduce((a, p) => a + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

function bytesOf(f: Float32Array): Uint8Array {
  return new Uint8Array(f.buffer, f.byteOffset, f.byteLength);
}

function floatsOf(bytes: Uint8Array, what: string): Float32Array {
  if (bytes.byteLength % 4 !== 0) throw new Error(`CaModel.restore: the ${what} are ${bytes.byteLength} bytes, not a whole number of float32 values`);
  // Copy: the bytes may not be 4-byte aligned.
  return new Float32Array(bytes.slice().buffer, 0, bytes.byteLength / 4);
}

function parseModelJson(text: string): CaModelJson {
  let j: unknown;
  try {
    j = JSON.parse(text);
  } catch (e) {
    throw new Error(`CaModel: the snapshot's modelJson is not JSON (${(e as Error).message})`, { cause: e });
  }
  const o = j as Partial<CaModelJson> | null;
  if (!o || typeof o !== 'object' || o.kind !== CA_MODEL_KIND) {
    throw new Error(`CaModel: the snapshot is not a builtin CA network (kind ${JSON.stringify(o?.kind)}, expected "${CA_MODEL_KIND}")`);
  }
  if (o.version !== CA_MODEL_VERSION)
    throw new Error(`CaModel: the snapshot is version ${o.version} of the CA network; this build reads version ${CA_MODEL_VERSION}`);
  for (const key of ['heads', 'stateFeatures', 'hashing', 'embedDim', 'hidden', 'intents', 'intentTools', 'params'] as const) {
    if (o[key] === undefined) throw new Error(`CaModel: the snapshot's modelJson has no "${key}"`);
  }
  return o as CaModelJson;
}

/** Why a snapshot's network differs from this one, one phrase per difference. */
function fitProblems(got: CaModelJson, want: CaModelJson): string[] {
  const out: string[] = [];
  const fmt = (s: readonly number[]) => `[${s.join(', ')}]`;
  const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);
  if (!same(got.heads, want.heads)) out.push(`heads ${JSON.stringify(got.heads)} in the snapshot, ${JSON.stringify(want.heads)} here`);
  if (!same(got.stateFeatures, want.stateFeatures))
    out.push(`state features [${got.stateFeatures.join(', ')}] in the snapshot, [${want.stateFeatures.join(', ')}] here`);
  if (!same(got.hashing, want.hashing)) out.push(`hashing ${JSON.stringify(got.hashing)} in the snapshot, ${JSON.stringify(want.hashing)} here`);
  if (!same(got.intents, want.intents)) {
    const i = want.intents.findIndex((n, k) => got.intents[k] !== n);
    const at = i >= 0 ? i : want.intents.length;
    out.push(
      `intents differ (${got.intents.length} in the snapshot, ${want.intents.length} here; first difference at #${at}: ${JSON.stringify(got.intents[at] ?? null)} vs ${JSON.stringify(want.intents[at] ?? null)})`,
    );
  } else if (!same(got.intentTools, want.intentTools)) out.push('the intents route to different tools');
  const gotParams = new Map(got.params.map((p) => [p.name, p.shape]));
  for (const p of want.params) {
    const s = gotParams.get(p.name);
    if (!s) out.push(`parameter ${p.name} is missing from the snapshot`);
    else if (!same(s, p.shape)) out.push(`parameter ${p.name} is ${fmt(s)} in the snapshot, ${fmt(p.shape)} here`);
  }
  for (const name of gotParams.keys()) if (!want.params.some((p) => p.name === name)) out.push(`the snapshot has an unknown parameter ${name}`);
  return out;
}
