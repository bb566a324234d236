import { describe, expect, it } from 'vitest';
import type { PlayTurn, ToolField } from '../../../../core/contract/contract';
import { idSuggestions, toolArgs, customerSees, intentInWords } from './play.data';

const dispute: ToolField[] = [
  { name: 'account_id', type: 'string', required: true },
  { name: 'amount', type: 'number', required: false },
  { name: 'reason', type: 'enum', required: true, options: ['duplicate', 'other'] },
];

describe('toolArgs', () => {
  it('types numbers, drops empty optional fields and keeps empty required ones for the engine to name', () => {
    expect(toolArgs(dispute, { account_id: ' acc_1 ', amount: '12.5', reason: 'duplicate' })).toEqual({
      account_id: 'acc_1',
      amount: 12.5,
      reason: 'duplicate',
    });
    expect(toolArgs(dispute, { account_id: '', amount: '', reason: 'other' })).toEqual({ account_id: '', reason: 'other' });
    expect(toolArgs(dispute, { account_id: 'a', amount: 'ten', reason: 'other' })).toEqual({ account_id: 'a', amount: 'ten', reason: 'other' });
    expect(toolArgs([{ name: 'unblock', type: 'boolean', required: false }], { unblock: 'true' })).toEqual({ unblock: true });
    expect(toolArgs([{ name: 'unblock', type: 'boolean', required: false }], {})).toEqual({});
  });
});

describe('idSuggestions', () => {
  it('collects the caller phone and ids from successful tool results, newest first', () => {
    const turn = (index: number, data: Record<string, unknown> | null): PlayTurn => ({
      index,
      role: 'agent',
      actionType: 'tool_call',
      said: null,
      thinking: null,
      tool: 'x',
      toolArgs: {},
      parseError: null,
      toolResult: data ? { ok: true, tool: 'x', data } : { ok: false, tool: 'x', error: { code: 'NOT_FOUND', message: 'no' } },
    });
    const s = idSuggestions(
      [
        turn(0, { accounts: [{ account_id: 'a1' }, { account_id: 'a2' }], cards: [{ card_id: 'c1' }] }),
        turn(1, null),
        turn(2, { transactions: [{ transaction_id: 't9' }] }),
      ],
      '+1 555 0100',
    );
    expect(s).toEqual({
      phone: ['+1 555 0100'],
      transaction_id: ['t9'],
      account_id: ['a1', 'a2'],
      card_id: ['c1'],
      from_account_id: ['a1', 'a2'],
      to_account_id: ['a1', 'a2'],
    });
  });
});

describe('what the customer seat reads', () => {
  it('says the goal in plain words instead of the intent identifier', () => {
    expect(intentInWords('card_payment_not_recognised')).toBe('Card payment not recognised');
    expect(intentInWords('lost_or_stolen_card')).toBe('Lost or stolen card');
  });

  it("keeps the agent's thinking, tool arguments and results out of what the caller sees", () => {
    const turn = {
      index: 1,
      role: 'agent' as const,
      actionType: 'tool_call' as const,
      said: null,
      thinking: 'intent hypotheses: dispute 0.7',
      tool: 'lookup_account',
      toolArgs: { phone: '555' },
      toolResult: { ok: true as const, tool: 'lookup_account', data: { balance: 1234 } },
      parseError: null,
    };
    const seen = customerSees(turn);
    expect(seen).toEqual({ said: null, usedTool: true });
    expect(JSON.stringify(seen)).not.toMatch(/hypotheses|balance|555/);
  });
});
