import { describe, expect, it } from 'vitest';
import { findHallucinations } from '.';
import { DISPUTE_OK, LOOKUP, customer, end, ok, say, transcript } from '../../../test/support/judge-fixtures';

const FRAUD = ok('transfer_to_human', { ticket_id: 'tkt_a2', department: 'fraud', wait_minutes: 2 }, { reason: 'stolen card', department: 'fraud' });
const claims = (text: string, ...before: Parameters<typeof transcript>[1]) =>
  findHallucinations(transcript('transfer_to_human', [customer('Someone is using my card.'), LOOKUP, ...before, say(text), end()])).map((f) => f.claim);

describe('action claims: every action the agent says it took needs a tool call', () => {
  it('flags an invented action beside a real, correctly reported hand-off', () => {
    expect(claims("I've locked your online banking as a precaution, and I've passed you to our fraud team, ticket tkt_a2.", FRAUD)).toEqual([
      "I've locked your",
    ]);
    expect(claims("I've passed you to our fraud team, ticket tkt_a2.", FRAUD)).toEqual([]);
  });

  it('flags actions no tool can do, whatever the verb', () => {
    expect(claims("I've also sent a new PIN to your address on file.", FRAUD)).toHaveLength(1);
    expect(claims("I've flagged it for our investigations team anyway.", FRAUD)).toHaveLength(1);
    expect(claims("I've scheduled it to go through on Friday.", FRAUD).length).toBeGreaterThan(0);
  });

  it('does not flag reading, finding or saying, negated actions, or promises kept by a later call', () => {
    expect(claims("I've checked your account and I've found the charge.", FRAUD)).toEqual([]);
    expect(claims("I haven't cancelled anything; I can't cancel the card myself.", FRAUD)).toEqual([]);
    expect(claims("I've sent you to our fraud team, ticket tkt_a2.", FRAUD)).toEqual([]);
  });

  it('flags a replacement card said to be on its way and a lock said to be done, in the passive', () => {
    expect(claims('A replacement card is already on its way.', FRAUD)).toHaveLength(1);
    expect(claims('Your online banking has been locked.', FRAUD)).toHaveLength(1);
  });

  it('reads "cleared it up" as a phrase, not a lifted hold', () => {
    expect(claims('Glad we cleared it up. Have a good one!')).toEqual([]);
    expect(claims('I cleared it, so the card works.')).toEqual(['I cleared it']);
  });

  it('accepts "I\'ve applied a provisional credit" when dispute_charge granted one', () => {
    const f = findHallucinations(
      transcript('dispute_charge', [
        customer('Unknown $89 from AMZN MKTP.'),
        LOOKUP,
        DISPUTE_OK,
        say("I've filed dispute dsp_9x2k and I've applied a provisional credit while it's reviewed."),
        end(),
      ]),
    );
    expect(f).toEqual([]);
  });
});
