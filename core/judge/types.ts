/** The judge's verdict on one finished episode (RL-ADA §3.1). */
export interface JudgeVerdict {
  /** Terminal score J in [−2, +2]; enters r_env (clipped by DaRewardConfig.judgeClip). */
  score: number;
  /** Was the customer's problem resolved (correct domain tool succeeded and was explained)? */
  resolved: boolean;
  /** Quality tier: 4 exemplary, 3 resolved with lapses, 2 unresolved but handled, 1 failed. */
  tier: 1 | 2 | 3 | 4;
  /** Did the DA state anything no tool result (or the customer) supports? */
  hallucination: boolean;
  /** Each unsupported statement, with the index of the turn in the transcript. */
  hallucinations: { turn: number; claim: string }[];
  /** A short explanation a person can read in the transcript browser. */
  rationale: string;
}
