import { describe, expect, it } from 'vitest';
import { findHallucinations } from '.';
import { wordNumbers } from './evidence';
import { LOOKUP, TRANSACTIONS, customer, end, fail, say, transcript } from '../../../test/support/judge-fixtures';

describe('amount claims', () => {
  it('accepts a total of the amounts stated before it in the message, not any other sum', () => {
    const t = (text: string) =>
      findHallucinations(transcript('get_transactions', [customer('My last two payments and the total?'), LOOKUP, TRANSACTIONS, say(text), end()])).map(
        (f) => f.claim,
      );
    expect(t("$89.00 at AMZN MKTP and $42.10 at Trader Joe's. Altogether that's $131.10.")).toEqual([]);
    expect(t("$89.00 at AMZN MKTP and $42.10 at Trader Joe's. Altogether that's $141.10.")).toEqual(['$141.10']);
  });

  it('accepts an amount the customer said in words', () => {
    expect(wordNumbers('move three thousand, or 2.5k, or a grand')).toEqual([3000, 1000, 2500]);
    const f = findHallucinations(
      transcript('transfer_funds', [
        customer('Move three thousand from checking to savings.'),
        LOOKUP,
        fail('transfer_funds', 'INSUFFICIENT_FUNDS', 'balance 1520.40 is below 3000.00'),
        say('Your checking balance is $1,520.40, less than the $3,000 you asked to move, so nothing was transferred.'),
        end(),
      ]),
    );
    expect(f).toEqual([]);
  });
});
