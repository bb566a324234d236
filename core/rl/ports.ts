/**
 * The ports between the RL algorithms (`core/rl/`, runtime-free) and the trainable models that
 * implement them (`models/`, on ONNX Runtime). An algorithm holds samples, advantages and
 * schedules; the model holds weights, optimiser state and graphs, and does forward and train
 * steps when asked. Nothing here knows about tensors.
 */

/** Metrics of one train step, under the names of the metrics registry (`gym/loss`, `gym/kl`, …). */
export type StepMetrics = Record<string, number>;

/** Opaque model state: weights, optimiser state and the config needed to rebuild the model. */
export interface ModelSnapshot {
  /** Which network this is and its shape, as JSON (so a checkpoint can be checked before loading). */
  modelJson: string;
  /** Parameters, concatenated float32 in the order modelJson lists them. */
  weights: Uint8Array;
  /** AdamW state (m, v, step), same layout; null for inference-only snapshots. */
  optimiser: Uint8Array | null;
}

/** A batch for a clipped policy-gradient step (GRPO). All arrays have one entry per sample. */
export interface PolicyGradientBatch<Obs, Act> {
  obs: readonly Obs[];
  actions: readonly Act[];
  /** Group-normalised advantages Â. */
  advantages: Float32Array;
  /** log π_old(a|s) at sampling time (the ratio's denominator). */
  oldLogProbs: Float32Array;
  /** log π_ref(a|s) of the frozen reference policy (for the KL penalty). */
  refLogProbs: Float32Array;
}

export interface PolicyGradientHyper {
  lr: number;
  /** PPO/GRPO ratio clip ε (`clipEps`). */
  clipEps: number;
  /** KL coefficient β toward the reference policy (`klBeta`). */
  klBeta: number;
  /** Entropy bonus c: the loss takes −c·H(π(·|s)) (GrpoConfig.entropyCoef); absent: 0. */
  entropyCoef?: number;
  /** The sampling temperature T: the loss is on π_T ∝ π^(1/T) (GrpoConfig.temperature); absent: 1. */
  temperature?: number;
}

export interface SupervisedHyper {
  lr: number;
}

/**
 * A stochastic policy over a discrete (possibly factored) action space that can be trained
 * in-process. `Obs` is the role's observation, `Act` its discrete choice.
 */
export interface PolicyModel<Obs, Act, Target = Act> {
  /**
   * Sample one action per observation; `u` supplies uniform [0,1) draws so sampling is seeded. At a
   * temperature T (default 1) the draw and its logProb are of π_T ∝ π^(1/T).
   */
  sample(obs: readonly Obs[], u: () => number, temperature?: number): Promise<{ action: Act; logProb: number }[]>;
  /** The most probable action per observation. */
  greedy(obs: readonly Obs[]): Promise<{ action: Act; logProb: number }[]>;
  /** log π(a|s) for given pairs; log π_T(a|s) at a temperature T (default 1). */
  logProbs(obs: readonly Obs[], actions: readonly Act[], temperature?: number): Promise<Float32Array>;
  /** One supervised step toward target choices (cross-entropy). */
  supervisedStep(obs: readonly Obs[], targets: readonly Target[], hyper: SupervisedHyper): Promise<StepMetrics>;
  /** One clipped-ratio policy-gradient step with a KL penalty to the reference. */
  policyGradientStep(batch: PolicyGradientBatch<Obs, Act>, hyper: PolicyGradientHyper): Promise<StepMetrics>;
  snapshot(): Promise<ModelSnapshot>;
  restore(s: ModelSnapshot): Promise<void>;
}
