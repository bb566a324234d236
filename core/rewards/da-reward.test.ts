import { describe, expect, it } from 'vitest';
import { DEFAULT_CONFIG } from '../config';
import type { JudgeVerdict } from '../judge/types';
import { formatDaAction } from '../wire';
import type { ActionType } from '../wire';
import type { DomainTool } from '../domain/types';
import type { AgentTurn, ToolResult, Transcript, Turn } from '../world/transcript';
import { daRewards, latePenalty } from './da-reward';
import { sumTerms } from './terms';

const cfg = DEFAULT_CONFIG.daReward;

function agent(type: ActionType, content: string, opts: { thinking?: string; ok?: boolean } = {}): AgentTurn {
  const action = { thinking: opts.thinking ?? 'reasoning', action_type: type, content, tool_args: {} };
  const turn: AgentTurn = { role: 'agent', raw: formatDaAction(action), action };
  if (type === 'tool_call') {
    turn.toolResult =
      (opts.ok ?? true)
        ? { ok: true, tool: content, data: {} }
        : ({ ok: false, tool: content, error: { code: 'NOT_FOUND', message: 'x' } } satisfies ToolResult);
  }
  return turn;
}
const customer = (text = 'hello'): Turn => ({ role: 'customer', text });
const garbage = (): AgentTurn => ({ role: 'agent', raw: '{oops', action: null, parseError: 'not valid JSON' });
const verdict = (score: number): JudgeVerdict => ({ score, resolved: score > 0, tier: 4, hallucination: false, hallucinations: [], rationale: '' });
const episode = (turns: Turn[], expectedTool: DomainTool = 'dispute_charge'): Transcript => ({
  scenarioId: 's',
  expectedTool,
  intent: 'duplicate_charge',
  turns,
  endReason: 'end_call',
});

describe('RL-ADA Table 2 values', () => {
  it('pins every default constant', () => {
    expect(cfg).toEqual({
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
    });
  });

  it('scores the ideal call sequence term by term', () => {
    const t = episode([
      customer(),
      agent('tool_call', 'lookup_account'),
      agent('tool_call', 'dispute_charge'),
      agent('speak', 'done'),
      customer('thanks'),
      agent('end_call', 'bye'),
    ]);
    const r = daRewards(t, verdict(2), cfg);
    expect(r.total.format).toBeCloseTo(4 * 0.5);
    expect(r.total.tool).toBeCloseTo(1.0);
    expect(r.total.env_lookup_first).toBeCloseTo(0.5);
    expect(r.total.env_correct_tool).toBeCloseTo(2.0);
    expect(r.total.env_speak).toBeCloseTo(-0.05);
    expect(r.total.env_milestone).toBeCloseTo(1.05);
    expect(r.total.env_late).toBe(0);
    expect(r.total.env_judge).toBeCloseTo(2);
    expect(r.total.env_missed_verification).toBe(0);
    expect(r.total.env_missing_tool).toBe(0);
    expect(r.total.end).toBeCloseTo(1.0);
    expect(r.rDa).toBeCloseTo(2 + 1 + 0.5 + 2 + -0.05 + 1.05 + 2 + 1);
    expect(r.rDa).toBeCloseTo(sumTerms(r.total));
    // per-turn rows add up to the episode total
    const perTurnSum = [...r.perTurn.values()].reduce((s, row) => s + sumTerms(row as Record<string, number>), 0);
    expect(perTurnSum).toBeCloseTo(r.rDa);
    // the correct-tool terms sit on the dispute_charge turn (index 2)
    expect(r.perTurn.get(2)).toMatchObject({ tool: 1.0, env_correct_tool: 2.0 });
  });

  it('gives no format bonus without thinking and −3.0 for unparseable output', () => {
    const t = episode([customer(), agent('speak', 'hi', { thinking: '' }), customer(), garbage(), agent('end_call', 'bye', { thinking: ' ' })]);
    expect(daRewards(t, verdict(0), cfg).total.format).toBeCloseTo(-3.0);
  });

  it('charges −1.0 for a wrong tool and −1.5 for a tool that does not exist', () => {
    const wrong = daRewards(
      episode([customer(), agent('tool_call', 'lookup_account'), agent('tool_call', 'transfer_to_human'), agent('end_call', 'x')]),
      verdict(0),
      cfg,
    );
    expect(wrong.total.tool).toBeCloseTo(-1.0);
    expect(wrong.total.env_correct_tool).toBe(0);
    const ghost = daRewards(
      episode([customer(), agent('tool_call', 'lookup_account'), agent('tool_call', 'refund_money'), agent('end_call', 'x')]),
      verdict(0),
      cfg,
    );
    expect(ghost.total.tool).toBeCloseTo(-1.5);
  });

  it('withholds the verified bonus and deducts −1.2 when the domain tool comes before verification', () => {
    const t = episode([
      customer(),
      agent('tool_call', 'dispute_charge', { ok: false }),
      agent('tool_call', 'lookup_account'),
      agent('tool_call', 'dispute_charge'),
      agent('end_call', 'x'),
    ]);
    const r = daRewards(t, verdict(0), cfg);
    expect(r.total.env_lookup_first).toBe(0);
    expect(r.total.tool).toBeCloseTo(1.0); // the correct tool is rewarded once
    expect(r.total.env_correct_tool).toBe(0); // it was not verified when first called
    expect(r.total.env_missed_verification).toBeCloseTo(-1.2);
  });

  it('deducts −1.8 when no domain tool succeeded, and −1.2 when never verified', () => {
    const r = daRewards(episode([customer(), agent('speak', 'how can I help?'), customer(), agent('end_call', 'bye')]), verdict(-1), cfg);
    expect(r.total.env_missing_tool).toBeCloseTo(-1.8);
    expect(r.total.env_missed_verification).toBeCloseTo(-1.2);
    expect(r.total.end).toBe(0);
  });

  it('applies the late-episode penalty −0.12·(s−7)^1.4 from step 8 on', () => {
    expect(latePenalty(7, cfg)).toBe(0);
    expect(latePenalty(8, cfg)).toBeCloseTo(-0.12);
    expect(latePenalty(9, cfg)).toBeCloseTo(-0.12 * Math.pow(2, 1.4));
    const turns: Turn[] = [customer()];
    for (let i = 0; i < 9; i++) turns.push(agent('speak', 'hmm'), customer());
    const r = daRewards(episode(turns), verdict(0), cfg);
    expect(r.total.env_late).toBeCloseTo(-0.12 - 0.12 * Math.pow(2, 1.4));
    expect(r.total.env_speak).toBeCloseTo(-0.05 * 9);
  });

  it('clips the terminal judge score J to [−2, +2]', () => {
    const t = episode([customer(), agent('end_call', 'bye')]);
    expect(daRewards(t, verdict(5), cfg).total.env_judge).toBe(2);
    expect(daRewards(t, verdict(-7), cfg).total.env_judge).toBe(-2);
  });

  it('caps milestones at +1.05 even when steps repeat', () => {
    const t = episode([
      customer(),
      agent('tool_call', 'lookup_account'),
      agent('tool_call', 'lookup_account'),
      agent('tool_call', 'dispute_charge'),
      agent('tool_call', 'dispute_charge'),
      agent('speak', 'a'),
      customer(),
      agent('speak', 'b'),
      customer(),
      agent('end_call', 'x'),
    ]);
    expect(daRewards(t, verdict(0), cfg).total.env_milestone).toBeCloseTo(1.05);
  });
});
