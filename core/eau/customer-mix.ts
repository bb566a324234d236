/**
 * EAU's symbolic user mixed with the learned one (seed 002): the customer seat of an episode is
 * played by the rule-based customer (the scripted CA) with probability ε (`customer.symbolicMix`),
 * by the learned CA otherwise. The draw comes from the episode's seed alone, so the same episode
 * (same seed) always has the same customer, in the arena and when a DA gym replays it.
 *
 * Both arms are reported apart as well as blended: EAU's appendix warns that a blended metric hid
 * a 0.29 gap between the symbolic and the LLM arm.
 */
import type { CaPolicy } from '../agents/policy';
import { deriveSeed, Rng } from '../random';

/** Who played the customer seat of an episode. */
export type CustomerArm = 'symbolic' | 'learned';
export const CUSTOMER_ARMS: readonly CustomerArm[] = ['symbolic', 'learned'];

/** The rule-based customer and its share ε of the customer seat. */
export interface SymbolicMix {
  ca: CaPolicy;
  /** ε in [0, 1]. */
  mix: number;
}

/** The arm of the episode with this seed under ε: symbolic with probability ε. */
export function customerArm(episodeSeed: number, mix: number): CustomerArm {
  if (!(mix >= 0 && mix <= 1)) throw new RangeError(`customer.symbolicMix must be in [0, 1], got ${mix}`);
  if (mix === 0) return 'learned';
  if (mix === 1) return 'symbolic';
  return new Rng(deriveSeed(episodeSeed, 'customer-arm')).next() < mix ? 'symbolic' : 'learned';
}

/** The policy that plays the customer seat of the episode with this seed (the learned CA when there is no mix). */
export function customerFor(episodeSeed: number, learned: CaPolicy, symbolic: SymbolicMix | undefined): { ca: CaPolicy; arm: CustomerArm } {
  if (!symbolic) return { ca: learned, arm: 'learned' };
  const arm = customerArm(episodeSeed, symbolic.mix);
  return { ca: arm === 'symbolic' ? symbolic.ca : learned, arm };
}

/** One arm's share of a match: its episodes and the DA's win rate on the CA-winnable ones. */
export interface ArmFigures {
  /** Episodes the arm played (all scenarios, fraud references included). */
  episodes: number;
  /** Its CA-winnable episodes: the n of its W_DA. */
  winnable: number;
  /** W_DA over the arm's CA-winnable episodes; null when it played none. */
  wDa: number | null;
}

export type CustomerArmSummary = Record<CustomerArm, ArmFigures>;

/** W_DA per arm from episodes that record their customer (episodes without one count as learned). */
export function summariseArms(episodes: readonly { customer?: CustomerArm; fraudReference: boolean; winner: 'DA' | 'CA' }[]): CustomerArmSummary {
  const of = (arm: CustomerArm): ArmFigures => {
    const mine = episodes.filter((e) => (e.customer ?? 'learned') === arm);
    const winnable = mine.filter((e) => !e.fraudReference);
    return {
      episodes: mine.length,
      winnable: winnable.length,
      wDa: winnable.length ? winnable.filter((e) => e.winner === 'DA').length / winnable.length : null,
    };
  };
  return { symbolic: of('symbolic'), learned: of('learned') };
}

/**
 * The blend of the two arms weighted by their CA-winnable episodes: the match's W_DA when every
 * episode is in one arm or the other. EAU's appendix: report it beside the arms, never alone.
 */
export function blendedWDa(a: CustomerArmSummary): number | null {
  const n = a.symbolic.winnable + a.learned.winnable;
  return n === 0 ? null : ((a.symbolic.wDa ?? 0) * a.symbolic.winnable + (a.learned.wDa ?? 0) * a.learned.winnable) / n;
}

/** The gap between the arms (symbolic − learned); null when one arm played no CA-winnable episode. */
export function armGap(a: CustomerArmSummary): number | null {
  return a.symbolic.wDa === null || a.learned.wDa === null ? null : a.symbolic.wDa - a.learned.wDa;
}

/** "symbolic 88.9% (n 9) · learned 71.4% (n 21) · gap +17.5 pts": both arms as one line for summaries (n: CA-winnable episodes). */
export function formatArms(a: CustomerArmSummary): string {
  const pct = (v: number | null) => (v === null ? '—' : `${(v * 100).toFixed(1)}%`);
  const gap = armGap(a);
  return [
    ...CUSTOMER_ARMS.map((arm) => `${arm} ${pct(a[arm].wDa)} (n ${a[arm].winnable})`),
    ...(gap === null ? [] : [`gap ${gap >= 0 ? '+' : ''}${(gap * 100).toFixed(1)} pts`]),
  ].join(' · ');
}

/** Held-out figures that blend linearly (shares and means over equally many episodes). */
export interface BlendableHeldout {
  routingAccuracy: number;
  strictPass: number;
  meanReward: number;
}

/**
 * The held-out figures a customer mixed by ε would give in expectation: ε × the evaluation against
 * the symbolic customer + (1 − ε) × the one against the learned CA (both play every held-out
 * scenario equally often, and the arm of an episode does not depend on its scenario).
 */
export function blendHeldout(symbolic: BlendableHeldout, learned: BlendableHeldout, mix: number): BlendableHeldout {
  const b = (f: keyof BlendableHeldout) => mix * symbolic[f] + (1 - mix) * learned[f];
  return { routingAccuracy: b('routingAccuracy'), strictPass: b('strictPass'), meanReward: b('meanReward') };
}
