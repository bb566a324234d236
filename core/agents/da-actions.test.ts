/** Tool arguments read from the customer's words: the disputed charge's merchant when no amount is given. */
import { describe, expect, it } from 'vitest';
import { extractMerchant, needsDetail, toolArgsFor } from './da-actions';
import type { DialogueState } from './da-actions';
import type { DaObservation } from '../world/environment';

const obsOf = (text: string): DaObservation => ({ caller: { phone: '555-0100' }, turns: [{ role: 'customer', text }], daSteps: 0, maxDaTurns: 12 });

describe('extractMerchant', () => {
  it('reads the name after at / to / from, up to a lower-case word or punctuation', () => {
    expect(extractMerchant("I'm talking about the payment at UBER *TRIP. I also want to move money")).toBe('UBER *TRIP');
    expect(extractMerchant('It was the card payment at Delta Air Lines on February 26.')).toBe('Delta Air Lines');
    expect(extractMerchant('the $42 payment to NTFLX EU 4471 today')).toBe('NTFLX EU 4471');
    expect(extractMerchant("The terminal at Trader Joe's took ages")).toBe("Trader Joe's");
    expect(extractMerchant('I want to talk to my mum about the charge from Shell')).toBe('Shell');
  });
  it('finds nothing where no name follows', () => {
    expect(extractMerchant('I was at work all day and want to know what happened')).toBeUndefined();
    expect(extractMerchant('what I paid AMZN MKTP last month')).toBeUndefined();
    expect(extractMerchant('from I do not know where')).toBeUndefined();
  });
});

describe('dispute arguments', () => {
  it('identify the charge by amount, else by the merchant named', () => {
    expect(toolArgsFor('dispute_charge', obsOf('There is a $12.50 charge at Shell I never made.'))).toMatchObject({ amount: 12.5 });
    expect(toolArgsFor('dispute_charge', obsOf('There is a $12.50 charge at Shell I never made.'))).not.toHaveProperty('merchant');
    expect(toolArgsFor('dispute_charge', obsOf('I never made the payment at Best Buy.'))).toMatchObject({ merchant: 'Best Buy', reason: 'unrecognized' });
    expect(toolArgsFor('dispute_charge', obsOf('Something on my card is wrong.'))).not.toHaveProperty('merchant');
  });
  it('read a duplicate however the customer words it, and only then', () => {
    const reason = (text: string) => toolArgsFor('dispute_charge', obsOf(text)).reason;
    for (const dup of [
      'The terminal glitched, I paid again, and now both went through.',
      'I see two identical $12.00 payments to Shell.',
      'Please remove the second $9.99 payment to Netflix; I only bought it once.',
      'My statement has Shell listed back to back.',
      'I was charged twice at Shell.',
    ]) expect(reason(dup), dup).toBe('duplicate');
    expect(reason('There is a $12.50 charge at Shell I never made.')).toBe('unrecognized');
    expect(reason('My refund from Shell never came back to my card.')).toBe('refund_missing');
  });
  it('need a detail only when neither is given', () => {
    const s = (text: string) => ({ customerText: text }) as DialogueState;
    expect(needsDetail('dispute_charge', s('I never made the payment at Best Buy.'))).toBe(false);
    expect(needsDetail('dispute_charge', s('Something on my card is wrong.'))).toBe(true);
    expect(needsDetail('transfer_funds', s('Move money at Best Buy.'))).toBe(true);
    expect(needsDetail('transfer_funds', s('Move $50 to savings.'))).toBe(false);
  });
});
