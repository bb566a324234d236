/**
 * The builtin NeutralJudge (RL-ADA §3.1): a deterministic, rule-based episode scorer.
 *
 * It reads the whole transcript and the world's ground truth (`expectedTool`), never the DA's
 * `thinking` or any other internal state, and answers three questions:
 *
 * - **Hallucination**: every factual claim the DA makes to the customer (speak / end_call text) —
 *   dollar amounts, balances, merchant and other proper names, dates, record ids, card digits,
 *   card and transaction statuses, wait times, provisional credit, process promises (timelines,
 *   notifications) and action claims ("I've filed a dispute", "I'm transferring you") — must be
 *   backed by a *successful* tool result earlier in the transcript or, for amounts, names, dates
 *   and ids, by the customer's own words.
 * - **Resolution**: the expected tool succeeded with its effect (a card check that leaves the card
 *   blocked has not), a later speak turn told the customer the result, and nothing the DA said
 *   misstates that outcome. A fabricated peripheral detail (a wrong reference or wait time) leaves
 *   the resolution standing but costs the tier.
 * - **Quality tier** 4..1 and the terminal score J ∈ [−2, +2] (a monotone map of the tier; the
 *   floor when the DA hallucinated):
 *   4 exemplary: lookup first, the expected tool once, explained with the result's details,
 *     end_call, concise (at most one speak before the tool, at most 8 agent turns), nothing garbled;
 *   3 resolved with lapses (any of those missed, or a vague or raw-field explanation);
 *   2 unresolved but honest: the expected tool was tried (error, card left blocked, or result
 *     never explained), or identity could not be verified and the DA escalated;
 *   1 failed: wrong or no domain tool, unparseable outputs dominating, or any hallucination.
 *
 * Pure and allocation-light: it runs on every arena episode.
 *
 * The hallucination check is a set of claim checks, one file per claim kind, in `claims/`
 * (amounts, dates, names and ids, statuses, timelines, actions); routing and resolution are in
 * `resolution.ts`; this file composes them into the verdict and its tier.
 */
import type { AgentTurn, ToolResult, Transcript } from '../world/transcript';
import { findHallucinations } from './claims';
import { compile, resolveConfig } from './config';
import type { JudgeOptions, Tier } from './config';
import { fallbackHandled, impossibleOutcome } from './fallback';
import { effectAchieved, rawFieldDump, referencesResult, toolName } from './resolution';
import type { JudgeVerdict } from './types';

export { DEFAULT_JUDGE_CONFIG } from './config';
export type { ClaimKind, Finding, JudgeConfig, JudgeOptions, Tier } from './config';
export { findHallucinations } from './claims';
export { effectAchieved } from './resolution';

/** The judge's verdict on one finished episode. */
export function judgeEpisode(t: Transcript, opts?: JudgeOptions): JudgeVerdict {
  const cfg = resolveConfig(opts);
  const c = compile(cfg);
  const findings = findHallucinations(t, opts);
  const hallucination = findings.length > 0;

  const agents: { turn: AgentTurn; index: number }[] = [];
  t.turns.forEach((turn, index) => {
    if (turn.role === 'agent') agents.push({ turn, index });
  });
  const parseErrors = agents.filter((a) => a.turn.action === null).length;
  const parseShare = agents.length ? parseErrors / agents.length : 0;

  const calls = agents.filter((a) => toolName(a.turn) !== null).map((a) => ({ index: a.index, tool: toolName(a.turn)!, result: a.turn.toolResult }));
  const lookupFirst = calls.length > 0 && calls[0]!.tool === 'lookup_account' && calls[0]!.result?.ok === true;
  const verifiedAt = calls.find((x) => x.tool === 'lookup_account' && x.result?.ok)?.index ?? null;
  const verificationFailed = verifiedAt === null && calls.some((x) => x.tool === 'lookup_account');
  const nonLookup = calls.filter((x) => x.tool !== 'lookup_account');
  const routing = nonLookup[0]?.tool ?? null;
  const afterVerification = (i: number) => !cfg.resolutionNeedsVerification || (verifiedAt !== null && i > verifiedAt);
  const expectedCalls = nonLookup.filter((x) => x.tool === t.expectedTool);
  const expectedOk = expectedCalls.find((x) => x.result !== undefined && effectAchieved(x.result) && afterVerification(x.index)) ?? null;
  const expectedAttempted = expectedCalls.some((x) => afterVerification(x.index));
  const otherTools = [...new Set(nonLookup.filter((x) => x.tool !== t.expectedTool).map((x) => x.tool))];
  const escalated = nonLookup.some((x) => x.tool === 'transfer_to_human' && x.result?.ok === true);

  const isExplainer = (a: { turn: AgentTurn }) =>
    a.turn.action !== null && (a.turn.action.action_type === 'speak' || (cfg.explainInEndCall && a.turn.action.action_type === 'end_call'));
  /** The first message after `from` that explains result `r`, and how. */
  const explanation = (from: number, r: ToolResult) => {
    for (const a of agents) {
      if (a.index <= from || !isExplainer(a)) continue;
      const ref = referencesResult(a.turn.action!.content, r, cfg);
      if (ref !== 'none') return { index: a.index, ref, raw: rawFieldDump(a.turn.action!.content, c) };
    }
    return null;
  };
  const explained = expectedOk?.result ? explanation(expectedOk.index, expectedOk.result) : null;
  // A fabrication about the expected tool's own outcome means the customer was not told the truth.
  const outcomeFindings = cfg.hallucinationBlocksResolution === 'any' ? findings : findings.filter((f) => f.about.includes(t.expectedTool));
  const resolved = expectedOk !== null && explained !== null && outcomeFindings.length === 0;

  const lastAgent = agents[agents.length - 1]?.turn.action;
  const endedWithEndCall = t.endReason === 'end_call' && lastAgent?.action_type === 'end_call';
  const speaksBeforeTool = expectedOk ? agents.filter((a) => a.index < expectedOk.index && a.turn.action?.action_type === 'speak').length : 0;

  const fallback = impossibleOutcome(t, findings);
  if (fallback) {
    // An impossible goal: judged on the fallback (see fallback.ts), never on the goal tool's success.
    const why: string[] = [`impossible (${t.impossible!.reason}), fallback ${fallback.behavior}`];
    let ftier: Tier;
    if (fallback.claimTurn !== null) {
      ftier = 1;
      why.push(`claimed success at turn ${fallback.claimTurn}`);
    } else if (fallback.fallbackTurn !== null) {
      const lapses: string[] = [];
      if (!lookupFirst) lapses.push('lookup_account was not the first tool call');
      if (!endedWithEndCall) lapses.push(t.endReason === 'turn_limit' ? 'hit the turn limit' : 'did not end with end_call');
      if (parseErrors > 0) lapses.push(`${parseErrors} unparseable output${parseErrors > 1 ? 's' : ''}`);
      if (agents.length > cfg.exemplaryMaxAgentTurns) lapses.push(`${agents.length} agent turns (> ${cfg.exemplaryMaxAgentTurns})`);
      ftier = hallucination ? 1 : lapses.length ? 3 : 4;
      why.push(`fallback delivered at turn ${fallback.fallbackTurn}`, ...lapses);
    } else {
      ftier = expectedAttempted || escalated ? 2 : 1;
      why.push(expectedAttempted || escalated ? 'no fallback delivered' : 'neither tried the request nor delivered the fallback');
    }
    if (hallucination) why.push(`hallucination at turn${findings.length > 1 ? 's' : ''} ${[...new Set(findings.map((f) => f.turn))].join(', ')}`);
    const fscore = hallucination || fallback.claimTurn !== null ? cfg.hallucinationScore : cfg.tierScore[ftier];
    return {
      score: fscore,
      resolved: fallbackHandled(fallback),
      tier: ftier,
      hallucination,
      hallucinations: findings.map((f) => ({ turn: f.turn, claim: f.claim })),
      rationale: `tier ${ftier}, J=${fscore >= 0 ? '+' : ''}${fscore}: ${why.join('; ')}`,
    };
  }

  const reasons: string[] = [];
  let tier: JudgeVerdict['tier'];
  if (resolved) reasons.push(`resolved: ${t.expectedTool} succeeded at turn ${expectedOk.index}, explained at turn ${explained.index}`);
  if (hallucination) {
    tier = 1;
    const kinds = [...new Set(findings.map((f) => f.kind))].join(', ');
    const turns = [...new Set(findings.map((f) => f.turn))];
    reasons.push(
      `hallucination (${kinds}) at turn${turns.length > 1 ? 's' : ''} ${turns.join(', ')}: ${findings
        .map((f) => `"${f.claim}"`)
        .slice(0, 3)
        .join(', ')}${findings.length > 3 ? ', …' : ''}`,
    );
    if (outcomeFindings.length && expectedOk) reasons.push(`misstates the outcome of ${t.expectedTool}`);
  } else if (parseShare >= cfg.parseErrorDominance) {
    tier = 1;
    reasons.push(`${parseErrors} of ${agents.length} agent outputs unparseable`);
  } else if (resolved) {
    const lapses: string[] = [];
    if (!lookupFirst) lapses.push('lookup_account was not the first tool call');
    if (otherTools.length) lapses.push(`also called ${otherTools.join(', ')}`);
    if (expectedCalls.length > 1) lapses.push(`${t.expectedTool} called ${expectedCalls.length} times`);
    if (speaksBeforeTool > cfg.maxSpeaksBeforeTool) lapses.push(`${speaksBeforeTool} speak turns before ${t.expectedTool} (> ${cfg.maxSpeaksBeforeTool})`);
    if (explained.ref === 'words') lapses.push('the first explanation gives none of the result’s details');
    if (explained.raw) lapses.push('the first explanation reads out raw tool fields');
    if (!endedWithEndCall) lapses.push(t.endReason === 'turn_limit' ? 'hit the turn limit' : 'did not end with end_call');
    if (agents.length > cfg.exemplaryMaxAgentTurns) lapses.push(`${agents.length} agent turns (> ${cfg.exemplaryMaxAgentTurns})`);
    if (parseErrors > 0) lapses.push(`${parseErrors} unparseable output${parseErrors > 1 ? 's' : ''}`);
    tier = lapses.length ? 3 : 4;
    reasons.push(...lapses);
  } else if (expectedAttempted || (verificationFailed && escalated)) {
    tier = 2;
    const failed = expectedCalls.filter((x) => x.result && !effectAchieved(x.result) && afterVerification(x.index));
    if (expectedOk) reasons.push(`${t.expectedTool} succeeded at turn ${expectedOk.index} but the result was never explained`);
    else if (failed.length) {
      const last = failed[failed.length - 1]!;
      const told = explanation(last.index, last.result!) !== null;
      const what = last.result!.ok ? 'left the card blocked' : `returned ${last.result!.error.code}`;
      reasons.push(`${t.expectedTool} ${what}; ${told ? 'explained to the customer' : 'not explained'}`);
    } else if (!expectedAttempted) reasons.push('identity could not be verified');
    else reasons.push(`${t.expectedTool} called without a result`);
    if (escalated && t.expectedTool !== 'transfer_to_human') reasons.push('escalated to a person');
  } else {
    tier = 1;
    if (routing === null) reasons.push('no domain tool called');
    else if (routing !== t.expectedTool) reasons.push(`routed to ${routing}, expected ${t.expectedTool}`);
    if (expectedCalls.length && !afterVerification(expectedCalls[0]!.index)) reasons.push(`${t.expectedTool} called without identity verification`);
    if (verifiedAt === null) reasons.push('identity never verified');
    if (t.endReason === 'turn_limit') reasons.push('hit the turn limit without progress');
  }
  if (parseErrors > 0 && tier !== 3 && !(tier === 1 && parseShare >= cfg.parseErrorDominance)) {
    reasons.push(`${parseErrors} unparseable output${parseErrors > 1 ? 's' : ''}`);
  }

  const score = hallucination ? cfg.hallucinationScore : cfg.tierScore[tier];
  return {
    score,
    resolved,
    tier,
    hallucination,
    hallucinations: findings.map((f) => ({ turn: f.turn, claim: f.claim })),
    rationale: `tier ${tier}, J=${score >= 0 ? '+' : ''}${score}: ${reasons.join('; ')}`,
  };
}
