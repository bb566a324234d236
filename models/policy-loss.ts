/**
 * The GRPO objective as graph nodes, shared by the DA and CA networks: the clipped surrogate
 * −mean(min(ρÂ, clip(ρ, 1−ε, 1+ε)Â)) with ρ = exp(log π(a|s) − log π_old(a|s)), plus β times the
 * k3 estimate of KL(π ‖ π_ref): mean(exp(ref − log π) − (ref − log π) − 1), minus an entropy
 * bonus c·H(π(·|s)) (PPO's entropy coefficient; c = 0 by default, which leaves the loss as it was).
 *
 * The policy of the loss is π_T(a|s) ∝ exp(z_a / T), the network's logits z over the sampling
 * temperature T (an input; 1 is the network's own policy): a gym that samples at T trains the
 * distribution it sampled from, as TRL's and verl's GRPO do (both divide the logits by the rollout
 * temperature in the loss). Every log-probability fed in (old_logp, ref_logp) is then at T too.
 */
import type { Graph, Tensor } from './graph';

/** The per-sample inputs every policy-gradient train step takes (besides the observation and action). */
export const POLICY_GRADIENT_INPUTS = {
  advantage: { dtype: 'float32', shape: ['B'] },
  old_logp: { dtype: 'float32', shape: ['B'] },
  ref_logp: { dtype: 'float32', shape: ['B'] },
  clip_eps: { dtype: 'float32', shape: [] },
  kl_beta: { dtype: 'float32', shape: [] },
  entropy_coef: { dtype: 'float32', shape: [] },
  temperature: { dtype: 'float32', shape: [] },
} as const;

export interface PolicyGradientInputs {
  advantage: Tensor; // [B] Â
  old_logp: Tensor; // [B]
  ref_logp: Tensor; // [B]
  clip_eps: Tensor; // [] ε
  kl_beta: Tensor; // [] β
  entropy_coef: Tensor; // [] c
  temperature: Tensor; // [] T (the networks divide their logits by it)
}

/**
 * `logp` [B] is log π(a|s) of the taken actions; `logpAll` [B, A] the log-probabilities of all
 * actions (of all heads, for a factored policy: its entropy is then the sum over heads).
 */
export function policyGradientLoss(g: Graph, logp: Tensor, logpAll: Tensor, x: PolicyGradientInputs) {
  const ratio = g.exp(g.sub(logp, x.old_logp)); // [B] ρ
  const lo = g.sub(1, x.clip_eps); // []
  const hi = g.add(1, x.clip_eps); // []
  const surr1 = g.mul(ratio, x.advantage); // [B]
  const surr2 = g.mul(g.clip(ratio, lo, hi), x.advantage); // [B]
  const policyLoss = g.neg(g.reduceMean(g.min(surr1, surr2))); // []
  const d = g.sub(x.ref_logp, logp); // [B] ref − logπ
  const kl = g.reduceMean(g.sub(g.sub(g.exp(d), d), 1)); // [] k3 estimator
  const clipFrac = g.reduceMean(g.cast(g.or(g.greater(ratio, hi), g.less(ratio, lo)), 'float32'));
  const entropy = g.neg(g.reduceMean(g.reduceSum(g.mul(g.exp(logpAll), logpAll), [1]))); // []
  const loss = g.sub(g.add(policyLoss, g.mul(kl, x.kl_beta)), g.mul(entropy, x.entropy_coef));
  return { loss, outputs: { policy_loss: policyLoss, kl, clip_frac: clipFrac, entropy } };
}

/**
 * Log-probabilities at a sampling temperature: each of `logp`'s consecutive segments of `sizes`
 * (one per head; the whole row when absent) becomes log softmax(logp / T), the policy
 * π_T ∝ π^(1/T) that a gym sampling at T draws from and trains (the graphs' side is above). At T = 1
 * it is `logp` itself, the same array. Masked entries (−1e4 and below) stay at probability 0.
 */
export function temperLogp(logp: Float32Array, temperature: number, sizes: readonly number[] = [logp.length]): Float32Array {
  if (temperature === 1) return logp;
  if (!(temperature > 0)) throw new RangeError(`temperLogp: temperature must be positive, got ${temperature}`);
  const out = new Float32Array(logp.length);
  const row = sizes.reduce((a, b) => a + b, 0);
  if (row <= 0 || logp.length % row !== 0) throw new Error(`temperLogp: ${logp.length} values are not rows of ${row}`);
  for (let start = 0; start < logp.length;) {
    for (const size of sizes) {
      let max = -Infinity;
      for (let i = start; i < start + size; i++) max = Math.max(max, logp[i]! / temperature);
      let sum = 0;
      for (let i = start; i < start + size; i++) sum += Math.exp(logp[i]! / temperature - max);
      const lse = max + Math.log(sum);
      for (let i = start; i < start + size; i++) out[i] = logp[i]! / temperature - lse;
      start += size;
    }
  }
  return out;
}
