import { describe, expect, it } from 'vitest';
import { DEFAULT_CONFIG } from '../config';
import type { FallbackBehavior } from '../domain/types';
import { daRewards } from '../rewards/da-reward';
import { formatDaAction } from '../wire';
import type { AgentTurn, ToolResult, Transcript, Turn } from '../world/transcript';
import { deliversFallback, impossibleOutcome } from './fallback';
import { findHallucinations, judgeEpisode } from './judge';

const cfg = DEFAULT_CONFIG.daReward;
const act = (action_type: 'speak' | 'tool_call' | 'end_call', content: string, toolResult?: ToolResult): AgentTurn => {
  const action = { thinking: 't', action_type, content, tool_args: {} };
  return { role: 'agent', raw: formatDaAction(action), action, ...(toolResult ? { toolResult } : {}) };
};
const lookup = act('tool_call', 'lookup_account', {
  ok: true,
  tool: 'lookup_account',
  data: { customer_id: 'cus_1', name: 'Ann Lee', verified: true, accounts: [{ account_id: 'acc_1', type: 'checking', balance: 10 }], cards: [] },
});
const refused = act('tool_call', 'dispute_charge', {
  ok: false,
  tool: 'dispute_charge',
  error: { code: 'POLICY', message: 'refund window expired: charges can be disputed within 60 days' },
});
const customer = (text: string): Turn => ({ role: 'customer', text });

function impossible(says: string, behavior: FallbackBehavior = 'offer_alternative', call: AgentTurn = refused): Transcript {
  return {
    scenarioId: 'refund-window-expired-r',
    expectedTool: 'dispute_charge',
    intent: 'refund_not_showing_up',
    turns: [customer('My Zara refund never came.'), lookup, call, act('speak', says), customer('Okay.'), act('end_call', 'Goodbye.')],
    endReason: 'end_call',
    impossible: { fallback_behavior: behavior, reason: 'older than the dispute window' },
  };
}

const OFFER = "I'm sorry, I can't open a dispute because the charge is older than the 60-day window. Instead, you could contact the merchant directly.";

describe('impossible scenarios: judge and rewards', () => {
  it('credit the fallback: resolved, tier 4, J = +2, env_fallback = fallbackCredit on the turn that delivered it', () => {
    const t = impossible(OFFER);
    const v = judgeEpisode(t);
    expect(v).toMatchObject({ resolved: true, tier: 4, score: 2, hallucination: false });
    expect(v.rationale).toContain('fallback delivered at turn 3');
    const r = daRewards(t, v, cfg);
    expect(r.perTurn.get(3)?.env_fallback).toBe(cfg.fallbackCredit);
    expect(r.total.env_missing_tool).toBe(0); // the goal tool cannot succeed; trying it is the sequence
    expect(r.total.end).toBe(cfg.endAfterSequence);
  });

  it('penalise a claimed success: tier 1, J = −2, env_fallback = claimedSuccessPenalty', () => {
    const t = impossible("Good news, I've filed a dispute for the Zara charge.");
    const v = judgeEpisode(t);
    expect(v).toMatchObject({ resolved: false, tier: 1, score: -2 });
    expect(v.rationale).toContain('claimed success at turn 3');
    const r = daRewards(t, v, cfg);
    expect(r.total.env_fallback).toBe(cfg.claimedSuccessPenalty);
    expect(r.total.end).toBe(0);
  });

  it('count a goal tool that succeeded anyway as a claimed success', () => {
    const ok = act('tool_call', 'dispute_charge', {
      ok: true,
      tool: 'dispute_charge',
      data: { dispute_id: 'dsp_1', transaction_id: 'txn_1', merchant: 'Zara', amount: 5, status: 'filed', provisional_credit: true },
    });
    const o = impossibleOutcome(impossible(OFFER, 'offer_alternative', ok), []);
    expect(o?.claimTurn).toBe(2);
  });

  it('give no credit when no fallback was delivered (tier 2, nothing booked)', () => {
    const t = impossible('Let me see what else is on the account.');
    const v = judgeEpisode(t);
    expect(v).toMatchObject({ resolved: false, tier: 2 });
    expect(daRewards(t, v, cfg).total.env_fallback).toBe(0);
  });

  it('ask each behaviour for its own cues: decline says no, explain says why, offer_alternative offers another way', () => {
    expect(deliversFallback("Sorry, I can't do that.", 'decline', false)).toBe(true);
    expect(deliversFallback("Sorry, I can't do that.", 'explain', false)).toBe(false);
    expect(deliversFallback("Sorry, I can't do that because of our 60-day policy.", 'explain', false)).toBe(true);
    expect(deliversFallback("Sorry, I can't do that because of our 60-day policy.", 'offer_alternative', false)).toBe(false);
    expect(deliversFallback("Sorry, I can't do that.", 'offer_alternative', true)).toBe(true); // a specialist is on the way
    expect(deliversFallback('Instead you could contact the merchant.', 'offer_alternative', false)).toBe(false); // never said no
  });

  it('leave possible scenarios to the usual judge', () => {
    const t = { ...impossible(OFFER) };
    delete t.impossible;
    expect(impossibleOutcome(t, findHallucinations(t))).toBeNull();
    expect(judgeEpisode(t).rationale).not.toContain('impossible');
  });
});
