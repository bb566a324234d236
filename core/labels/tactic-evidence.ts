/**
 * What the CA converged to, and why, from its arena openings alone: the distribution of the
 * rule-based tactics (tactic-classifier.ts) per match, the dominant tactic of the last match with
 * example openings, and — the evidence for which tactic reward pressure favours — the CA's win
 * rate split by each measure of an opening (dense detail or not, decoy cue or not, hedge or not).
 * A tactic the CA moves toward should win more often than its absence against the DA it trained on.
 */
import type { DomainTool } from '../domain/types';
import { classifyTactic, tacticFeatures } from './tactic-classifier';
import type { TacticFeatures } from './tactic-classifier';

export interface Opening {
  text: string;
  expectedTool: DomainTool;
  /** The DA won the episode (null: not CA-winnable, left out of the win splits). */
  daWon: boolean | null;
}

/** Share of openings per tactic label, in descending order. */
export function tacticDistribution(openings: readonly Opening[]): { tactic: string; share: number; n: number }[] {
  const counts = new Map<string, number>();
  for (const o of openings) {
    const t = classifyTactic(tacticFeatures(o.text, o.expectedTool));
    counts.set(t, (counts.get(t) ?? 0) + 1);
  }
  return [...counts].map(([tactic, n]) => ({ tactic, n, share: n / openings.length })).sort((a, b) => b.n - a.n || a.tactic.localeCompare(b.tactic));
}

/** A split of the openings by one feature: the CA's win rate with and without it. */
export interface FeatureSplit {
  feature: string;
  withN: number;
  /** The CA's win rate (1 − DA win rate) over openings with the feature; null when there are none. */
  withCaWin: number | null;
  withoutN: number;
  withoutCaWin: number | null;
}

/** The features of an opening a split looks at; each a plain yes/no with a meaning in words. */
export const OPENING_FEATURES: readonly { feature: string; has: (f: TacticFeatures) => boolean }[] = [
  { feature: 'dense detail (≥ 3 entities)', has: (f) => f.entities >= 3 },
  { feature: 'any concrete detail', has: (f) => f.entities > 0 },
  { feature: 'decoy cue of another tool', has: (f) => f.decoyCues > 0 },
  { feature: 'hedge', has: (f) => f.hedges > 0 },
  { feature: 'names its own tool (cue ≥ 0.8)', has: (f) => f.ownCue >= 0.8 },
];

export function featureSplits(openings: readonly Opening[]): FeatureSplit[] {
  const scored = openings.filter((o) => o.daWon !== null).map((o) => ({ f: tacticFeatures(o.text, o.expectedTool), caWon: o.daWon === false }));
  const rate = (xs: { caWon: boolean }[]) => (xs.length ? xs.filter((x) => x.caWon).length / xs.length : null);
  return OPENING_FEATURES.map(({ feature, has }) => {
    const w = scored.filter((s) => has(s.f));
    const wo = scored.filter((s) => !has(s.f));
    return { feature, withN: w.length, withCaWin: rate(w), withoutN: wo.length, withoutCaWin: rate(wo) };
  });
}

/** The dominant tactic of a set of openings and up to `k` examples of it, CA wins first. */
export function convergedTactic(openings: readonly Opening[], k = 3): { tactic: string; share: number; examples: string[] } | null {
  const dist = tacticDistribution(openings);
  const top = dist[0];
  if (!top) return null;
  const of = openings.filter((o) => classifyTactic(tacticFeatures(o.text, o.expectedTool)) === top.tactic);
  const examples = [...of.filter((o) => o.daWon === false), ...of.filter((o) => o.daWon !== false)].slice(0, k).map((o) => o.text);
  return { tactic: top.tactic, share: top.share, examples };
}
