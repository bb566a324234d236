import { describe, expect, it } from 'vitest';
import { explainResult } from '../agents/speech';
import type { ToolResult } from '../world/transcript';
import { DEFAULT_JUDGE_CONFIG, findHallucinations, judgeEpisode } from './judge';
import { DISPUTE_OK, LOOKUP, TRANSACTIONS, customer, end, fail, garbage, ok, say, transcript } from './test-fixtures';

const OPENING = customer("There's a charge for $89 from AMZN MKTP that I don't recognise.");

describe('judgeEpisode: tiers, resolution and J', () => {
  it('scores an exemplary episode tier 4, J = +2, resolved', () => {
    const t = transcript('dispute_charge', [
      OPENING,
      LOOKUP,
      DISPUTE_OK,
      say("I've filed a dispute (dsp_9x2k) for the $89.00 charge from AMZN MKTP. You'll see a provisional credit while we investigate."),
      customer('Thanks!'),
      end(),
    ]);
    const v = judgeEpisode(t);
    expect(v).toMatchObject({ tier: 4, score: 2, resolved: true, hallucination: false, hallucinations: [] });
    expect(v.rationale).toMatch(/resolved: dispute_charge succeeded at turn 2, explained at turn 3/);
  });

  it('scores a wrong routing tier 1, not resolved', () => {
    const t = transcript('dispute_charge', [
      OPENING,
      LOOKUP,
      ok('transfer_to_human', { ticket_id: 'tkt_77', department: 'general', wait_minutes: 6 }, { reason: 'charge' }),
      say("I'm connecting you with our general team; the wait is about 6 minutes."),
      end(),
    ]);
    const v = judgeEpisode(t);
    expect(v).toMatchObject({ tier: 1, resolved: false, hallucination: false, score: DEFAULT_JUDGE_CONFIG.tierScore[1] });
    expect(v.rationale).toMatch(/routed to transfer_to_human, expected dispute_charge/);
  });

  it('scores tier 1 when no domain tool is called', () => {
    const t = transcript('check_card_status', [customer('My card keeps failing.'), LOOKUP, say('Sorry to hear that. Please try again later.'), end()]);
    expect(judgeEpisode(t)).toMatchObject({ tier: 1, resolved: false });
    expect(judgeEpisode(t).rationale).toMatch(/no domain tool/);
  });

  it('scores an explained error from the correct tool tier 2 (unresolved, honest)', () => {
    const t = transcript('dispute_charge', [
      OPENING,
      LOOKUP,
      fail('dispute_charge', 'NOT_FOUND', 'no matching charge on this account', { account_id: 'acc_chk1', amount: 89, reason: 'unrecognized' }),
      say("I'm sorry, I couldn't find a matching charge on your account, so I wasn't able to file a dispute."),
      end(),
    ]);
    const v = judgeEpisode(t);
    expect(v).toMatchObject({ tier: 2, resolved: false, hallucination: false, score: -0.5 });
    expect(v.rationale).toMatch(/NOT_FOUND; explained/);
  });

  it('scores the correct tool without an explanation tier 2', () => {
    const t = transcript('dispute_charge', [OPENING, LOOKUP, DISPUTE_OK, end('Goodbye.')]);
    expect(judgeEpisode(t)).toMatchObject({ tier: 2, resolved: false });
  });

  it('scores a resolved episode with lapses tier 3 (no lookup first, long, no end_call)', () => {
    const t = transcript(
      'dispute_charge',
      [
        OPENING,
        fail('dispute_charge', 'NOT_VERIFIED', 'verify the customer with lookup_account first'),
        LOOKUP,
        DISPUTE_OK,
        say("I've filed the dispute for the $89 charge."),
        customer('ok'),
      ],
      'turn_limit',
    );
    const v = judgeEpisode(t);
    expect(v).toMatchObject({ tier: 3, score: 1, resolved: true });
    expect(v.rationale).toMatch(/lookup_account was not the first tool call/);
    expect(v.rationale).toMatch(/turn limit/);
  });

  it('caps tier 4 at the configured number of agent turns', () => {
    const chatter = [say('Let me look into that.'), customer('ok'), say('One moment please.'), customer('sure')];
    const t = transcript('dispute_charge', [
      OPENING,
      LOOKUP,
      ...chatter,
      ...chatter,
      ...chatter,
      DISPUTE_OK,
      say("I've filed a dispute for the $89.00 charge from AMZN MKTP."),
      end(),
    ]);
    expect(judgeEpisode(t).tier).toBe(3);
    expect(judgeEpisode(t, { config: { exemplaryMaxAgentTurns: 20 } }).tier).toBe(4);
  });

  it('scores tier 1 when unparseable outputs dominate', () => {
    const t = transcript('dispute_charge', [OPENING, garbage(), garbage(), garbage(), LOOKUP, garbage()], 'turn_limit');
    const v = judgeEpisode(t);
    expect(v.tier).toBe(1);
    expect(v.rationale).toMatch(/4 of 5 agent outputs unparseable/);
  });

  it('J is −2 and the tier 1 whenever the DA hallucinates, even on the right tool', () => {
    const t = transcript('dispute_charge', [OPENING, LOOKUP, DISPUTE_OK, say("I've filed a dispute for the $98.00 charge."), end()]);
    const v = judgeEpisode(t);
    expect(v).toMatchObject({ score: -2, tier: 1, resolved: false, hallucination: true });
    expect(v.hallucinations).toEqual([{ turn: 3, claim: '$98.00' }]);
  });

  it('maps tiers to J monotonically inside [−2, +2]', () => {
    const s = DEFAULT_JUDGE_CONFIG.tierScore;
    expect(s[4] > s[3] && s[3] > s[2] && s[2] > s[1] && s[1] > DEFAULT_JUDGE_CONFIG.hallucinationScore).toBe(true);
    for (const v of [...Object.values(s), DEFAULT_JUDGE_CONFIG.hallucinationScore]) expect(Math.abs(v)).toBeLessThanOrEqual(2);
  });
});

describe('hallucination detection', () => {
  const claims = (t: Parameters<typeof findHallucinations>[0]) => findHallucinations(t).map((f) => [f.kind, f.claim]);

  it('flags an invented amount', () => {
    const t = transcript('get_transactions', [customer('What did I spend recently?'), LOOKUP, TRANSACTIONS, say('Your last purchase was $120.50 at AMZN MKTP on March 14.'), end()]);
    expect(claims(t)).toEqual([['amount', '$120.50']]);
  });

  it('accepts the same amount in another format ($89 vs 89.00 vs "89 dollars")', () => {
    const t = transcript('get_transactions', [
      customer('What did I spend recently?'),
      LOOKUP,
      TRANSACTIONS,
      say('I see $89 at AMZN MKTP on 2026-03-14 and 42.10 dollars at Trader Joe\'s on March 10th. Your checking balance is $1,520.40.'),
      end(),
    ]);
    expect(claims(t)).toEqual([]);
  });

  it('does not flag the customer repeating their own amount, merchant and date back', () => {
    const t = transcript('dispute_charge', [
      customer('Someone charged me 250 dollars at Blue Harbor Grill on March 3, it was not me.'),
      say('I understand: a $250.00 charge at Blue Harbor Grill on March 3 that you did not make. Let me verify your identity first.'),
      LOOKUP,
    ], 'turn_limit');
    expect(claims(t)).toEqual([]);
  });

  it('flags a claimed dispute without a dispute_charge call', () => {
    const t = transcript('dispute_charge', [OPENING, LOOKUP, say("Good news: I've filed a dispute for that charge."), end()]);
    expect(claims(t)).toEqual([['action', "I've filed a dispute"]]);
  });

  it('flags a claimed dispute after the dispute_charge call failed', () => {
    const t = transcript('dispute_charge', [
      OPENING,
      LOOKUP,
      fail('dispute_charge', 'AMBIGUOUS', '2 charges match; give the transaction_id'),
      say('The dispute has been filed and you will hear from us soon.'),
      end(),
    ]);
    const f = findHallucinations(t);
    expect(f.map((x) => x.kind)).toEqual(['action']);
    expect(f[0]!.turn).toBe(3);
    expect(judgeEpisode(t)).toMatchObject({ hallucination: true, tier: 1, score: -2, resolved: false });
  });

  it('flags a card status that contradicts the tool result', () => {
    const t = transcript('check_card_status', [
      customer('My card was declined.'),
      LOOKUP,
      ok('check_card_status', { card_id: 'card_c1', last4: '4821', status: 'blocked', last_decline: null, unblocked: false }, { card_id: 'card_c1' }),
      say('Your card ending 4821 is active, so it should work now.'),
      end(),
    ]);
    expect(claims(t)).toEqual([['card_status', 'is active']]);
  });

  it('accepts a status that matches, a past status, and an unblock that happened', () => {
    const t = transcript('check_card_status', [
      customer('My card was declined.'),
      LOOKUP,
      ok('check_card_status', { card_id: 'card_c1', last4: '4821', status: 'active', last_decline: { merchant: 'Shell', amount: 61.2, reason: 'fraud-prevention hold' }, unblocked: true }, { card_id: 'card_c1', unblock: true }),
      say("Your card was blocked by a fraud-prevention hold after the $61.20 decline at Shell. I've unblocked it and your card is now active."),
      end(),
    ]);
    expect(claims(t)).toEqual([]);
  });

  it('flags an unblock claim when the card was not unblocked', () => {
    const t = transcript('check_card_status', [
      customer('My card was declined.'),
      LOOKUP,
      ok('check_card_status', { card_id: 'card_c1', last4: '4821', status: 'expired', last_decline: null, unblocked: false }, { card_id: 'card_c1', unblock: true }),
      say("I've unblocked your card, you're good to go."),
      end(),
    ]);
    expect(claims(t)).toEqual([['action', "I've unblocked"]]);
  });

  it('flags an invented merchant, id, date and card digits', () => {
    const t = transcript('get_transactions', [
      customer('Can you check my recent activity?'),
      LOOKUP,
      TRANSACTIONS,
      say('There is also a charge from Netflix on March 2, reference dsp_777, on the card ending in 9999.'),
      end(),
    ]);
    expect(claims(t)).toEqual([
      ['id', 'dsp_777'],
      ['card_digits', 'ending in 9999'],
      ['date', 'March 2'],
      ['name', 'Netflix'],
    ]);
  });

  it('flags a claimed transfer to a specialist without transfer_to_human, and a wrong moved amount', () => {
    const human = transcript('transfer_to_human', [customer('I think I was hacked.'), LOOKUP, say("I'm transferring you to a specialist now."), end()]);
    expect(claims(human)).toEqual([['action', "I'm transferring you"]]);

    const funds = transcript('transfer_funds', [
      customer('Please move $300 from savings to checking.'),
      LOOKUP,
      ok('transfer_funds', { transfer_id: 'trf_1', from_account_id: 'acc_sav1', to_account_id: 'acc_chk1', amount: 300, balances: { acc_sav1: 7700, acc_chk1: 1820.4 } }),
      say("I've moved $3000 to your checking account."),
      end(),
    ]);
    expect(claims(funds).map(([k]) => k)).toEqual(['amount', 'action']);
  });

  it('does not flag negated claims, questions, offers or kept promises', () => {
    const t = transcript('dispute_charge', [
      OPENING,
      LOOKUP,
      say("Would you like me to file a dispute for it? I haven't filed anything yet."),
      customer('Yes please.'),
      say("I'll file the dispute now."),
      fail('dispute_charge', 'NOT_FOUND', 'no matching charge on this account'),
      say("Unfortunately I wasn't able to file the dispute: no matching charge was found. I can transfer you to a specialist if you like."),
      end(),
    ]);
    expect(claims(t)).toEqual([]);
  });

  it('flags a promise the end_call leaves unkept', () => {
    const t = transcript('transfer_to_human', [customer('I want to talk to a person.'), LOOKUP, end("I'll transfer you to a specialist. Goodbye.")]);
    expect(claims(t)).toEqual([['action', "I'll transfer you"]]);
  });

  it('flags a name used before any tool revealed it', () => {
    const t = transcript('dispute_charge', [OPENING, say('Thanks, Dana Whitfield. Let me pull up your account.'), LOOKUP, say('Thanks, Dana Whitfield.')], 'turn_limit');
    expect(findHallucinations(t).map((f) => [f.turn, f.claim])).toEqual([[1, 'Dana Whitfield']]);
  });

  it('never reads the DA thinking or tool arguments', () => {
    const turn = say('Let me check that for you.');
    turn.action!.thinking = 'I have filed a dispute for $999.99 at Netflix';
    const t = transcript('dispute_charge', [OPENING, turn, LOOKUP], 'turn_limit');
    expect(claims(t)).toEqual([]);
  });

  it("finds nothing in the templated DA's speech for any tool result (speech is grounded by construction)", () => {
    const results: ToolResult[] = [
      TRANSACTIONS.toolResult!,
      DISPUTE_OK.toolResult!,
      { ok: true, tool: 'check_card_status', data: { card_id: 'card_c1', last4: '4821', status: 'active', last_decline: { merchant: 'Shell', amount: 61.2, reason: 'fraud-prevention hold' }, unblocked: true } },
      { ok: true, tool: 'check_card_status', data: { card_id: 'card_c1', last4: '4821', status: 'expired', last_decline: { merchant: 'SQ *GRN VALLEY', amount: 12.5, reason: 'card expired' }, unblocked: false } },
      { ok: true, tool: 'transfer_funds', data: { transfer_id: 'trf_1', from_account_id: 'acc_sav1', to_account_id: 'acc_chk1', amount: 300, balances: { acc_sav1: 7700, acc_chk1: 1820.4 } } },
      { ok: true, tool: 'transfer_to_human', data: { ticket_id: 'tkt_5', department: 'fraud', wait_minutes: 2 } },
      { ok: false, tool: 'dispute_charge', error: { code: 'AMBIGUOUS', message: '2 charges match; give the transaction_id' } },
    ];
    for (const r of results) {
      const call = r.ok ? ok(r.tool, r.data) : fail(r.tool, r.error.code, r.error.message);
      const t = transcript('dispute_charge', [customer('Hi, I need help.'), LOOKUP, call, say(explainResult(r)), end()]);
      expect(findHallucinations(t), explainResult(r)).toEqual([]);
    }
  });
});
