/**
 * The builtin CA's network (DESIGN.md §4) and its three graphs.
 *
 * Inputs, per observation:
 *   intent  [B]    int64    the hidden intent's index in `shape.intents`
 *   bag_idx [B, L] float32  hashed word n-grams, three bags of hashing.bagLength each: the agent's
 *                           last message, everything the agent said, everything the customer said
 *                           (bucket ids as float32, exact below 2^24, cast to int64 in the graph)
 *   bag_w   [B, L] float32  their weights (1/√n per bag, 0 on padding)
 *   state   [B, S] float32  CA_STATE_FEATURES
 *
 * Network: emb [V, E] weighted bag sum → concat state → · W1 + b1, plus the intent's row of
 * intent_emb [N, H] → ReLU [B, H] → · Wo + bo → logits [B, CA_LOGITS], the heads of `CA_HEADS` side by
 * side (offsets CA_HEAD_OFFSETS). The decoy head's own-tool column gets −1e4 (a constant table
 * gathered by intent), so a customer never uses its own tool's domain as a decoy. Each head is
 * log-softmaxed on its own; a choice's log-probability is the sum of its entries, one per head.
 *
 * Train steps take the bags as the batch's distinct ids and a [B, U] weight matrix instead
 * (models/row-bags.ts): no order-dependent scatter-add, so they may run on every core.
 *
 * Graphs (weights are inputs in all three, so a train step's result is visible to the next
 * forward without rebuilding a session):
 *   forward:   → logp [B, 20]
 *   sft step:  Σ_heads CE of a target choice, batch mean, AdamW
 *   pg step:   clipped-ratio GRPO surrogate + klBeta · k3 KL to a reference, AdamW
 */
import { POLICY_GRADIENT_INPUTS, policyGradientLoss } from './policy-loss';
import type { CaTurnState } from '../core/agents/ca-choices';
import { CA_HEADS, CA_HEAD_OFFSETS, CA_HEAD_SIZES, CA_LOGITS, DECOY_HEAD, caTurnState } from '../core/agents/ca-choices';
import { DOMAIN_TOOLS } from '../core/domain/types';
import type { DomainTool, TaxonomyEntry } from '../core/domain/types';
import type { CaObservation } from '../core/world/environment';
import { HashedTexts } from './features';
import { ROW_BAG_INPUTS, rowBagSum } from './row-bags';
import type { HashingConfig } from './features';
import { buildForward, buildTrainStep } from './graph';
import type { BuiltGraph, Graph, ModelSpec, ParamSpec, Tensor, TrainStepGraph } from './graph';

/** The dialogue-state features, in vector order; each is in [0, 1]. */
export const CA_STATE_FEATURES = [
  'turn_0', // this is the customer's first utterance (the opening) …
  'turn_1', // … its second …
  'turn_2', // … its third …
  'turn_3plus', // … or a later one
  'agent_asks', // the agent's last message is a question
  'agent_explained', // the agent has made a statement (explained a result)
  'turns', // dialogue messages so far, min(n, 10) / 10
  'answered', // agent questions already answered, min(n, 2) / 2 (withholding is used up after one)
] as const;
export const N_STATE = CA_STATE_FEATURES.length;

/** The three hashed bags, in input order; each has its own namespace in the hash. */
export const CA_BAGS = ['ca.last_agent:', 'ca.agent:', 'ca.self:'] as const;

/** Shape of the network; stored in every snapshot so a checkpoint can be checked before loading. */
export interface CaNetShape {
  /** N: the intents the CA can be given, in order (the taxonomy's). */
  intents: readonly string[];
  /** Each intent's own tool, same order: the decoy head never picks it. */
  intentTools: readonly DomainTool[];
  /** Hashing of each of the three bags (bagLength is per bag). */
  hashing: HashingConfig;
  /** E: embedding width of a hashed n-gram. */
  embedDim: number;
  /** H: hidden layer width. */
  hidden: number;
}

export const DEFAULT_CA_NET: Omit<CaNetShape, 'intents' | 'intentTools'> = {
  hashing: { buckets: 1 << 13, bagLength: 48, wordNgrams: [1, 2], charNgrams: [] },
  embedDim: 32,
  hidden: 64,
};

/** The shape for a domain's taxonomy, with optional overrides of the sizes. */
export function caNetShape(taxonomy: readonly TaxonomyEntry[], sizes: Partial<Omit<CaNetShape, 'intents' | 'intentTools'>> = {}): CaNetShape {
  if (taxonomy.length === 0) throw new Error('CA network: the taxonomy has no intents');
  return { ...DEFAULT_CA_NET, ...sizes, intents: taxonomy.map((e) => e.intent), intentTools: taxonomy.map((e) => e.tool) };
}

export type CaParam = 'emb' | 'intent_emb' | 'w1' | 'b1' | 'wo' | 'bo';
type ObsInput = 'intent' | 'bag_idx' | 'bag_w' | 'state';
/** Train steps take the bags as distinct ids and a weight matrix (models/row-bags.ts). */
type TrainObsInput = 'intent' | keyof typeof ROW_BAG_INPUTS | 'state';
type SftInput = TrainObsInput | 'target';
type PgInput = TrainObsInput | 'action' | 'advantage' | 'old_logp' | 'ref_logp' | 'clip_eps' | 'kl_beta' | 'entropy_coef' | 'temperature';

/** Parameters in snapshot order. */
export function caParams(shape: CaNetShape): Record<CaParam, ParamSpec> {
  const { hashing, embedDim: E, hidden: H } = shape;
  const N = shape.intents.length;
  return {
    // Normal(0.3): bag vectors start with components of std ≈ 0.3 (Σ w² = 1 over a bag).
    emb: { shape: [hashing.buckets, E], init: { normal: 0.3 }, decay: false },
    intent_emb: { shape: [N, H], init: { normal: 0.3 }, decay: false },
    w1: { shape: [E + N_STATE, H], init: 'he' },
    b1: { shape: [H] },
    // Small output weights: the untrained policy is close to uniform within each head.
    wo: { shape: [H, CA_LOGITS], init: { normal: 0.05 } },
    bo: { shape: [CA_LOGITS] },
  };
}

/** Total bag length L over the three bags. */
export function bagLength(shape: CaNetShape): number {
  return shape.hashing.bagLength * CA_BAGS.length;
}

function obsInputs(shape: CaNetShape) {
  const L = bagLength(shape);
  return {
    intent: { dtype: 'int64', shape: ['B'] },
    bag_idx: { dtype: 'float32', shape: ['B', L] },
    bag_w: { dtype: 'float32', shape: ['B', L] },
    state: { dtype: 'float32', shape: ['B', N_STATE] },
  } as const;
}

function trainObsInputs() {
  return {
    intent: { dtype: 'int64', shape: ['B'] },
    ...ROW_BAG_INPUTS,
    state: { dtype: 'float32', shape: ['B', N_STATE] },
  } as const;
}

/** Added to the logit of a choice that is never allowed: exp(−1e4) is 0 in float32, yet the loss stays finite. */
const MASKED = -1e4;

/** [N, CA_LOGITS]: MASKED at each intent's own tool in the decoy head, 0 elsewhere. */
function maskTable(shape: CaNetShape): Float32Array {
  const N = shape.intents.length;
  const out = new Float32Array(N * CA_LOGITS);
  shape.intentTools.forEach((tool, i) => {
    const col = CA_HEAD_OFFSETS[DECOY_HEAD]! + 1 + DOMAIN_TOOLS.indexOf(tool); // decoy values: none, then DOMAIN_TOOLS
    out[i * CA_LOGITS + col] = MASKED;
  });
  return out;
}

/** The weighted bag sum [B, E] from per-slot ids and weights (the inference graph). */
function slotBag(g: Graph, emb: Tensor, x: Record<'bag_idx' | 'bag_w', Tensor>): Tensor {
  return g.embeddingBag(emb, g.cast(x.bag_idx, 'int64'), { weights: x.bag_w }); // [B, E]
}

/** Per-head log-probabilities, side by side: [B, 20], from the bag sum [B, E]. */
function headLogp(g: Graph, shape: CaNetShape, p: Record<CaParam, Tensor>, bag: Tensor, x: Record<'intent' | 'state', Tensor>, temperature?: Tensor): Tensor {
  const pre = g.add(g.gemm(g.concat([bag, x.state], 1), p.w1, p.b1), g.gather(p.intent_emb, x.intent, 0)); // [B, H]
  const h = g.relu(pre); // [B, H]
  const mask = g.gather(g.constant(maskTable(shape), [shape.intents.length, CA_LOGITS]), x.intent, 0); // [B, CA_LOGITS]
  const masked = g.add(g.gemm(h, p.wo, p.bo), mask); // [B, 20]
  const logits = temperature ? g.div(masked, temperature) : masked; // every head at the sampling temperature
  const heads = g.split(logits, CA_HEAD_SIZES, 1); // [B, size_h] each
  return g.concat(
    heads.map((t) => g.logSoftmax(t, -1)),
    1,
  ); // [B, 20]
}

/** log π(choice) per sample: the six chosen entries summed. `choice` [B, 6] holds per-head indices. */
function choiceLogp(g: Graph, logp: Tensor, choice: Tensor): Tensor {
  const cols = g.add(choice, g.ints(CA_HEAD_OFFSETS)); // [B, 6] columns of logp
  return g.reduceSum(g.gatherElements(logp, cols, 1), [1]); // [B]
}

/** Mean over samples and heads of [argmax of the head = the given index]. */
function headAccuracy(g: Graph, logp: Tensor, choice: Tensor): Tensor {
  const pieces = g.split(logp, CA_HEAD_SIZES, 1); // [B, size_h] each
  const targets = g.split(
    choice,
    CA_HEAD_SIZES.map(() => 1),
    1,
  ); // [B, 1] each
  const hits = pieces.map((t, h) => {
    const best = g.op('ArgMax', [t], { axis: { type: 'int', value: 1 }, keepdims: { type: 'int', value: 1 } }, [{ dtype: 'int64', shape: ['B', 1] }])[0]!;
    return g.cast(g.equal(best, targets[h]!), 'float32'); // [B, 1]
  });
  return g.reduceMean(g.concat(hits, 1)); // []
}

export function forwardSpec(shape: CaNetShape): ModelSpec<CaParam, ObsInput> {
  return { name: 'ca-net', params: caParams(shape), inputs: obsInputs(shape) };
}

/** Inference graph: logp [B, 20], per-head log-probabilities side by side. */
export function buildCaForward(shape: CaNetShape): BuiltGraph {
  return buildForward(forwardSpec(shape), (g, p, x) => ({ logp: headLogp(g, shape, p, slotBag(g, p.emb, x), x) }));
}

/** Supervised step: mean over the batch of Σ_heads CE of `target` [B, 6]. Extra output: accuracy (per head). */
export function buildCaSftStep(shape: CaNetShape): TrainStepGraph<CaParam, SftInput> {
  const spec: ModelSpec<CaParam, SftInput> = {
    name: 'ca-net.sft',
    params: caParams(shape),
    inputs: { ...trainObsInputs(), target: { dtype: 'int64', shape: ['B', CA_HEADS.length] } },
  };
  return buildTrainStep(spec, (g, p, x) => {
    const logp = headLogp(g, shape, p, rowBagSum(g, p.emb, x), x); // [B, 20]
    const loss = g.neg(g.reduceMean(choiceLogp(g, logp, x.target))); // []
    return { loss, outputs: { accuracy: headAccuracy(g, logp, x.target) } };
  });
}

/**
 * GRPO step on one factored choice per sample (`action` [B, 6], per-head indices):
 *   logπ(a) = Σ_h logπ_h(a_h), ρ = exp(logπ(a) − old_logp),
 *   surrogate = −mean(min(ρÂ, clip(ρ, 1−ε, 1+ε)Â)),
 *   k3 = exp(ref_logp − logπ(a)) − (ref_logp − logπ(a)) − 1, loss = surrogate + β·mean(k3).
 * clip_eps (ε) and kl_beta (β) are scalar inputs so schedules and live knob changes need no rebuild;
 * so is the temperature T, which every head's logits are divided by (models/policy-loss.ts).
 * Extra outputs: policy_loss, kl, clip_frac, entropy (Σ over heads, batch mean).
 */
export function buildCaPgStep(shape: CaNetShape): TrainStepGraph<CaParam, PgInput> {
  const spec: ModelSpec<CaParam, PgInput> = {
    name: 'ca-net.pg',
    params: caParams(shape),
    inputs: {
      ...trainObsInputs(),
      action: { dtype: 'int64', shape: ['B', CA_HEADS.length] },
      ...POLICY_GRADIENT_INPUTS,
    },
  };
  return buildTrainStep(spec, (g, p, x) => {
    const logpAll = headLogp(g, shape, p, rowBagSum(g, p.emb, x), x, x.temperature); // [B, 20] at T
    const logp = choiceLogp(g, logpAll, x.action); // [B] log π_T(a|s)
    return policyGradientLoss(g, logp, logpAll, x);
  });
}

// ------------------------------------------------------------------ features

/** The state vector of CA_STATE_FEATURES for one observation. */
export function stateFeatures(obs: CaObservation, s: CaTurnState, out: Float32Array, offset = 0): void {
  const turn = Math.min(s.customerTurns, 3);
  const v = [
    turn === 0 ? 1 : 0,
    turn === 1 ? 1 : 0,
    turn === 2 ? 1 : 0,
    turn === 3 ? 1 : 0,
    s.lastAgentAsks ? 1 : 0,
    s.explained ? 1 : 0,
    Math.min(obs.dialogue.length, 10) / 10,
    Math.min(s.questionsAnswered, 2) / 2,
  ];
  for (let i = 0; i < N_STATE; i++) out[offset + i] = v[i]!;
}

/** A batch of observations as the network's inputs. */
export interface CaBatch {
  intent: BigInt64Array; // [B]
  bagIdx: Float32Array; // [B, L]
  bagW: Float32Array; // [B, L]
  state: Float32Array; // [B, S]
  size: number;
}

/**
 * Encodes observations; throws, naming it, on an intent the network does not know. `hashed`: a
 * memo of this shape's hashing kept by the caller between batches (a fresh one by default).
 */
export function encodeCaObservations(
  obs: readonly CaObservation[],
  shape: CaNetShape,
  intentIndex: ReadonlyMap<string, number>,
  hashed: HashedTexts = new HashedTexts(shape.hashing),
): CaBatch {
  const B = obs.length;
  const Lb = shape.hashing.bagLength;
  const L = bagLength(shape);
  const intent = new BigInt64Array(B);
  const bagIdx = new Float32Array(B * L);
  const bagW = new Float32Array(B * L);
  const state = new Float32Array(B * N_STATE);
  // A GRPO batch repeats each prompt's observation K times (the same object): encode it once.
  const first = new Map<CaObservation, number>();
  obs.forEach((o, b) => {
    const j = first.get(o);
    if (j !== undefined) {
      intent[b] = intent[j]!;
      bagIdx.copyWithin(b * L, j * L, (j + 1) * L);
      bagW.copyWithin(b * L, j * L, (j + 1) * L);
      state.copyWithin(b * N_STATE, j * N_STATE, (j + 1) * N_STATE);
      return;
    }
    first.set(o, b);
    const i = intentIndex.get(o.intent);
    if (i === undefined) throw new Error(`CA network: unknown intent "${o.intent}" (the network knows the ${shape.intents.length} intents of its taxonomy)`);
    intent[b] = BigInt(i);
    const s = caTurnState(o);
    const texts = [
      s.lastAgent ?? '',
      o.dialogue
        .filter((d) => d.role === 'agent')
        .map((d) => d.text)
        .join(' '),
      o.dialogue
        .filter((d) => d.role === 'customer')
        .map((d) => d.text)
        .join(' '),
    ];
    texts.forEach((text, k) => {
      const { indices, weights } = hashed.get(text, CA_BAGS[k]);
      bagIdx.set(indices, b * L + k * Lb);
      bagW.set(weights, b * L + k * Lb);
    });
    stateFeatures(o, s, state, b * N_STATE);
  });
  return { intent, bagIdx, bagW, state, size: B };
}
