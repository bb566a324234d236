import { describe, expect, it } from 'vitest';
import { findHallucinations } from '.';
import { LOOKUP, customer, end, ok, say, transcript } from '../../../test/support/judge-fixtures';

const TXNS = ok('get_transactions', {
  account_id: 'acc_chk1',
  transactions: [
    { transaction_id: 'txn_1', date: '2026-03-15', merchant: 'Shell', amount: 52.3, direction: 'debit', status: 'posted', channel: 'card' },
    { transaction_id: 'txn_2', date: '2026-03-13', merchant: 'Delta Airlines', amount: 418.6, direction: 'debit', status: 'pending', channel: 'online' },
    { transaction_id: 'txn_3', date: '2026-03-14', merchant: 'Nordstrom', amount: 129, direction: 'credit', status: 'refund_pending', channel: 'card' },
  ],
});
const kinds = (text: string) =>
  findHallucinations(transcript('get_transactions', [customer('Has my Delta payment gone through?'), LOOKUP, TXNS, say(text), end()])).map((f) => f.kind);

describe('status claims: a status must match the result', () => {
  it('reads "that payment" as the transaction the previous sentence named', () => {
    expect(kinds('I can see $418.60 to Delta Airlines on Friday. Good news, that payment has cleared and posted.')).toEqual(['txn_status']);
    expect(kinds('I can see $52.30 at Shell yesterday. That payment has posted.')).toEqual([]);
  });

  it('reads a negated "gone through" as pending, not as a posted claim', () => {
    expect(kinds("The $418.60 to Delta Airlines is still pending, so it hasn't fully gone through yet.")).toEqual([]);
  });

  it('flags a refund said to have landed while it is refund_pending', () => {
    expect(kinds('Your $129.00 Nordstrom refund has landed in your account.')).toEqual(['txn_status']);
    expect(kinds('Your $129.00 Nordstrom refund is still pending.')).toEqual([]);
  });

  it('checks "it" after a sentence about a card against the card status', () => {
    const card = ok('check_card_status', {
      card_id: 'card_c1',
      last4: '4821',
      status: 'blocked',
      last_decline: { merchant: 'Shell', amount: 100, reason: 'fraud-prevention hold' },
      unblocked: false,
    });
    const t = (text: string) =>
      findHallucinations(transcript('check_card_status', [customer('My card fails.'), LOOKUP, card, say(text), end()])).map((f) => f.kind);
    expect(t("I've had a look at your card ending 4821. It's expired, so nothing can be switched back on.")).toEqual(['card_status']);
    expect(t("I've had a look at your card ending 4821. It's blocked by a fraud-prevention hold.")).toEqual([]);
  });
});
