/**
 * The metrics registry: every key a training algorithm or model logs, with one line of meaning.
 * The UI, the CLI and the store read the same keys, so a key is added here before it is logged
 * (a test checks that what the models return is registered). Keys are `<phase>/<name>`:
 * `sft/` for supervised bootstrap steps, `gym/` for the isolation gym's GRPO updates.
 */

export interface MetricInfo {
  /** One line: what the number is. */
  meaning: string;
  /** Which way is better, where that is meaningful. */
  better?: 'higher' | 'lower';
}

export const METRICS = {
  // Supervised fine-tuning (Phase 0 bootstrap, core/rl/sft.ts).
  'sft/loss': { meaning: 'minibatch loss: cross-entropy of the expert action plus the weighted intent cross-entropy', better: 'lower' },
  'sft/action_loss': { meaning: 'cross-entropy of the expert action under the policy, minibatch mean', better: 'lower' },
  'sft/intent_loss': { meaning: 'cross-entropy of the intent head on samples with an intent label', better: 'lower' },
  'sft/accuracy': { meaning: "share of the minibatch where the policy's most probable action is the expert's", better: 'higher' },
  'sft/intent_accuracy': { meaning: "share of intent-labelled samples where the intent head's top intent is the label", better: 'higher' },
  'sft/grad_norm': { meaning: 'global L2 norm of the gradient before clipping' },
  'sft/lr': { meaning: 'learning rate of the step (warmup then cosine schedule)' },
  'sft/epoch': { meaning: 'epoch the step belongs to (1-based)' },

  // GRPO in the isolation gym (RL-ADA §3.5).
  'gym/reward_mean': { meaning: 'mean reward of the sampled completions in the update', better: 'higher' },
  'gym/reward_std': { meaning: 'standard deviation of those rewards (0 within a group means no learning signal)' },
  'gym/loss': { meaning: 'total policy-gradient loss: clipped surrogate plus klBeta times the KL estimate', better: 'lower' },
  'gym/policy_loss': { meaning: 'the clipped surrogate −mean(min(ρÂ, clip(ρ, 1−ε, 1+ε)Â)) alone' },
  'gym/kl': { meaning: 'mean k3 estimate of KL(π‖π_ref): exp(ref − logπ) − (ref − logπ) − 1' },
  'gym/clip_frac': { meaning: 'share of samples whose ratio ρ fell outside [1 − clipEps, 1 + clipEps]' },
  'gym/grad_norm': { meaning: 'global L2 norm of the policy gradient before clipping' },
  'gym/entropy': { meaning: 'mean entropy of the action distribution over the batch (nats)' },
} as const satisfies Record<string, MetricInfo>;

export type MetricKey = keyof typeof METRICS;

export function isMetricKey(key: string): key is MetricKey {
  return Object.hasOwn(METRICS, key);
}
