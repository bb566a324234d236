/**
 * What the CA converged to, and why, from its arena openings alone: the distribution of the
 * rule-based tactics (tactic-classifier.ts) per match, the dominant tactic of the last match with
 * example openings, and — the evidence for which tactic reward pressure favours — the CA's win
 * rate split by each measure of an opening (dense detail or not, decoy cue or not, hedge or not).
 * A tactic the CA moves toward should win more often than its absence against the DA it trained on.
 * What the CA's gym climbs, though, is r_CA, not the win: so each split also gives the mean r_CA
 * with and without the feature and its terms (format, realism, conceal, inverse-DA; RL-ADA
 * Table 3), which say which term pulls the CA away from a tactic that wins.
 */
import type { DomainTool } from '../domain/types';
import { classifyTactic, tacticFeatures } from './tactic-classifier';
import type { TacticFeatures } from './tactic-classifier';

export interface Opening {
  text: string;
  expectedTool: DomainTool;
  /** The DA won the episode (null: not CA-winnable, left out of the win splits). */
  daWon: boolean | null;
  /** The episode's r_CA and its weighted terms, as stored (absent: not read). */
  rCa?: RCaTerms;
}

/** r_CA = format + realism + conceal + inverse-DA, each term as weighted into the total. */
export interface RCaTerms {
  total: number;
  format: number;
  realism: number;
  conceal: number;
  invDa: number;
}

const R_CA_KEYS = ['total', 'format', 'realism', 'conceal', 'invDa'] as const;

/** Mean of each term over the openings that carry r_CA; null when none does. */
function meanTerms(xs: readonly (RCaTerms | undefined)[]): RCaTerms | null {
  const got = xs.filter((x): x is RCaTerms => x !== undefined);
  if (got.length === 0) return null;
  return Object.fromEntries(R_CA_KEYS.map((k) => [k, got.reduce((s, x) => s + x[k], 0) / got.length])) as unknown as RCaTerms;
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
  /**
   * The CA's win rate with minus without the feature within each expected tool, averaged with
   * Mantel–Haenszel weights n_with·n_without / n per tool: the gap with the mix of intents held
   * fixed (a feature that only some intents' openings carry, such as an amount, could otherwise
   * win through its intents alone). Null when no tool has openings both with and without it.
   */
  withinToolGap: number | null;
  /** Mean r_CA and its terms over the openings with / without the feature (null: none carry r_CA). */
  withRCa: RCaTerms | null;
  withoutRCa: RCaTerms | null;
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
  const scored = openings
    .filter((o) => o.daWon !== null)
    .map((o) => ({ f: tacticFeatures(o.text, o.expectedTool), tool: o.expectedTool, caWon: o.daWon === false, rCa: o.rCa }));
  const rate = (xs: { caWon: boolean }[]) => (xs.length ? xs.filter((x) => x.caWon).length / xs.length : null);
  return OPENING_FEATURES.map(({ feature, has }) => {
    const w = scored.filter((s) => has(s.f));
    const wo = scored.filter((s) => !has(s.f));
    return {
      feature,
      withN: w.length,
      withCaWin: rate(w),
      withoutN: wo.length,
      withoutCaWin: rate(wo),
      withinToolGap: withinToolGap(w, wo),
      withRCa: meanTerms(w.map((x) => x.rCa)),
      withoutRCa: meanTerms(wo.map((x) => x.rCa)),
    };
  });
}

/** Σ_t w_t (p_with,t − p_without,t) / Σ_t w_t over the tools with both, w_t = n_with,t · n_without,t / n_t. */
function withinToolGap(w: readonly { tool: DomainTool; caWon: boolean }[], wo: readonly { tool: DomainTool; caWon: boolean }[]): number | null {
  let num = 0;
  let den = 0;
  for (const tool of new Set(w.map((x) => x.tool))) {
    const a = w.filter((x) => x.tool === tool);
    const b = wo.filter((x) => x.tool === tool);
    if (b.length === 0) continue;
    const weight = (a.length * b.length) / (a.length + b.length);
    const wins = (xs: typeof a) => xs.filter((x) => x.caWon).length / xs.length;
    num += weight * (wins(a) - wins(b));
    den += weight;
  }
  return den > 0 ? num / den : null;
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
