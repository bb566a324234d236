/**
 * Every constant of the method in one typed object. Defaults follow RL-ADA (Table 2, §3.4–3.6)
 * and DESIGN.md §1; each field says what it means so a reader need not open the paper.
 */

/** DA reward terms, RL-ADA Table 2. r_DA = r_format + r_tool + r_env + r_end. */
export interface DaRewardConfig {
  /** r_format: the output is valid JSON with a non-empty `thinking` field. */
  formatValid: number;
  /** r_format: the output cannot be parsed as a DA action. */
  formatUnparseable: number;
  /** r_tool: a domain tool that is correct for the customer's (hidden) intent. */
  toolCorrect: number;
  /** r_tool: an existing domain tool that is wrong for the intent. */
  toolWrong: number;
  /** r_tool: a tool name that does not exist (hallucinated tool). */
  toolNonexistent: number;
  /** r_env: the DA's first tool call is lookup_account. */
  lookupFirst: number;
  /** r_env: the correct domain tool, called after identity was verified. */
  correctToolVerified: number;
  /** r_env: every speak action costs this much (discourages stalling). */
  speakPerTurn: number;
  /**
   * r_env milestone bonus, at most `milestoneCap` in total: identity verified, domain tool
   * returned a result, result explained to the customer — each worth milestoneCap / 3.
   */
  milestoneCap: number;
  /** r_env late-episode penalty applies at DA step s > lateStepAfter ... */
  lateStepAfter: number;
  /** ... and is −lateCoef · (s − lateStepAfter)^lateExponent at that step. */
  lateCoef: number;
  lateExponent: number;
  /** r_env terminal judge score J is clipped to [−judgeClip, +judgeClip]. */
  judgeClip: number;
  /** r_env mandatory deduction: the episode ended without a successful identity verification before the domain tool. */
  missedVerification: number;
  /** r_env mandatory deduction: the episode ended without any domain tool call. */
  missingDomainTool: number;
  /** r_end: end_call after the full sequence (lookup → domain tool → speak). */
  endAfterSequence: number;
  /**
   * r_env (term env_fallback), impossible scenarios only (MADS): the scenario's fallback
   * (decline, explain, or offer an alternative) delivered without claiming success.
   */
  fallbackCredit: number;
  /** r_env (term env_fallback), impossible scenarios only: the DA claimed a success that cannot have happened. */
  claimedSuccessPenalty: number;
}

/** CA reward terms, RL-ADA eq. 2: r_CA = r_format + r_realism + r_conceal + r_inv-DA. */
export interface CaRewardConfig {
  /** r_format: natural language (not JSON, not empty), per CA turn. */
  formatNatural: number;
  /** r_format: JSON-like or empty output, per CA turn. */
  formatBad: number;
  /** r_realism: upper bound of the signed realism shaping per turn (the lower bound is its negative). */
  realismScale: number;
  /** r_conceal: penalty when a customer utterance names the intent outright. */
  concealPenalty: number;
  /** r_inv-DA: the DA misrouted (wrong domain tool, or none) — the CA's core signal. */
  invDaMisroute: number;
  /** r_inv-DA: the DA routed correctly. */
  invDaCorrect: number;
}

/** The arena (RL-ADA §3.4). */
export interface ArenaConfig {
  /** N: episodes per scenario per match. */
  episodesPerScenario: number;
  /** The DA's turn limit; the episode is truncated after this many DA actions. */
  maxDaTurns: number;
}

/** The macro stopping rule (RL-ADA §3.6). */
export interface StoppingConfig {
  /** τ_DA: the competency gate on W_DA. */
  tauDa: number;
  /** P: consecutive matches that must pass the competency gate. */
  P: number;
  /** ε: the stability gate |W_DA(t) − W_DA(t−1)| ≤ ε on the latest match. */
  epsilon: number;
  /** n_min: no stop before this many matches. */
  nMin: number;
  /** n_max: stop after this many matches regardless. */
  nMax: number;
  /** The CA's competency floor on its win rate 1 − W_DA, used to pick the weaker agent. */
  rCa: number;
  /** Deployment gate: non-negotiable scenarios need DA win rate ≥ this against the latest CA. */
  deploymentGate: number;
}

export interface SparringConfig {
  daReward: DaRewardConfig;
  caReward: CaRewardConfig;
  arena: ArenaConfig;
  stopping: StoppingConfig;
}

/** `config` with N, the arena's episodes per scenario, set to `n` (a match or evaluation of another size). */
export function withEpisodes<C extends { arena: ArenaConfig }>(config: C, n: number): C {
  return { ...config, arena: { ...config.arena, episodesPerScenario: n } };
}

export const DEFAULT_CONFIG: SparringConfig = {
  daReward: {
    formatValid: 0.5,
    formatUnparseable: -3.0,
    toolCorrect: 1.0,
    toolWrong: -1.0,
    toolNonexistent: -1.5,
    lookupFirst: 0.5,
    correctToolVerified: 2.0,
    speakPerTurn: -0.05,
    milestoneCap: 1.05,
    lateStepAfter: 7,
    lateCoef: 0.12,
    lateExponent: 1.4,
    judgeClip: 2.0,
    missedVerification: -1.2,
    missingDomainTool: -1.8,
    endAfterSequence: 1.0,
    fallbackCredit: 1.5,
    claimedSuccessPenalty: -2.0,
  },
  caReward: {
    formatNatural: 0.2,
    formatBad: -1.0,
    realismScale: 0.3,
    concealPenalty: -1.0,
    invDaMisroute: 1.0,
    invDaCorrect: -1.0,
  },
  arena: {
    episodesPerScenario: 18,
    maxDaTurns: 12,
  },
  stopping: {
    tauDa: 0.6,
    P: 2,
    epsilon: 0.05,
    nMin: 3,
    nMax: 8,
    rCa: 0.35,
    deploymentGate: 0.9,
  },
};
