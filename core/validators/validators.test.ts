import { describe, expect, it } from 'vitest';
import { formatDaAction } from '../wire';
import type { AgentTurn, ToolResult, Transcript, Turn } from '../world/transcript';
import { transcriptOfEpisode, validateFaithfulness, validateRoleConfusion, validateSyntax, validateTaskSuccess, validateTranscript } from './validators';
import type { EpisodeRecord } from '../store/port';

const act = (action_type: 'speak' | 'tool_call' | 'end_call', content: string, tool_args: Record<string, unknown> = {}, toolResult?: ToolResult): AgentTurn => {
  const action = { thinking: 't', action_type, content, tool_args };
  return { role: 'agent', raw: formatDaAction(action), action, ...(toolResult ? { toolResult } : {}) };
};
const customer = (text: string): Turn => ({ role: 'customer', text });
const lookup = act(
  'tool_call',
  'lookup_account',
  { phone: '+1 555 123 4567' },
  {
    ok: true,
    tool: 'lookup_account',
    data: {
      customer_id: 'cus_1',
      name: 'Ann Lee',
      verified: true,
      accounts: [{ account_id: 'acc_1', type: 'checking', balance: 900 }],
      cards: [{ card_id: 'card_1', last4: '4242', status: 'active' }],
    },
  },
);
const disputeOk = (args: Record<string, unknown>) =>
  act('tool_call', 'dispute_charge', args, {
    ok: true,
    tool: 'dispute_charge',
    data: { dispute_id: 'dsp_1', transaction_id: 'txn_1', merchant: 'HULU *EXTRA', amount: 12.99, status: 'filed', provisional_credit: true },
  });

/** A clean, successful dispute: passes every validator. */
function good(): Transcript {
  return {
    scenarioId: 'dispute-reference-r',
    expectedTool: 'dispute_charge',
    intent: 'unrecognized_charge',
    turns: [
      customer('There is a $12.99 charge from HULU *EXTRA I never made.'),
      lookup,
      disputeOk({ account_id: 'acc_1', amount: 12.99, reason: 'unrecognized' }),
      act('speak', "I've opened dispute dsp_1 for the $12.99 charge from HULU *EXTRA; a provisional credit is on its way."),
      customer('Thanks a lot.'),
      act('end_call', 'Goodbye.'),
    ],
    endReason: 'end_call',
  };
}
const task = {
  task: {
    objective: 'dispute',
    hardConstraints: { amount: 12.99, reason: 'unrecognized' },
    softPreferences: { provisional_credit: true, merchant: 'Netflix' },
    successCriteria: ['x'],
  },
};
const withTurn = (i: number, turn: Turn): Transcript => {
  const t = good();
  t.turns[i] = turn;
  return t;
};

describe('validators on hand-made transcripts', () => {
  it('pass a clean, faithful, successful transcript, and report soft preferences', () => {
    const v = validateTranscript(good(), task);
    expect(v.map((x) => [x.validator, x.ok])).toEqual([
      ['syntax', true],
      ['faithfulness', true],
      ['role_confusion', true],
      ['task_success', true],
    ]);
    expect(v[3]!.soft).toEqual([
      { key: 'provisional_credit', honoured: true },
      { key: 'merchant', honoured: false },
    ]);
  });

  describe('syntax', () => {
    it('fails an unparseable DA output at its turn', () => {
      expect(validateSyntax(withTurn(3, { role: 'agent', raw: '{oops', action: null, parseError: 'not valid JSON' }))).toMatchObject({
        ok: false,
        turn: 3,
        reason: expect.stringContaining('unparseable') as string,
      });
    });
    it('fails a tool that does not exist, and arguments that break the schema', () => {
      expect(validateSyntax(withTurn(2, act('tool_call', 'refund_customer', {})))).toMatchObject({
        ok: false,
        turn: 2,
        reason: 'tool "refund_customer" does not exist',
      });
      expect(validateSyntax(withTurn(2, act('tool_call', 'dispute_charge', { account_id: 'acc_1', reason: 'because' })))).toMatchObject({
        ok: false,
        turn: 2,
        reason: expect.stringContaining('dispute_charge arguments: reason') as string,
      });
    });
    it('fails a second message before the customer speaks', () => {
      const t = good();
      t.turns.splice(4, 0, act('speak', 'Anything else?'));
      expect(validateSyntax(t)).toMatchObject({ ok: false, turn: 4 });
    });
  });

  describe('faithfulness', () => {
    it('fails an id no tool returned, and an amount nobody mentioned', () => {
      expect(validateFaithfulness(withTurn(2, disputeOk({ account_id: 'acc_999', amount: 12.99, reason: 'unrecognized' })))).toMatchObject({
        ok: false,
        turn: 2,
        reason: expect.stringContaining('account_id') as string,
      });
      expect(validateFaithfulness(withTurn(2, disputeOk({ account_id: 'acc_1', amount: 45, reason: 'unrecognized' })))).toMatchObject({
        ok: false,
        turn: 2,
        reason: expect.stringContaining('amount = 45') as string,
      });
    });
    it("fails a phone number that is not the caller's", () => {
      const wrong = act(
        'tool_call',
        'lookup_account',
        { phone: '+1 555 000 0000' },
        { ok: false, tool: 'lookup_account', error: { code: 'NOT_FOUND', message: 'no customer' } },
      );
      expect(validateFaithfulness(withTurn(1, wrong))).toMatchObject({ ok: false, turn: 1 });
    });
    it('fails a statement no tool result supports', () => {
      const v = validateFaithfulness(withTurn(3, act('speak', "I've opened the dispute; you'll get $500 back from Netflix.")));
      expect(v).toMatchObject({ ok: false, turn: 3 });
    });
  });

  describe('role confusion', () => {
    it('fails a customer who talks like the agent, at that turn', () => {
      expect(validateRoleConfusion(withTurn(4, customer('Great. Is there anything else I can help you with today?')))).toMatchObject({ ok: false, turn: 4 });
      expect(validateRoleConfusion(withTurn(0, customer('{"action_type": "speak"}')))).toMatchObject({ ok: false, turn: 0 });
    });
  });

  describe('task success', () => {
    it('fails when the goal tool never succeeded, at its last attempt', () => {
      const t = withTurn(
        2,
        act(
          'tool_call',
          'dispute_charge',
          { account_id: 'acc_1', reason: 'unrecognized' },
          { ok: false, tool: 'dispute_charge', error: { code: 'TIMEOUT', message: 'slow' } },
        ),
      );
      expect(validateTaskSuccess(t, task)).toMatchObject({ ok: false, turn: 2, reason: 'dispute_charge never succeeded' });
    });
    it('fails a success that breaks a hard constraint', () => {
      const t = withTurn(2, disputeOk({ account_id: 'acc_1', amount: 12.99, reason: 'duplicate' }));
      expect(validateTaskSuccess(t, task)).toMatchObject({ ok: false, turn: 2, reason: 'hard constraint reason = "unrecognized" not met' });
    });
    it('asks an impossible request for its fallback and fails a claimed success', () => {
      const refused = act(
        'tool_call',
        'dispute_charge',
        { account_id: 'acc_1', reason: 'refund_missing' },
        { ok: false, tool: 'dispute_charge', error: { code: 'POLICY', message: 'window expired' } },
      );
      const imp = (says: string): Transcript => ({
        ...good(),
        turns: [customer('My refund never came.'), lookup, refused, act('speak', says), customer('Ok.'), act('end_call', 'Bye.')],
        impossible: { fallback_behavior: 'decline', reason: 'past the window' },
      });
      expect(validateTaskSuccess(imp("Sorry, I can't dispute that charge."))).toMatchObject({ ok: true });
      expect(validateTaskSuccess(imp('Let me see.'))).toMatchObject({ ok: false, turn: null });
      expect(validateTaskSuccess(imp("All set, I've filed a dispute for you."))).toMatchObject({ ok: false, turn: 3 });
    });
  });

  it('read stored episodes: the transcript of a record validates like the original', () => {
    const t = good();
    const record = {
      id: 'm:0',
      matchId: 'm',
      index: 0,
      scenarioId: t.scenarioId,
      fraudReference: false,
      seed: 1,
      intent: t.intent,
      expectedTool: t.expectedTool,
      routedTool: 'dispute_charge',
      winner: 'DA',
      endReason: 'end_call',
      rDa: 0,
      rCa: 0,
      turns: t.turns.map((x, index) =>
        x.role === 'customer'
          ? { index, role: 'customer', text: x.text, actionType: null, tool: null, toolArgs: null, toolResult: null, parseError: null, rewards: {} }
          : {
              index,
              role: 'agent',
              text: x.raw,
              actionType: x.action!.action_type,
              tool: null,
              toolArgs: null,
              toolResult: x.toolResult ?? null,
              parseError: null,
              rewards: {},
            },
      ),
    } as unknown as EpisodeRecord;
    expect(transcriptOfEpisode(record)).toEqual(t);
    expect(validateTranscript(transcriptOfEpisode(record), task).every((v) => v.ok)).toBe(true);
  });
});
