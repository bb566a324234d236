/**
 * EAU (seed 002) in the lab: what a diagnostic proposes to the knob console. Shared by the
 * diagnostics (core/eau/diagnostics.ts), the knob registry and its checked writes
 * (core/eau/knobs.ts), the store and the console. A proposal is never applied silently: a person
 * (or a scripted test acting as one) accepts, edits or dismisses it, and an accepted proposal goes
 * through the same checks as any write.
 *
 * Knob ids are the run config's paths with dots, e.g. `arena.maxDaTurns`, `gym.failureShare`,
 * `gym.da.lr`, `gym.ca.K`, `gym.da.klBeta`, `gym.da.clipEps`, `daReward.<term>`,
 * `caReward.<term>`, `stopping.tauDa`, `stopping.rCa`, `customer.symbolicMix` (ε, the share of
 * the customer seat played by the rule-based customer), `adversities.<name>`,
 * `ca.tactics.<bound>`.
 */

/** The diagnostic that found the fault (or an LLM meta-agent, or a person). */
export type DiagnosticName = 'deadlock' | 'reward-hacking' | 'template-collapse' | 'leakage' | 'degenerate-gym';

/** One named series of points (x: match index or gym step; y: the measure). */
export interface EvidenceSeries {
  name: string;
  points: Array<[number, number]>;
}

/** What a proposal rests on: the episodes that show the fault, series, and the figures quoted in its reason. */
export interface Evidence {
  /** Episode ids (as stored in the lab) that show the fault. */
  episodes: string[];
  series: EvidenceSeries[];
  /** The figures behind the reason, by name (e.g. `deadlockRate: 0.41`). */
  figures: Record<string, number>;
}

export interface KnobProposal {
  /** A knob id of the registry (see the header). */
  knob: string;
  value: number | boolean | string;
  /** One line a person reads: the fault, its size and why this write would help. */
  reason: string;
  /** Who proposed it. */
  source: { kind: 'diagnostic'; name: DiagnosticName } | { kind: 'llm'; model: string; reasoning: string };
  evidence: Evidence;
  /** Where in the run it was found (match index, gym id), for the audit log. */
  at: { matchIndex?: number; gymId?: string };
}
