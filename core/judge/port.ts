/**
 * The judge port (RL-ADA §3.1): whatever scores a finished episode — the builtin rule judge, an
 * LLM judge behind an endpoint — answers one transcript with a verdict: J ∈ [−2, +2], resolution,
 * quality tier and hallucination, with a rationale. The rewards (core/rewards) read only the
 * verdict, so any judge can stand in the arena, the evaluations and `judge-eval`.
 */
import type { TurnContext } from '../agents/policy';
import type { Transcript } from '../world/transcript';
import { judgeEpisode } from './judge';
import type { JudgeVerdict } from './types';

export interface Judge {
  /** The SPEC that names it (`rule`, or an endpoint's name), for tables and records. */
  readonly name: string;
  /**
   * An LLM judge answers asynchronously; a failure of its endpoint rejects (the match fails as one
   * transaction). `ctx`: the stored episode being judged (its id, and its turn count as the turn),
   * which an LLM judge's call record links to; absent for transcripts that are not stored (gym rollouts).
   */
  judge(t: Transcript, ctx?: TurnContext): JudgeVerdict | Promise<JudgeVerdict>;
}

/** The SPEC of the builtin rule judge, and the default everywhere. */
export const RULE_JUDGE_SPEC = 'rule';

/** The builtin rule judge (`judge.ts`): deterministic, synchronous. */
export const ruleJudge: Judge = { name: RULE_JUDGE_SPEC, judge: (t) => judgeEpisode(t) };

/** A judge as a function of the transcript alone, as the gyms' rollouts take it (`rolloutDa`: no stored episode to link a call to). */
export const judgeFunction = (j: Judge) => (t: Transcript) => j.judge(t);
