/** Builders for small hand-made transcripts, for the judge's tests (no runtime code uses them). */
import type { DomainTool } from '../../core/domain/types';
import { formatDaAction } from '../../core/wire';
import type { AgentTurn, CustomerTurn, ToolErrorCode, Transcript, Turn } from '../../core/world/transcript';

export const customer = (text: string): CustomerTurn => ({ role: 'customer', text });

export function say(text: string): AgentTurn {
  const action = { thinking: 't', action_type: 'speak' as const, content: text, tool_args: {} };
  return { role: 'agent', raw: formatDaAction(action), action };
}

export function end(text = 'Thank you for calling. Goodbye.'): AgentTurn {
  const action = { thinking: 't', action_type: 'end_call' as const, content: text, tool_args: {} };
  return { role: 'agent', raw: formatDaAction(action), action };
}

export function ok(tool: string, data: Record<string, unknown>, args: Record<string, unknown> = {}): AgentTurn {
  const action = { thinking: 't', action_type: 'tool_call' as const, content: tool, tool_args: args };
  return { role: 'agent', raw: formatDaAction(action), action, toolResult: { ok: true, tool, data } };
}

export function fail(tool: string, code: ToolErrorCode, message: string, args: Record<string, unknown> = {}): AgentTurn {
  const action = { thinking: 't', action_type: 'tool_call' as const, content: tool, tool_args: args };
  return { role: 'agent', raw: formatDaAction(action), action, toolResult: { ok: false, tool, error: { code, message } } };
}

export function garbage(raw = '{"action_type": speak'): AgentTurn {
  return { role: 'agent', raw, action: null, parseError: 'not valid JSON' };
}

export function transcript(expectedTool: DomainTool, turns: Turn[], endReason: Transcript['endReason'] = 'end_call'): Transcript {
  return { scenarioId: 'test', expectedTool, intent: 'test_intent', turns, endReason };
}

/** A verified customer with one checking account, one savings account and one card. */
export const LOOKUP = ok(
  'lookup_account',
  {
    customer_id: 'cus_a1',
    name: 'Dana Whitfield',
    verified: true,
    accounts: [
      { account_id: 'acc_chk1', type: 'checking', balance: 1520.4 },
      { account_id: 'acc_sav1', type: 'savings', balance: 8000 },
    ],
    cards: [{ card_id: 'card_c1', last4: '4821', status: 'blocked' }],
  },
  { phone: '+1 555 123 4567' },
);

export const TRANSACTIONS = ok('get_transactions', {
  account_id: 'acc_chk1',
  transactions: [
    { transaction_id: 'txn_1', date: '2026-03-14', merchant: 'AMZN MKTP', amount: 89, direction: 'debit', status: 'posted', channel: 'online' },
    { transaction_id: 'txn_2', date: '2026-03-10', merchant: "Trader Joe's", amount: 42.1, direction: 'debit', status: 'posted', channel: 'card' },
  ],
});

export const DISPUTE_OK = ok(
  'dispute_charge',
  { dispute_id: 'dsp_9x2k', transaction_id: 'txn_1', merchant: 'AMZN MKTP', amount: 89, status: 'filed', provisional_credit: true },
  { account_id: 'acc_chk1', merchant: 'AMZN MKTP', amount: 89, reason: 'unrecognized' },
);
