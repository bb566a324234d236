/**
 * Claims with provenance (issue 55 item 1): each fact traced to a tool result, the customer or
 * nowhere. One describe per check; each pair shows the true claim passing and the false one caught.
 */
import { describe, expect, it } from 'vitest';
import { findHallucinations } from '.';
import { DISPUTE_OK, LOOKUP, TRANSACTIONS, customer, end, ok, say, transcript } from '../../../test/support/judge-fixtures';
import type { Turn } from '../../world/transcript';

const claims = (turns: Turn[], tool: Parameters<typeof transcript>[0] = 'get_transactions') =>
  findHallucinations(transcript(tool, turns)).map((f) => `${f.kind}: ${f.claim}`);
const readout = (text: string, ask = 'What went out recently?') => claims([customer(ask), LOOKUP, TRANSACTIONS, say(text), end()]);
const TRANSFER = ok(
  'transfer_funds',
  { transfer_id: 'trf_1', from_account_id: 'acc_chk1', to_account_id: 'acc_sav1', amount: 600, balances: { acc_chk1: 920.4, acc_sav1: 8600 } },
  { from_account_id: 'acc_chk1', to_account_id: 'acc_sav1', amount: 600 },
);
const moved = (text: string, ask = 'Move $600 from checking to savings.') => claims([customer(ask), LOOKUP, TRANSFER, say(text), end()], 'transfer_funds');

describe('amounts: approximations, arithmetic and bounds', () => {
  it('accepts an approximation marked as one within 5%, on the stated side, and flags one too far off', () => {
    expect(readout('The biggest was AMZN MKTP, roughly $90.')).toEqual([]);
    expect(readout('The biggest was AMZN MKTP, a little over $85.')).toEqual([]);
    expect(readout('The biggest was AMZN MKTP, a little over $95.')).toEqual(['amount: a little over $95']);
    expect(readout('The biggest was AMZN MKTP, roughly $110.')).toEqual(['amount: roughly $110']);
  });

  it('accepts a sum, difference or count of known values when the sentence says it worked one out', () => {
    expect(readout("AMZN MKTP $89.00, Trader Joe's $42.10: $131.10 in total.")).toEqual([]);
    expect(readout('Checking has $1,520.40, so you are $479.60 short of the $2,000 you need.', 'I need $2,000 in checking.')).toEqual([]);
    expect(readout('Checking has $1,520.40, so you are $469.60 short of the $2,000 you need.', 'I need $2,000 in checking.')).toEqual(['amount: $469.60']);
    // No cue that it was worked out: a figure that happens to be a difference is still unbacked.
    expect(readout('There is a $47.00 fee on the account.')).toEqual(['amount: $47.00']);
  });

  it('accepts a bound a known value lies under, and an offer of an amount', () => {
    expect(readout('The biggest was AMZN MKTP at $89.00; everything else is under $50.')).toEqual([]);
    expect(readout('Everything this week is under $10.')).toEqual(['amount: $10']);
    expect(claims([customer('I need rent covered.'), LOOKUP, say('Shall I move $400 from savings?'), end()], 'transfer_funds')).toEqual([]);
  });
});

describe('currency', () => {
  it('flags a real amount in another currency, not dollars', () => {
    expect(readout('The AMZN MKTP charge was $89.00.')).toEqual([]);
    expect(readout('The AMZN MKTP charge was €89.00.')).toContain('currency: €89.00');
    expect(readout('The AMZN MKTP charge was 89 euros.')).toContain('currency: 89 euros');
  });
});

describe('weekdays and times of day', () => {
  it("checks a weekday against its date in the world's calendar", () => {
    expect(readout('AMZN MKTP charged $89.00 on Saturday, March 14th.')).toEqual([]);
    expect(readout('AMZN MKTP charged $89.00 on Friday, March 14th.')).toEqual(['weekday: Friday, March 14th']);
    expect(readout("Trader Joe's was $42.10 on Tuesday the 10th.")).toEqual([]);
    expect(readout("Trader Joe's was $42.10 on Wednesday the 10th.")).toEqual(['weekday: Wednesday the 10th']);
  });

  it("flags a weekday alone that no date backs, and a customer's day read back changed", () => {
    expect(readout('The AMZN MKTP charge from Saturday was $89.00.')).toEqual([]);
    expect(readout('The AMZN MKTP charge from Sunday was $89.00.')).toEqual(['weekday: Sunday']);
    const readBack = claims(
      [customer('Trader Joe’s charged me twice on Wednesday.'), LOOKUP, DISPUTE_OK, say("I've disputed the charge from Thursday, as you said."), end()],
      'dispute_charge',
    );
    expect(readBack).toEqual(['customer_fact: Thursday']);
  });

  it("reads a customer's relative day as a date", () => {
    const f = claims(
      [
        customer('There is an $89 AMZN MKTP charge from last Saturday.'),
        LOOKUP,
        DISPUTE_OK,
        say("I've filed dispute dsp_9x2k for the $89.00 charge on March 14th."),
        end(),
      ],
      'dispute_charge',
    );
    expect(f).toEqual([]);
    const ago = (when: string) =>
      claims(
        [customer(`AMZN MKTP charged me $89 ${when}.`), LOOKUP, DISPUTE_OK, say("I've filed dispute dsp_9x2k for the $89.00 charge on March 2nd."), end()],
        'dispute_charge',
      );
    expect(ago('two weeks ago')).toEqual([]);
    expect(ago('three days ago')).toEqual(['date: March 2nd']);
  });

  it('flags a time of day no tool gave, and accepts the customer’s own', () => {
    expect(moved('Done: $600 moved, transfer trf_1. It will show in savings after midnight.')).toEqual(['time_of_day: after midnight']);
    expect(moved('Done: $600 moved, transfer trf_1. It will show in savings by 9 pm.', 'Move $600 to savings, I need it by 9 tonight.')).toEqual([]);
  });
});

describe('stale figures and facts that travel together', () => {
  it('flags a balance a later result superseded, stated as current, but not one marked as past', () => {
    expect(moved('Done. Your checking balance is $920.40.')).toEqual([]);
    expect(moved('Done. Your checking balance is $1,520.40.')).toEqual(['balance: $1,520.40']);
    expect(moved('Done. Checking was $1,520.40 before the transfer and is $920.40 now.')).toEqual([]);
  });

  it('flags an amount or merchant paired with the wrong transaction', () => {
    expect(readout("AMZN MKTP $89.00 on March 14th, and Trader Joe's $42.10 on March 10th.")).toEqual([]);
    expect(readout("AMZN MKTP $42.10 on March 14th, and Trader Joe's $89.00 on March 10th.")).toEqual(['amount: $42.10', 'amount: $89.00']);
    expect(readout("The $89.00 was at Trader Joe's.")).toEqual(["name: Trader Joe's"]);
    expect(readout("Trader Joe's was on March 14th.")).toEqual(['date: March 14th']);
  });

  it("flags two accounts' balances swapped", () => {
    expect(claims([customer('My balances?'), LOOKUP, say('Checking has $1,520.40 and savings $8,000.00.'), end()], 'transfer_funds')).toEqual([]);
    expect(claims([customer('My balances?'), LOOKUP, say('Checking has $8,000.00 and savings $1,520.40.'), end()], 'transfer_funds')).toEqual([
      'balance: $8,000.00',
      'balance: $1,520.40',
    ]);
  });
});

describe('descriptors, announced actions, status paraphrases', () => {
  it("reads a merchant's plain name from its card descriptor", () => {
    expect(readout("That's Amazon Marketplace: $89.00 on March 14th.")).toEqual([]);
    expect(readout("That's Walmart: $89.00 on March 14th.")).toEqual(['name: Walmart']);
  });

  it('accepts an action announced one turn before the tool call, not one never performed', () => {
    const HUMAN = ok('transfer_to_human', { ticket_id: 'tkt_1', department: 'fraud', wait_minutes: 2 }, { reason: 'fraud', department: 'fraud' });
    expect(claims([customer('My card was stolen.'), LOOKUP, say("I'm connecting you to our fraud team now."), HUMAN, end()], 'transfer_to_human')).toEqual([]);
    expect(claims([customer('My card was stolen.'), LOOKUP, say("I'm connecting you to our fraud team now."), end()], 'transfer_to_human')).toEqual([
      "action: I'm connecting you",
    ]);
  });

  it('flags money said to be on its way after the transfer failed', () => {
    expect(claims([customer('Move $9,000 to checking.'), LOOKUP, say('The $9,000 is on its way to your checking account.'), end()], 'transfer_funds')).toEqual([
      'action: $9,000 is on its way',
    ]);
  });

  it('reads a status in everyday words through the paraphrase table', () => {
    const ACTIVE = ok('check_card_status', { card_id: 'card_c1', status: 'active', unblocked: true }, { card_id: 'card_c1' });
    expect(claims([customer('Is my card ok?'), LOOKUP, ACTIVE, say('Your card is good to go.'), end()], 'check_card_status')).toEqual([]);
    expect(claims([customer('Is my card ok?'), LOOKUP, say('Your card is good to go.'), end()], 'check_card_status')).toEqual(['card_status: is good to go']);
  });
});
