/**
 * The builtin DA's network (DESIGN.md §4) and its three graphs.
 *
 * Inputs, per observation:
 *   bag_idx [B, L] float32  hashed n-grams of everything the customer has said (bucket ids; fed
 *                           as float32, exact below 2^24, and cast to int64 inside the graph, which
 *                           saves a BigInt per id on every batch)
 *   bag_w   [B, L] float32  their weights (1/√n, 0 on padding)
 *   state   [B, S] float32  the dialogue state of DA_STATE_FEATURES
 *   mask    [B, A] float32  1 where an action is structurally invalid (see `invalidActions`)
 *
 * Network: emb [V, E] weighted bag sum → concat state → [B, E + S] → ReLU(· W1 + b1) [B, H] →
 *   action head  [B, A = 9] over DA_CHOICES (masked: −1e4 added where mask = 1); in the grouped
 *                head (DaNetShape.intentTools) each domain tool's logit also gains
 *                α · log(the intent head's probability mass on that tool's intents)
 *   intent head  [B, N] over the taxonomy's intents (the `thinking` hypotheses)
 *
 * Train steps take the bags as the batch's distinct ids, a [T, U] weight matrix over its T
 * distinct bags and each sample's bag instead (bag_rows, bag_mat and its transpose, bag_sel;
 * models/row-bags.ts), which makes the embedding gradient row-sparse and free of scatter-adds,
 * so they run on every core and give the same bits each time.
 *
 * Graphs (weights are inputs in all three, so a train step's result is visible to the next
 * forward without rebuilding a session; `buildDaForward` can also bake them in, for export):
 *   forward:   → action_logp [B, A], intent_logp [B, N]
 *   sft step:  CE(action) + intent_weight · masked-mean CE(intent, label-smoothed by
 *              intent_smoothing towards the batch's label marginal), AdamW (emb row-fed: the
 *              runner holds the table and feeds the batch's rows)
 *   pg step:   clipped-ratio GRPO surrogate + klBeta · k3 KL to a reference, AdamW
 */
import { POLICY_GRADIENT_INPUTS, policyGradientLoss } from './policy-loss';
import type { DaChoice } from '../core/agents/da-actions';
import { DA_CHOICES, dialogueState, extractAmount } from '../core/agents/da-actions';
import type { DialogueState } from '../core/agents/da-actions';
import { TOOL_NAMES } from '../core/domain/types';
import type { DaObservation } from '../core/world/environment';
import { DEFAULT_HASHING, hashText } from './features';
import { ROW_BAG_INPUTS, rowBagSum } from './row-bags';
import type { HashingConfig } from './features';
import { buildForward, buildTrainStep } from './graph';
import type { BuiltGraph, Graph, ModelSpec, ParamSpec, Tensor, TrainStepGraph, TrainStepOptions } from './graph';

/** Size of the action head: DA_CHOICES in order. */
export const N_ACTIONS = DA_CHOICES.length;

/** The dialogue-state features, in vector order; each is in [0, 1]. */
export const DA_STATE_FEATURES = [
  'verified', // lookup_account succeeded
  ...TOOL_NAMES.map((t) => `called_${t}`), // the DA has called this tool (any result)
  'last_result_ok', // the last tool call succeeded …
  'last_result_error', // … failed …
  'last_result_none', // … or there was none yet
  'explained', // spoke since the last domain tool call
  'asks', // clarifying questions before any domain call, min(n, 3) / 3
  'turn', // DA steps so far / maxDaTurns
  'unparseable', // unparseable outputs so far, min(n, 3) / 3
  'amount_given', // the customer has said a money amount (what a dispute or transfer needs)
  'customer_last', // the last turn is the customer's: there are new words to answer
  'customer_turns', // customer utterances so far, min(n, 4) / 4
] as const;
export const N_STATE = DA_STATE_FEATURES.length;

/** Shape of the network; stored in every snapshot so a checkpoint can be checked before loading. */
export interface DaNetShape {
  hashing: HashingConfig;
  /** E: embedding width of a hashed n-gram. */
  embedDim: number;
  /** H: hidden layer width. */
  hidden: number;
  /** N: intents of the intent head, in order. */
  intents: number;
  /**
   * Each intent's tool, as an index into DA_CHOICES, for the grouped tool head: the action head's
   * logit of a domain tool t is then wa·h + ba + log Σ_{i → t} softmax(intent)_i, so the action
   * head routes with the intent head's mass, and a policy-gradient step on the action head trains
   * the intent head too. Absent: the two heads are separate (DA snapshots made before issue 20).
   */
  intentTools?: readonly number[];
  /** α of the grouped head: a domain tool's logit gains α · log(its intent mass) (default 1). */
  massWeight?: number;
}

/**
 * 2^14 buckets rather than the hashing default's 2^15: AdamW updates the whole [V, E] table every
 * step, so the table's size sets the cost of a train step, and routing accuracy measured no better
 * with the larger table. `blockNorm`: the word grams and the character grams each get half of a
 * bag's squared norm (as TF-IDF's two l2-normalised blocks); the character grams, about four times
 * as many, otherwise held most of it. Chosen on the validation split (see DaModel's defaults): mean
 * routing over seeds 1–3 94.11% of Banking77 validation rows and 81.07% of the bank's with the bank
 * alone, against 94.04 / 80.64% without it and 93.75 / 81.80% with sublinear tf as well.
 * Checked later against these defaults (94.46 / 82.32%, seeds 1–5), not kept: word 1–3-grams
 * 93.92 / 81.09%; character 3–5-grams 94.19 / 81.52%.
 * A linear path beside the hidden layer (fastText's: the intent logits gain bag · W_l, W_l [E, N]),
 * validation split, seeds 1–5, paired against these defaults (94.46 / 84.26% in this release):
 * W_l from zeros +0.02 (sd 0.16) / −0.34 (sd 0.71) points; Xavier −0.24 (0.49) / −0.08 (0.67). Not kept.
 * Nor a bag of 512 slots (8.7% of Banking77's rows overflow 256 and lose 90 character 4-grams on
 * average; TF-IDF keeps every gram): −0.14 (0.29) / +0.86 (1.12), the forward twice the gather.
 */
export const DEFAULT_DA_NET: Omit<DaNetShape, 'intents' | 'intentTools'> = {
  hashing: { ...DEFAULT_HASHING, buckets: 1 << 14, blockNorm: true },
  embedDim: 64,
  // 256 with DaModel's supervised weight decay 0.5 (chosen together on the validation split, seeds
  // 1–5, see DA_LOSS_DEFAULTS); 128 before. In-process, interleaved: train step B = 256 −4%,
  // forward B = 1 −7%, B = 512 −4% against 128.
  hidden: 256,
  // Chosen on the validation split (host/routing-validation.ts, seeds 1–3; see DaModel's defaults).
  massWeight: 4,
};

export type DaParam = 'emb' | 'w1' | 'b1' | 'wa' | 'ba' | 'wi' | 'bi';
type ObsInput = 'bag_idx' | 'bag_w' | 'state' | 'mask';
/** Train steps take the bags as distinct ids and a weight matrix (models/row-bags.ts). */
type TrainObsInput = keyof typeof ROW_BAG_INPUTS | 'state' | 'mask';
type SftInput = TrainObsInput | 'action' | 'intent' | 'intent_mask' | 'intent_weight' | 'intent_smoothing' | 'hidden_keep';
type PgInput = TrainObsInput | 'action' | 'advantage' | 'old_logp' | 'ref_logp' | 'clip_eps' | 'kl_beta' | 'entropy_coef' | 'temperature';

/** Parameters in snapshot order. */
export function daParams(shape: DaNetShape): Record<DaParam, ParamSpec> {
  const { hashing, embedDim: E, hidden: H, intents: N } = shape;
  return {
    // Normal(0.01): near zero, so a bucket that training never reaches (an unseen n-gram) adds
    // almost nothing to a bag; at 0.3 such buckets added noise of the size of the learnt vectors
    // (validation split, seeds 1–3: 94.17/91.89/92.43% of Banking77 routed against 93.92% at 0.3 on seed 1).
    emb: { shape: [hashing.buckets, E], init: { normal: 0.01 }, decay: false },
    w1: { shape: [E + N_STATE, H], init: 'he' },
    b1: { shape: [H] },
    wa: { shape: [H, N_ACTIONS], init: 'xavier' },
    ba: { shape: [N_ACTIONS] },
    wi: { shape: [H, N], init: 'xavier' },
    bi: { shape: [N] },
  };
}

function obsInputs(shape: DaNetShape) {
  const L = shape.hashing.bagLength;
  return {
    bag_idx: { dtype: 'float32', shape: ['B', L] },
    bag_w: { dtype: 'float32', shape: ['B', L] },
    state: { dtype: 'float32', shape: ['B', N_STATE] },
    mask: { dtype: 'float32', shape: ['B', N_ACTIONS] },
  } as const;
}

function trainObsInputs() {
  return {
    ...ROW_BAG_INPUTS,
    state: { dtype: 'float32', shape: ['B', N_STATE] },
    mask: { dtype: 'float32', shape: ['B', N_ACTIONS] },
  } as const;
}

/** A value added to the logits of invalid actions: exp(−1e4) is 0 in float32, yet the loss stays finite. */
const MASKED = -1e4;

/** The weighted bag sum [B, E] from per-slot ids and weights (the inference graph). */
function slotBag(g: Graph, emb: Tensor, x: Record<'bag_idx' | 'bag_w', Tensor>): Tensor {
  const ids = g.cast(x.bag_idx, 'int64'); // [B, L]
  // A batched MatMul [B, 1, L] @ [B, L, E]: several times faster in onnxruntime than
  // embeddingBag's broadcast Mul + ReduceSum over the bag axis.
  const rows = g.gather(emb, ids, 0); // [B, L, E]
  return g.squeeze(g.matMul(g.unsqueeze(x.bag_w, [1]), rows), [1]); // [B, E]
}

/**
 * Floor under a tool's intent mass in the grouped head: log(mass + 1e-12) ≥ −27.6, so a tool whose
 * intents all underflow keeps a finite logit (and its loss a finite gradient).
 */
const MASS_FLOOR = 1e-12;

/**
 * The grouped head's constants: G [N, A] with G[i, a] = 1 where intent i routes to action a, and
 * the floor [A] added to G's column sums before the log (1 on actions no intent routes to, so
 * their logits get log 1 = 0).
 */
function toolGroups(shape: DaNetShape, tools: readonly number[]): { group: Float32Array; floor: Float32Array } {
  if (tools.length !== shape.intents) throw new Error(`da-net: ${tools.length} intent tools for ${shape.intents} intents`);
  const group = new Float32Array(shape.intents * N_ACTIONS);
  const floor = new Float32Array(N_ACTIONS).fill(1);
  tools.forEach((a, i) => {
    if (!Number.isInteger(a) || a < 0 || a >= N_ACTIONS) throw new RangeError(`da-net: intent ${i} routes to action ${a}, not one of 0..${N_ACTIONS - 1}`);
    group[i * N_ACTIONS + a] = 1;
    floor[a] = MASS_FLOOR;
  });
  return { group, floor };
}

/** The identity [N, N], as rows to gather one-hot labels from. */
function identity(n: number): Float32Array {
  const w = new Float32Array(n * n);
  for (let i = 0; i < n; i++) w[i * n + i] = 1;
  return w;
}

/** Both heads' logits [B, A] (masked) and [B, N], from the bag sum [B, E]. */
function heads(
  g: Graph,
  shape: DaNetShape,
  p: Record<DaParam, Tensor>,
  bag: Tensor,
  x: Record<'state' | 'mask', Tensor>,
  keep?: Tensor,
): { action: Tensor; intent: Tensor } {
  const relu = g.relu(g.gemm(g.concat([bag, x.state], 1), p.w1, p.b1)); // [B, H]
  const h = keep ? g.mul(relu, keep) : relu; // inverted dropout: keep is 0 or 1/(1 − p)
  const intent = g.gemm(h, p.wi, p.bi); // [B, N]
  let action = g.gemm(h, p.wa, p.ba); // [B, A]
  if (shape.intentTools) {
    // The grouped head: each domain tool's logit gains the log of the intent head's mass on it.
    const { group, floor } = toolGroups(shape, shape.intentTools);
    const mass = g.matMul(g.softmax(intent, -1), g.constant(group, [shape.intents, N_ACTIONS])); // [B, A]
    const logMass = g.log(g.add(mass, g.constant(floor, [N_ACTIONS]))); // [B, A], 0 where no intent routes
    action = g.add(action, (shape.massWeight ?? 1) === 1 ? logMass : g.mul(logMass, shape.massWeight!));
  }
  return { action: g.add(action, g.mul(x.mask, MASKED)), intent };
}

function argmax(g: Graph, x: Tensor): Tensor {
  return g.op('ArgMax', [x], { axis: { type: 'int', value: 1 }, keepdims: { type: 'int', value: 0 } }, [{ dtype: 'int64', shape: ['B'] }])[0]!;
}

export function forwardSpec(shape: DaNetShape): ModelSpec<DaParam, ObsInput> {
  return { name: 'da-net', params: daParams(shape), inputs: obsInputs(shape) };
}

/**
 * Inference graph: action_logp [B, A], intent_logp [B, N]. With `weights` they are baked in as
 * initialisers (a frozen export); without, every parameter is an input fed on each run (what
 * DaModel does, so training steps need no rebuild — measured as fast as baking at B = 1 and 512).
 */
export function buildDaForward(shape: DaNetShape, weights?: Record<DaParam, Float32Array>): BuiltGraph {
  const fn = (g: Graph, p: Record<DaParam, Tensor>, x: Record<ObsInput, Tensor>) => {
    const { action, intent } = heads(g, shape, p, slotBag(g, p.emb, x), x);
    return { action_logp: g.logSoftmax(action, -1), intent_logp: g.logSoftmax(intent, -1) };
  };
  return buildForward(forwardSpec(shape), fn, weights ? { weights } : {});
}

/**
 * Supervised step: mean CE of the target action, plus intent_weight × the mean CE of the intent
 * over samples with intent_mask = 1 (rows without a label carry any valid index and mask 0).
 * Extra outputs: action_loss, intent_loss, accuracy, intent_accuracy.
 */
export function buildDaSftStep(shape: DaNetShape, opts: TrainStepOptions = {}): TrainStepGraph<DaParam, SftInput> {
  const spec: ModelSpec<DaParam, SftInput> = {
    name: 'da-net.sft',
    params: daParams(shape),
    inputs: {
      ...trainObsInputs(),
      action: { dtype: 'int64', shape: ['B'] },
      intent: { dtype: 'int64', shape: ['B'] },
      intent_mask: { dtype: 'float32', shape: ['B'] },
      intent_weight: { dtype: 'float32', shape: [] },
      intent_smoothing: { dtype: 'float32', shape: [] },
      hidden_keep: { dtype: 'float32', shape: ['B', shape.hidden] },
    },
  };
  return buildTrainStep(
    spec,
    (g, p, x) => {
      const { action, intent } = heads(g, shape, p, rowBagSum(g, p.emb, x), x, x.hidden_keep);
      const logpA = g.logSoftmax(action, -1); // [B, A]
      const logpI = g.logSoftmax(intent, -1); // [B, N]
      const actionLoss = g.neg(g.reduceMean(g.gatherElements(logpA, g.unsqueeze(x.action, [1]), 1))); // []
      const labelled = g.max(g.reduceSum(x.intent_mask), 1); // [] at least 1
      const pickedI = g.squeeze(g.gatherElements(logpI, g.unsqueeze(x.intent, [1]), 1), [1]); // [B]
      // Label smoothing ε: the target puts 1 − ε on the labelled intent and ε on the batch's label
      // marginal (grouped head) or evenly over all N (separate heads). A uniform ε gives each tool a
      // floor of ε × its share of the taxonomy's intents, which the grouped head's log-mass turns
      // into a prior towards transfer_to_human (the tool with the most intents) whatever the data;
      // the marginal follows the training data's own label frequencies instead.
      const spread = shape.intentTools
        ? (() => {
            const onehot = g.mul(g.gather(g.constant(identity(shape.intents), [shape.intents, shape.intents]), x.intent, 0), g.unsqueeze(x.intent_mask, [1])); // [B, N]
            const marginal = g.div(g.reduceSum(onehot, [0]), labelled); // [N]
            return g.reduceSum(g.mul(logpI, marginal), [1]); // [B]
          })()
        : g.reduceMean(logpI, [1]); // [B]
      const smoothI = g.add(g.mul(pickedI, g.sub(1, x.intent_smoothing)), g.mul(spread, x.intent_smoothing)); // [B]
      const intentLoss = g.div(g.neg(g.reduceSum(g.mul(smoothI, x.intent_mask))), labelled); // []
      const loss = g.add(actionLoss, g.mul(intentLoss, x.intent_weight));
      const accuracy = g.reduceMean(g.cast(g.equal(argmax(g, action), x.action), 'float32'));
      const intentHits = g.mul(g.cast(g.equal(argmax(g, intent), x.intent), 'float32'), x.intent_mask); // [B]
      const intentAccuracy = g.div(g.reduceSum(intentHits), labelled);
      return { loss, outputs: { action_loss: actionLoss, intent_loss: intentLoss, accuracy, intent_accuracy: intentAccuracy } };
    },
    opts,
  );
}

/**
 * GRPO step on one action per sample:
 *   ρ = exp(logπ(a) − old_logp), surrogate = −mean(min(ρÂ, clip(ρ, 1−ε, 1+ε)Â)),
 *   k3 = exp(ref_logp − logπ(a)) − (ref_logp − logπ(a)) − 1, loss = surrogate + β·mean(k3).
 * clip_eps (ε) and kl_beta (β) are scalar inputs so schedules and live knob changes need no rebuild;
 * so is the temperature T, which the action logits are divided by (models/policy-loss.ts).
 * Extra outputs: policy_loss, kl, clip_frac, entropy.
 */
export function buildDaPgStep(shape: DaNetShape): TrainStepGraph<DaParam, PgInput> {
  const spec: ModelSpec<DaParam, PgInput> = {
    name: 'da-net.pg',
    params: daParams(shape),
    inputs: {
      ...trainObsInputs(),
      action: { dtype: 'int64', shape: ['B'] },
      ...POLICY_GRADIENT_INPUTS,
    },
  };
  return buildTrainStep(spec, (g, p, x) => {
    const { action } = heads(g, shape, p, rowBagSum(g, p.emb, x), x);
    const logpAll = g.logSoftmax(g.div(action, x.temperature), -1); // [B, A] log π_T(·|s)
    const logp = g.squeeze(g.gatherElements(logpAll, g.unsqueeze(x.action, [1]), 1), [1]); // [B] log π_T(a|s)
    return policyGradientLoss(g, logp, logpAll, x);
  });
}

// ------------------------------------------------------------------ features

/**
 * Structurally invalid actions, masked out of the action head (an engineering choice that
 * shrinks what GRPO has to explore, not a rule of the environment):
 * - explain before any domain tool call (there is no result to explain);
 * - end_call before any domain tool call (every intent needs one; r_env's −1.8 says so too);
 * - lookup_account once the customer is verified.
 */
export function invalidActions(s: DialogueState): Set<DaChoice> {
  // encodeObservations inlines these rules.
  const out = new Set<DaChoice>();
  if (s.domainCalls.length === 0) {
    out.add('explain');
    out.add('end_call');
  }
  if (s.lookup) out.add('lookup_account');
  return out;
}

/** Offset of each tool's `called_` feature in the state vector. */
const CALLED_AT = new Map<string, number>(TOOL_NAMES.map((t) => [t, DA_STATE_FEATURES.indexOf(`called_${t}`)]));
const featureAt = (f: (typeof DA_STATE_FEATURES)[number]): number => DA_STATE_FEATURES.indexOf(f);
const AT = {
  verified: featureAt('verified'),
  last_result_ok: featureAt('last_result_ok'),
  last_result_error: featureAt('last_result_error'),
  last_result_none: featureAt('last_result_none'),
  explained: featureAt('explained'),
  asks: featureAt('asks'),
  turn: featureAt('turn'),
  unparseable: featureAt('unparseable'),
  amount_given: featureAt('amount_given'),
  customer_last: featureAt('customer_last'),
  customer_turns: featureAt('customer_turns'),
};

/**
 * The state vector of DA_STATE_FEATURES for one observation, written at `offset`. `amountGiven`
 * (whether the customer's text names an amount) may come from a cache keyed by that text.
 */
export function stateFeatures(
  obs: DaObservation,
  s: DialogueState,
  out: Float32Array,
  offset = 0,
  amountGiven = extractAmount(s.customerText) !== undefined,
): void {
  out.fill(0, offset, offset + N_STATE);
  let customerTurns = 0;
  let asks = 0;
  let domainCalled = false;
  for (const t of obs.turns) {
    if (t.role === 'customer') {
      customerTurns++;
      continue;
    }
    const a = t.action;
    if (a?.action_type === 'tool_call') {
      const name = a.content.trim();
      const at = CALLED_AT.get(name);
      if (at !== undefined) out[offset + at] = 1; // the DA has called this tool (any result)
      if (name !== 'lookup_account') domainCalled = true;
    } else if (a?.action_type === 'speak' && !domainCalled) asks++;
  }
  const last = obs.turns.at(-1);
  const o = offset;
  out[o + AT.verified] = s.lookup ? 1 : 0;
  out[o + AT.last_result_ok] = s.lastResultOk === true ? 1 : 0;
  out[o + AT.last_result_error] = s.lastResultOk === false ? 1 : 0;
  out[o + AT.last_result_none] = s.lastResultOk === null ? 1 : 0;
  out[o + AT.explained] = s.explained ? 1 : 0;
  out[o + AT.asks] = Math.min(asks, 3) / 3;
  out[o + AT.turn] = Math.min(1, obs.daSteps / Math.max(1, obs.maxDaTurns));
  out[o + AT.unparseable] = Math.min(s.unparseable, 3) / 3;
  out[o + AT.amount_given] = amountGiven ? 1 : 0;
  out[o + AT.customer_last] = last?.role === 'customer' ? 1 : 0;
  out[o + AT.customer_turns] = Math.min(customerTurns, 4) / 4;
}

const EXPLAIN = DA_CHOICES.indexOf('explain');
const END_CALL = DA_CHOICES.indexOf('end_call');
const LOOKUP = DA_CHOICES.indexOf('lookup_account');

/** A batch of observations as the network's inputs. */
export interface DaBatch {
  bagIdx: Float32Array; // [B, L]
  bagW: Float32Array; // [B, L]
  state: Float32Array; // [B, S]
  mask: Float32Array; // [B, A]
  size: number;
  /**
   * Each sample's bag as a key: samples have the same slots in bagIdx and bagW exactly when
   * their keys are equal (the train steps' row bags share them without comparing slots). Absent
   * once the slots have been changed (dropGrams).
   */
  bagKey?: Int32Array; // [B]
}

/** A customer text's hashed bag (its kept slots) and whether it names an amount. */
export interface CachedBag {
  ids: Float32Array;
  w: Float32Array;
  amountGiven: boolean;
  /** Equal for bags with the same slots (texts that hash alike), whatever their text. */
  key: number;
}

/**
 * Hashed bags of customer texts, memoised: SFT re-reads the same demonstrations every epoch and an
 * episode's observations share their text, and hashing dominates encoding. Bounded; cleared when full.
 */
export class BagCache {
  private readonly map = new Map<string, CachedBag>();
  /** Cached bags by a hash of their slots, to give bags with the same slots one key. */
  private readonly byContent = new Map<number, CachedBag[]>();
  private nextKey = 0;
  constructor(
    readonly hashing: HashingConfig,
    private readonly maxEntries = 50_000,
  ) {}

  get(text: string): CachedBag {
    let hit = this.map.get(text);
    if (!hit) {
      const { indices, weights } = hashText(text, this.hashing);
      let kept = 0;
      while (kept < weights.length && weights[kept] !== 0) kept++;
      const ids = Float32Array.from(indices.subarray(0, kept));
      const w = weights.slice(0, kept);
      if (this.map.size >= this.maxEntries) {
        this.map.clear();
        this.byContent.clear(); // keys keep counting up: a key never names two contents
      }
      const h = slotsHash(ids, w);
      const same = this.byContent.get(h);
      const twin = same?.find((b) => sameSlots(b, ids, w));
      hit = { ids, w, amountGiven: extractAmount(text) !== undefined, key: twin ? twin.key : this.nextKey++ };
      if (!twin) {
        if (same) same.push(hit);
        else this.byContent.set(h, [hit]);
      }
      this.map.set(text, hit);
    }
    return hit;
  }
}

/** FNV-1a over a bag's ids and weight bits. */
function slotsHash(ids: Float32Array, w: Float32Array): number {
  const [a, b] = [new Int32Array(ids.buffer, ids.byteOffset, ids.length), new Int32Array(w.buffer, w.byteOffset, w.length)];
  let h = 0x811c9dc5;
  for (let i = 0; i < a.length; i++) h = Math.imul(Math.imul(h ^ a[i]!, 0x01000193) ^ b[i]!, 0x01000193);
  return h;
}

function sameSlots(bag: CachedBag, ids: Float32Array, w: Float32Array): boolean {
  if (bag.ids.length !== ids.length) return false;
  for (let i = 0; i < ids.length; i++) if (!Object.is(bag.ids[i], ids[i]) || !Object.is(bag.w[i], w[i])) return false;
  return true;
}

/**
 * The network's inputs for `obs`. `into`, a batch of the same size no longer in use, is cleared
 * and filled instead of allocating: a forward at B = 512 otherwise allocates a megabyte of inputs,
 * and the garbage collector then runs every few calls.
 */
export function encodeObservations(obs: readonly DaObservation[], bags: BagCache, maskInvalid = true, into?: DaBatch): DaBatch {
  const B = obs.length;
  const L = bags.hashing.bagLength;
  const reuse = into?.size === B && into.bagIdx.length === B * L;
  const bagIdx = reuse ? into.bagIdx.fill(0) : new Float32Array(B * L);
  const bagW = reuse ? into.bagW.fill(0) : new Float32Array(B * L);
  const state = reuse ? into.state : new Float32Array(B * N_STATE); // stateFeatures writes every entry
  const mask = reuse ? into.mask.fill(0) : new Float32Array(B * N_ACTIONS);
  const bagKey = reuse && into.bagKey ? into.bagKey : new Int32Array(B);
  obs.forEach((o, b) => {
    const s = dialogueState(o);
    const bag = bags.get(s.customerText);
    bagKey[b] = bag.key;
    bagIdx.set(bag.ids, b * L);
    bagW.set(bag.w, b * L);
    stateFeatures(o, s, state, b * N_STATE, bag.amountGiven);
    if (maskInvalid) {
      // invalidActions, without its Set: this runs for every observation of every forward.
      const m = b * N_ACTIONS;
      if (s.domainCalls.length === 0) mask[m + EXPLAIN] = mask[m + END_CALL] = 1;
      if (s.lookup) mask[m + LOOKUP] = 1;
    }
  });
  return { bagIdx, bagW, state, mask, size: B, bagKey };
}

/**
 * N-gram dropout for training batches: each kept n-gram of a bag is dropped with probability p,
 * and the survivors are scaled by one factor so the bag keeps its squared norm; their weights keep
 * their ratios (a block-normed bag's word grams stay heavier than its character grams). Modifies
 * `b` in place (its bags no longer match their keys, which it drops).
 */
export function dropGrams(b: DaBatch, L: number, p: number, u: () => number): void {
  delete b.bagKey;
  for (let r = 0; r < b.size; r++) {
    const o = r * L;
    let n = 0;
    let before = 0;
    while (n < L && b.bagW[o + n] !== 0) before += b.bagW[o + n++]! ** 2;
    if (n < 2) continue;
    let after = 0;
    for (let i = 0; i < n; i++) {
      if (u() < p) b.bagW[o + i] = 0;
      else after += b.bagW[o + i]! ** 2;
    }
    if (after === 0) {
      b.bagW[o] = Math.sqrt(before); // keep one n-gram rather than an empty bag
      continue;
    }
    const scale = Math.sqrt(before / after);
    for (let i = 0; i < n; i++) b.bagW[o + i]! *= scale;
  }
}
