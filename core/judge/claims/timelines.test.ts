import { describe, expect, it } from 'vitest';
import { findHallucinations } from '.';
import { DISPUTE_OK, LOOKUP, customer, end, ok, say, transcript } from '../../../test/support/judge-fixtures';

const dispute = (text: string, opening = 'There is an $89 charge from AMZN MKTP I never made.') =>
  findHallucinations(transcript('dispute_charge', [customer(opening), LOOKUP, DISPUTE_OK, say(text), end()])).map((f) => f.claim);

describe('timeline claims: a timeline needs a tool result behind it', () => {
  it('flags an invented refund timeline in words, "should" included', () => {
    expect(dispute('Dispute dsp_9x2k is filed. You should see the refund in your account within two to three business days.')).toEqual([
      'within two to three business days',
    ]);
    expect(dispute('Dispute dsp_9x2k is filed. It should arrive within 5 to 7 business days.')).toEqual(['within 5 to 7 business days']);
  });

  it("keeps hedged and conditional timelines, and the customer's own", () => {
    expect(dispute('Dispute dsp_9x2k is filed. Reviews can take up to 10 business days.')).toEqual([]);
    expect(
      dispute(
        'You said the merchant promised it within five business days, so dispute dsp_9x2k is filed.',
        'The merchant said within five business days and the $89 AMZN MKTP refund never came.',
      ),
    ).toEqual([]);
  });

  it('flags future times no tool gives, not past ones', () => {
    expect(dispute('Dispute dsp_9x2k is filed, and the money will be available from tomorrow morning.')).toEqual(['tomorrow morning']);
    expect(dispute("Dispute dsp_9x2k is filed; they'll call you back this afternoon.")).toContain('this afternoon');
    // Past, and the customer's day (a weekday no one gave is a weekday claim: weekdays.ts).
    expect(dispute('Dispute dsp_9x2k is filed for the charge you made on Saturday.', 'There is an $89 AMZN MKTP charge from Saturday I never made.')).toEqual(
      [],
    );
  });

  it('flags a wait time other than the hand-off result', () => {
    const t = (text: string) =>
      findHallucinations(
        transcript('transfer_to_human', [
          customer('Close my account.'),
          LOOKUP,
          ok('transfer_to_human', { ticket_id: 'tkt_1', department: 'accounts', wait_minutes: 6 }),
          say(text),
          end(),
        ]),
      ).map((f) => f.kind);
    expect(t('Ticket tkt_1: the wait is around 15 minutes.')).toEqual(['wait_time']);
    expect(t('Ticket tkt_1: the wait is about 6 minutes.')).toEqual([]);
  });
});
