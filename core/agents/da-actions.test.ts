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
    expect(extractMerchant('what I paid AMZN MKTP last month')).toBe('AMZN MKTP');
  });
  it('reads a name between a determiner and a payment noun, and one that starts a sentence before what a merchant did', () => {
    expect(extractMerchant('I need that Whole Foods card payment reversed.')).toBe('Whole Foods');
    expect(extractMerchant("It's the NETFLIX.COM payment, on the card ending 4471.")).toBe('NETFLIX.COM');
    expect(extractMerchant('I need one of the two identical SQ *GRN VALLEY transactions taken off.')).toBe('SQ *GRN VALLEY');
    expect(extractMerchant('Sorry, I am upset. Delta Air Lines refunded me on March 3 and nothing came.')).toBe('Delta Air Lines');
    expect(extractMerchant('Nobody else has my card, but there is a purchase at Shell I definitely did not make.')).toBe('Shell');
  });
  it('takes no pronoun, month, weekday or place for a name', () => {
    expect(extractMerchant('Someone charged my card and They took it.')).toBeUndefined();
    expect(extractMerchant('It was the payment on March 3, not Thursday.')).toBeUndefined();
    expect(extractMerchant('I have never been to Springfield, yet there is a charge from there.')).toBeUndefined();
  });
  it('finds nothing where no name follows', () => {
    expect(extractMerchant('I was at work all day and want to know what happened')).toBeUndefined();
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
    ])
      expect(reason(dup), dup).toBe('duplicate');
    expect(reason('There is a $12.50 charge at Shell I never made.')).toBe('unrecognized');
    expect(reason('My refund from Shell never came back to my card.')).toBe('refund_missing');
  });
  it('prefer the newest answer for the merchant, and read several matching charges as a duplicate', () => {
    const failed = (code: 'AMBIGUOUS' | 'NOT_FOUND'): DaObservation['turns'][number] => ({
      role: 'agent',
      raw: '',
      action: { thinking: '', action_type: 'tool_call', content: 'dispute_charge', tool_args: {} },
      toolResult: { ok: false, tool: 'dispute_charge', error: { code, message: '' } },
    });
    const obs: DaObservation = {
      ...obsOf('I was at Springfield Mall when the payment to Shell went out.'),
      turns: [
        { role: 'customer', text: 'I was at Springfield Mall when the payment to Shell went out.' },
        failed('NOT_FOUND'),
        { role: 'customer', text: 'It was the one from Best Buy.' },
      ],
    };
    expect(toolArgsFor('dispute_charge', obs)).toMatchObject({ merchant: 'Best Buy', reason: 'unrecognized' });
    const twice: DaObservation = {
      ...obs,
      turns: [{ role: 'customer', text: 'Something got processed oddly.' }, failed('AMBIGUOUS'), { role: 'customer', text: 'It was $15.49.' }],
    };
    expect(toolArgsFor('dispute_charge', twice)).toMatchObject({ amount: 15.49, reason: 'duplicate' });
  });
  it('never repeat a dispute call that failed: the amount, then the merchant, then both', () => {
    const call = (args: Record<string, unknown>): DaObservation['turns'][number] => ({
      role: 'agent',
      raw: '',
      action: { thinking: '', action_type: 'tool_call', content: 'dispute_charge', tool_args: { account_id: 'unknown', ...args } },
      toolResult: { ok: false, tool: 'dispute_charge', error: { code: 'NOT_FOUND', message: '' } },
    });
    const said = { role: 'customer', text: 'It was the $300 payment to Spotify.' } as const;
    const after = (...calls: DaObservation['turns']) => toolArgsFor('dispute_charge', { ...obsOf(said.text), turns: [said, ...calls, said] });
    expect(after()).toMatchObject({ amount: 300 });
    expect(after()).not.toHaveProperty('merchant');
    const first = call({ amount: 300, reason: 'unrecognized' });
    expect(after(first)).toMatchObject({ merchant: 'Spotify' });
    expect(after(first)).not.toHaveProperty('amount');
    expect(after(first, call({ merchant: 'Spotify', reason: 'unrecognized' }))).toMatchObject({ amount: 300, merchant: 'Spotify' });
  });
  it('need a detail only when neither is given', () => {
    const s = (text: string) => ({ customerText: text }) as DialogueState;
    expect(needsDetail('dispute_charge', s('I never made the payment at Best Buy.'))).toBe(false);
    expect(needsDetail('dispute_charge', s('Something on my card is wrong.'))).toBe(true);
    expect(needsDetail('transfer_funds', s('Move money at Best Buy.'))).toBe(true);
    expect(needsDetail('transfer_funds', s('Move $50 to savings.'))).toBe(false);
  });
});
