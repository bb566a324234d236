/**
 * r_DA = r_format + r_tool + r_env + r_end (RL-ADA eq. 1, Table 2), computed per DA turn and
 * summed per episode. r_env is the return of the whole environment rollout: the turn-level rule
 * signals below plus the terminal judge score J and the mandatory procedural deductions, which
 * are booked on the DA's last turn.
 */
import type { DaRewardConfig } from '../config';
import { isDomainTool, isToolName } from '../domain/types';
import { impossibleOutcome } from '../judge/fallback';
import { findHallucinations } from '../judge/judge';
import type { JudgeVerdict } from '../judge/types';
import type { Transcript } from '../world/transcript';
import { zeroDaTerms, sumTerms } from './terms';
import type { DaTerms } from './terms';

export interface DaRewardResult {
  /** Terms earned at each agent turn, keyed by the turn's index in the transcript. */
  perTurn: Map<number, Partial<DaTerms>>;
  total: DaTerms;
  /** r_DA: the sum of all terms. */
  rDa: number;
}

/** −lateCoef · (s − lateStepAfter)^lateExponent for DA step s (1-based), 0 before. */
export function latePenalty(s: number, cfg: DaRewardConfig): number {
  return s > cfg.lateStepAfter ? -cfg.lateCoef * Math.pow(s - cfg.lateStepAfter, cfg.lateExponent) : 0;
}

export function daRewards(t: Transcript, judge: JudgeVerdict, cfg: DaRewardConfig): DaRewardResult {
  const perTurn = new Map<number, Partial<DaTerms>>();
  const total = zeroDaTerms();
  const add = (i: number, term: keyof DaTerms, v: number) => {
    if (v === 0) return;
    const row = perTurn.get(i) ?? {};
    row[term] = (row[term] ?? 0) + v;
    perTurn.set(i, row);
    total[term] += v;
  };
  const milestone = cfg.milestoneCap / 3;

  let s = 0; // DA step counter
  let lastAgent = -1;
  let seenToolCall = false;
  let verified = false;
  let verifiedBeforeDomain = true;
  let anyDomainOk = false;
  let correctRewarded = false;
  let correctOk = false;
  let explained = false;
  let sequenceSpoken = false; // a speak after a successful domain tool
  let domainTried = false; // the expected tool called after verification (impossible goals)

  t.turns.forEach((turn, i) => {
    if (turn.role !== 'agent') return;
    s++;
    lastAgent = i;
    add(i, 'env_late', latePenalty(s, cfg));
    const a = turn.action;
    if (!a) {
      add(i, 'format', cfg.formatUnparseable);
      return;
    }
    if (a.thinking.trim() !== '') add(i, 'format', cfg.formatValid);

    if (a.action_type === 'speak') {
      add(i, 'env_speak', cfg.speakPerTurn);
      if (anyDomainOk) sequenceSpoken = true;
      if (correctOk && !explained) {
        explained = true;
        add(i, 'env_milestone', milestone);
      }
      return;
    }
    if (a.action_type === 'end_call') {
      if (verified && anyDomainOk && sequenceSpoken) add(i, 'end', cfg.endAfterSequence);
      return;
    }

    // tool_call
    const name = a.content.trim();
    const ok = turn.toolResult?.ok === true;
    if (!seenToolCall) {
      seenToolCall = true;
      if (name === 'lookup_account') add(i, 'env_lookup_first', cfg.lookupFirst);
    }
    if (name === 'lookup_account') {
      if (ok && !verified) {
        verified = true;
        add(i, 'env_milestone', milestone);
      }
      return;
    }
    if (!isToolName(name)) {
      add(i, 'tool', cfg.toolNonexistent);
      return;
    }
    if (!isDomainTool(name)) return;
    if (name === t.expectedTool && verified) domainTried = true;
    if (!verified) verifiedBeforeDomain = false;
    if (ok) anyDomainOk = true;
    if (name !== t.expectedTool) {
      add(i, 'tool', cfg.toolWrong);
      return;
    }
    if (!correctRewarded) {
      correctRewarded = true;
      add(i, 'tool', cfg.toolCorrect);
      if (verified) add(i, 'env_correct_tool', cfg.correctToolVerified);
    }
    if (ok && !correctOk) {
      correctOk = true;
      add(i, 'env_milestone', milestone);
    }
  });

  // An impossible goal's domain tool cannot succeed: trying it (after verification) is the sequence.
  const fallback = t.impossible ? impossibleOutcome(t, findHallucinations(t)) : null;
  if (lastAgent >= 0) {
    const J = Math.max(-cfg.judgeClip, Math.min(cfg.judgeClip, judge.score));
    add(lastAgent, 'env_judge', J);
    if (!verified || !verifiedBeforeDomain) add(lastAgent, 'env_missed_verification', cfg.missedVerification);
    if (!anyDomainOk && !(fallback && domainTried)) add(lastAgent, 'env_missing_tool', cfg.missingDomainTool);
  }
  if (fallback) {
    if (fallback.claimTurn !== null) add(fallback.claimTurn, 'env_fallback', cfg.claimedSuccessPenalty);
    else if (fallback.fallbackTurn !== null) add(fallback.fallbackTurn, 'env_fallback', cfg.fallbackCredit);
    if (fallback.fallbackTurn !== null && domainTried && verified && t.endReason === 'end_call' && !anyDomainOk) add(lastAgent, 'end', cfg.endAfterSequence);
  }
  return { perTurn, total, rDa: sumTerms(total) };
}
