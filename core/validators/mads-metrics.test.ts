import { describe, expect, it } from 'vitest';
import type { ReferenceAction, Scenario } from '../domain/types';
import { formatDaAction } from '../wire';
import type { AgentTurn, ToolResult, Transcript, Turn } from '../world/transcript';
import { firstError, l1Scores, l2Score, madsReport, textSimilarity } from './mads-metrics';

const act = (action_type: 'speak' | 'tool_call' | 'end_call', content: string, tool_args: Record<string, unknown> = {}, toolResult?: ToolResult): AgentTurn => {
  const action = { thinking: 't', action_type, content, tool_args };
  return { role: 'agent', raw: formatDaAction(action), action, ...(toolResult ? { toolResult } : {}) };
};
const customer = (text: string): Turn => ({ role: 'customer', text });
const lookup = act(
  'tool_call',
  'lookup_account',
  { phone: '+1 555' },
  {
    ok: true,
    tool: 'lookup_account',
    data: {
      customer_id: 'cus_1',
      name: 'Ann Lee',
      verified: true,
      accounts: [{ account_id: 'acc_1', type: 'checking', balance: 900 }],
      cards: [{ card_id: 'card_1', last4: '4242', status: 'blocked' }],
    },
  },
);
const check = act(
  'tool_call',
  'check_card_status',
  { card_id: 'card_1', unblock: true },
  {
    ok: true,
    tool: 'check_card_status',
    data: { card_id: 'card_1', last4: '4242', status: 'active', last_decline: null, unblocked: true },
  },
);
const explain = act('speak', 'Your card ending 4242 is active again.');
const ref: ReferenceAction[] = [
  { action_type: 'tool_call', content: 'lookup_account', tool_args: { phone: '*' } },
  { action_type: 'tool_call', content: 'check_card_status', tool_args: { card_id: '*', unblock: true } },
  { action_type: 'speak', content: 'Your card ending 4242 is active again.' },
  { action_type: 'end_call', content: 'Goodbye.' },
];
const transcript = (turns: Turn[], scenarioId = 'card'): Transcript => ({
  scenarioId,
  expectedTool: 'check_card_status',
  intent: 'card_declined',
  turns,
  endReason: 'end_call',
});
const good = () => transcript([customer('My card is declined.'), lookup, check, explain, customer('Thanks.'), act('end_call', 'Goodbye.')]);

describe('MADS metrics', () => {
  it('L-1: a trajectory equal to the reference scores 1 on every measure', () => {
    const s = l1Scores(good(), ref);
    expect([s.actionTypeRecall, s.toolF1, s.paramExactMatch]).toEqual([1, 1, 1]);
    expect(s.responseSimilarity).toBeCloseTo(1, 12);
  });

  it('L-1: a wrong tool and different words lower recall, F1, exact match and similarity by the hand-computed amounts', () => {
    const t = transcript([
      customer('x'),
      lookup,
      act('tool_call', 'get_transactions', { account_id: 'acc_1' }),
      act('speak', 'Your card is fine.'),
      act('end_call', 'Bye.'),
    ]);
    const s = l1Scores(t, ref);
    expect(s.actionTypeRecall).toBe(1); // types line up: tool, tool, speak, end
    expect(s.toolF1).toBeCloseTo(0.5); // 1 of 2 called, 1 of 2 referenced
    expect(s.paramExactMatch).toBe(0.5); // lookup matches, check_card_status never called
    expect(s.responseSimilarity).toBeCloseTo(textSimilarity('Your card is fine.', 'Your card ending 4242 is active again.'));
    expect(textSimilarity('a b', 'a b')).toBeCloseTo(1);
    expect(textSimilarity('a', 'b')).toBe(0);
  });

  it('L-2: stops at the first wrong turn and scores the share of DA turns before it', () => {
    expect(firstError(good())).toBeNull();
    expect(l2Score(good())).toBe(1);
    // A wrong domain tool at turn 2: 1 of the 4 DA turns came before it.
    const wrong = transcript([
      customer('x'),
      lookup,
      act('tool_call', 'get_transactions', { account_id: 'acc_1' }, { ok: true, tool: 'get_transactions', data: { account_id: 'acc_1', transactions: [] } }),
      check,
      explain,
      act('end_call', 'Bye.'),
    ]);
    expect(firstError(wrong)).toBe(2);
    expect(l2Score(wrong)).toBeCloseTo(1 / 5);
    // Ending without the goal: the last DA turn is the error.
    const quit = transcript([customer('x'), lookup, act('speak', 'Anything else?'), customer('no'), act('end_call', 'Bye.')]);
    expect(firstError(quit)).toBe(4);
    expect(l2Score(quit)).toBeCloseTo(2 / 3);
  });

  it('breaks results down by complexity and by the adversities that fired', () => {
    const scenarios = [
      { id: 'card', referenceActions: ref },
      { id: 'card-unhappy', adversities: [{ kind: 'timeout', turn: 1 }] },
    ] as unknown as Scenario[];
    const fired = { ...good(), scenarioId: 'card-unhappy', adversities: [{ kind: 'timeout' as const, turn: 2, detail: 'x' }] };
    const r = madsReport([good(), fired], scenarios);
    expect(r.overall).toMatchObject({ episodes: 2, l2: 1, l2Complete: 1 });
    expect(r.overall.l1?.episodes).toBe(1);
    expect(Object.keys(r.byComplexity)).toEqual(['normal', 'unhappy']);
    expect(r.byAdversity.timeout?.episodes).toBe(1);
    expect(r.byAdversity.none?.episodes).toBe(1);
    expect(() => madsReport([transcript([], 'nope')], scenarios)).toThrow("scenario 'nope' is not in the domain");
  });
});
