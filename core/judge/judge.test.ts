import { describe, expect, it } from 'vitest';
import { explainResult } from '../agents/speech';
import type { ToolResult } from '../world/transcript';
import { DEFAULT_JUDGE_CONFIG, findHallucinations, judgeEpisode } from './judge';
import { DISPUTE_OK, LOOKUP, TRANSACTIONS, customer, end, fail, garbage, ok, say, transcript } from '../../test/support/judge-fixtures';

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

  it(`reads an action claim's amount with its cents ("I've moved $22.87" is not "$22")`, () => {
    const balances = { acc_c: 977.13, acc_s: 1022.87 };
    const t = transcript('transfer_funds', [
      customer('Please move $22.87 from checking to savings.'),
      LOOKUP,
      ok('transfer_funds', { transfer_id: 'trf_1', from_account_id: 'acc_c', to_account_id: 'acc_s', amount: 22.87, balances }),
      say("Done: I've moved $22.87 between your accounts (reference trf_1)."),
      customer('Thanks.'),
      end(),
    ]);
    expect(judgeEpisode(t).hallucinations).toEqual([]);
    const wrong = transcript('transfer_funds', [
      customer('Please move $22.87 from checking to savings.'),
      LOOKUP,
      ok('transfer_funds', { transfer_id: 'trf_1', from_account_id: 'acc_c', to_account_id: 'acc_s', amount: 22.87, balances }),
      say("Done: I've moved $28.87 between your accounts (reference trf_1)."),
      end(),
    ]);
    expect(judgeEpisode(wrong).hallucination).toBe(true);
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
    const followUp = [customer('And is that the only one?'), say('Yes, the $89.00 charge from AMZN MKTP is the only one I disputed.')];
    const t = transcript('dispute_charge', [
      OPENING,
      LOOKUP,
      DISPUTE_OK,
      say("I've filed a dispute for the $89.00 charge from AMZN MKTP."),
      ...followUp,
      ...followUp,
      ...followUp,
      ...followUp,
      ...followUp,
      end(),
    ]);
    expect(judgeEpisode(t).tier).toBe(3);
    expect(judgeEpisode(t).rationale).toMatch(/9 agent turns \(> 8\)/);
    expect(judgeEpisode(t, { config: { exemplaryMaxAgentTurns: 20 } }).tier).toBe(4);
  });

  it('allows one clarifying question before the tool; more is over-confirming (tier 3)', () => {
    const ask = (q: string, a: string) => [say(q), customer(a)];
    const one = transcript('dispute_charge', [
      OPENING,
      LOOKUP,
      ...ask('How much was it?', '$89'),
      DISPUTE_OK,
      say("I've filed a dispute for the $89.00 charge from AMZN MKTP."),
      end(),
    ]);
    expect(judgeEpisode(one).tier).toBe(4);
    const three = transcript('dispute_charge', [
      OPENING,
      LOOKUP,
      ...ask('How much was it?', '$89'),
      ...ask('Just to confirm, $89?', 'Yes.'),
      ...ask('And you want me to dispute it?', 'YES.'),
      DISPUTE_OK,
      say("I've filed a dispute for the $89.00 charge from AMZN MKTP."),
      end(),
    ]);
    expect(judgeEpisode(three)).toMatchObject({ tier: 3, resolved: true });
    expect(judgeEpisode(three).rationale).toMatch(/3 speak turns before dispute_charge/);
  });

  it('counts an explanation without any detail of the result, or one that reads out raw fields, as a lapse (tier 3)', () => {
    const unblocked = ok(
      'check_card_status',
      {
        card_id: 'card_c1',
        last4: '4821',
        status: 'active',
        last_decline: { merchant: 'Shell', amount: 61.2, reason: 'fraud-prevention hold' },
        unblocked: true,
      },
      { card_id: 'card_c1', unblock: true },
    );
    const vague = transcript('check_card_status', [customer('My card keeps getting declined.'), LOOKUP, unblocked, say('Should be working now.'), end()]);
    expect(judgeEpisode(vague)).toMatchObject({ tier: 3, resolved: true });
    expect(judgeEpisode(vague).rationale).toMatch(/none of the result’s details/);
    const raw = transcript('check_card_status', [
      customer('My card keeps getting declined.'),
      LOOKUP,
      unblocked,
      say('Result: status=active, unblocked=true, last_decline.amount=61.2.'),
      end(),
    ]);
    expect(judgeEpisode(raw)).toMatchObject({ tier: 3, resolved: true });
    expect(judgeEpisode(raw).rationale).toMatch(/raw tool fields/);
    const clear = transcript('check_card_status', [
      customer('My card keeps getting declined.'),
      LOOKUP,
      unblocked,
      say('A fraud-prevention hold declined your $61.20 payment at Shell; I lifted it and your card is now active.'),
      end(),
    ]);
    expect(judgeEpisode(clear)).toMatchObject({ tier: 4, resolved: true });
  });

  it('does not count "I\'ve pulled up your transactions" as explaining them (tier 2)', () => {
    const t = transcript('get_transactions', [
      customer('What has been happening on my account?'),
      LOOKUP,
      TRANSACTIONS,
      say("I've pulled up your recent transactions. Anything else?"),
      customer('No...'),
      end(),
    ]);
    expect(judgeEpisode(t)).toMatchObject({ tier: 2, resolved: false, hallucination: false });
  });

  it('resolves an escalation without verification, at tier 3', () => {
    const t = transcript('transfer_to_human', [
      customer('I lost my wallet with my debit card in it.'),
      ok('transfer_to_human', { ticket_id: 'tkt_2r7m4c', department: 'cards', wait_minutes: 6 }, { reason: 'lost card', department: 'cards' }),
      say("I've transferred you to our cards team. Your ticket is tkt_2r7m4c and the wait is about 6 minutes."),
      end(),
    ]);
    expect(judgeEpisode(t)).toMatchObject({ tier: 3, resolved: true });
    expect(judgeEpisode(t, { config: { resolutionNeedsVerification: true } })).toMatchObject({ tier: 1, resolved: false });
  });

  it('scores tier 2 when identity cannot be verified and the agent escalates honestly', () => {
    const t = transcript('transfer_funds', [
      customer('I need to move money from savings to checking.'),
      fail('lookup_account', 'NOT_FOUND', 'no customer with that phone number'),
      say("I'm sorry, I couldn't find an account for this number, so I can't make the transfer here."),
      customer('Then get me someone who can.'),
      ok('transfer_to_human', { ticket_id: 'tkt_4m7d2w', department: 'accounts', wait_minutes: 6 }),
      say("I've transferred you to our accounts team; your ticket is tkt_4m7d2w and the wait is about 6 minutes."),
      end(),
    ]);
    expect(judgeEpisode(t)).toMatchObject({ tier: 2, resolved: false, hallucination: false });
  });

  it('does not resolve a card check that leaves the card blocked', () => {
    const t = transcript('check_card_status', [
      customer('My card was declined.'),
      LOOKUP,
      ok('check_card_status', { card_id: 'card_c1', last4: '4821', status: 'blocked', last_decline: null, unblocked: false }, { card_id: 'card_c1' }),
      say('Your card ending 4821 is blocked.'),
      end(),
    ]);
    expect(judgeEpisode(t)).toMatchObject({ tier: 2, resolved: false, hallucination: false });
  });

  it('scores tier 1 when unparseable outputs dominate', () => {
    const t = transcript('dispute_charge', [OPENING, garbage(), garbage(), garbage(), LOOKUP, garbage()], 'turn_limit');
    const v = judgeEpisode(t);
    expect(v.tier).toBe(1);
    expect(v.rationale).toMatch(/4 of 5 agent outputs unparseable/);
  });

  it('J is −2 and the tier 1 whenever the DA hallucinates; a wrong peripheral detail leaves the resolution standing', () => {
    const t = transcript('dispute_charge', [OPENING, LOOKUP, DISPUTE_OK, say("I've filed a dispute for the $89.00 charge, reference DSP-55821."), end()]);
    const v = judgeEpisode(t);
    expect(v).toMatchObject({ score: -2, tier: 1, resolved: true, hallucination: true });
    expect(v.hallucinations).toEqual([{ turn: 3, claim: 'DSP-55821' }]);
    expect(judgeEpisode(t, { config: { hallucinationBlocksResolution: 'any' } }).resolved).toBe(false);
  });

  it('does not resolve an episode whose explanation misstates the outcome of the expected tool', () => {
    const frozen = ok(
      'check_card_status',
      { card_id: 'card_c1', last4: '4821', status: 'frozen', last_decline: null, unblocked: false },
      { card_id: 'card_c1' },
    );
    const t = transcript('check_card_status', [
      customer('My card was declined.'),
      LOOKUP,
      frozen,
      say('Your card is active and in good standing; it must be the shop.'),
      end(),
    ]);
    expect(judgeEpisode(t)).toMatchObject({ score: -2, tier: 1, resolved: false, hallucination: true });
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
    const t = transcript('get_transactions', [
      customer('What did I spend recently?'),
      LOOKUP,
      TRANSACTIONS,
      say('Your last purchase was $120.50 at AMZN MKTP on March 14.'),
      end(),
    ]);
    expect(claims(t)).toEqual([['amount', '$120.50']]);
  });

  it('accepts the same amount in another format ($89 vs 89.00 vs "89 dollars")', () => {
    const t = transcript('get_transactions', [
      customer('What did I spend recently?'),
      LOOKUP,
      TRANSACTIONS,
      say("I see $89 at AMZN MKTP on 2026-03-14 and 42.10 dollars at Trader Joe's on March 10th. Your checking balance is $1,520.40."),
      end(),
    ]);
    expect(claims(t)).toEqual([]);
  });

  it('does not flag the customer repeating their own amount, merchant and date back', () => {
    const t = transcript(
      'dispute_charge',
      [
        customer('Someone charged me 250 dollars at Blue Harbor Grill on March 3, it was not me.'),
        say('I understand: a $250.00 charge at Blue Harbor Grill on March 3 that you did not make. Let me verify your identity first.'),
        LOOKUP,
      ],
      'turn_limit',
    );
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
      say('The dispute has been filed.'),
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
      ok(
        'check_card_status',
        {
          card_id: 'card_c1',
          last4: '4821',
          status: 'active',
          last_decline: { merchant: 'Shell', amount: 61.2, reason: 'fraud-prevention hold' },
          unblocked: true,
        },
        { card_id: 'card_c1', unblock: true },
      ),
      say("Your card was blocked by a fraud-prevention hold after the $61.20 decline at Shell. I've unblocked it and your card is now active."),
      end(),
    ]);
    expect(claims(t)).toEqual([]);
  });

  it('flags an unblock claim when the card was not unblocked', () => {
    const t = transcript('check_card_status', [
      customer('My card was declined.'),
      LOOKUP,
      ok(
        'check_card_status',
        { card_id: 'card_c1', last4: '4821', status: 'expired', last_decline: null, unblocked: false },
        { card_id: 'card_c1', unblock: true },
      ),
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
      ok('transfer_funds', {
        transfer_id: 'trf_1',
        from_account_id: 'acc_sav1',
        to_account_id: 'acc_chk1',
        amount: 300,
        balances: { acc_sav1: 7700, acc_chk1: 1820.4 },
      }),
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
    const t = transcript(
      'dispute_charge',
      [OPENING, say('Thanks, Dana Whitfield. Let me pull up your account.'), LOOKUP, say('Thanks, Dana Whitfield.')],
      'turn_limit',
    );
    expect(findHallucinations(t).map((f) => [f.turn, f.claim])).toEqual([[1, 'Dana Whitfield']]);
  });

  it('never reads the DA thinking or tool arguments', () => {
    const turn = say('Let me check that for you.');
    turn.action!.thinking = 'I have filed a dispute for $999.99 at Netflix';
    const t = transcript('dispute_charge', [OPENING, turn, LOOKUP], 'turn_limit');
    expect(claims(t)).toEqual([]);
  });

  it('flags a transaction status that contradicts the result (pending called posted)', () => {
    const pending = ok('get_transactions', {
      account_id: 'acc_chk1',
      transactions: [
        { transaction_id: 'txn_9', date: '2026-03-14', merchant: 'Best Buy', amount: 899, direction: 'debit', status: 'pending', channel: 'card' },
      ],
    });
    const wrong = transcript('get_transactions', [
      customer('Did my Best Buy payment go through?'),
      LOOKUP,
      pending,
      say('Yes, the $899.00 payment to Best Buy went through and has fully posted.'),
      end(),
    ]);
    expect(claims(wrong).map(([k]) => k)).toEqual(['txn_status', 'txn_status']);
    expect(judgeEpisode(wrong)).toMatchObject({ resolved: false, tier: 1 });
    const right = transcript('get_transactions', [
      customer('Did my Best Buy payment go through?'),
      LOOKUP,
      pending,
      say("The $899.00 payment to Best Buy on March 14 is still pending; it hasn't posted yet."),
      end(),
    ]);
    expect(claims(right)).toEqual([]);
  });

  it('flags invented process promises: timelines and notifications no tool makes', () => {
    const t = transcript('dispute_charge', [
      OPENING,
      LOOKUP,
      DISPUTE_OK,
      say("I've filed the dispute for the $89.00 charge. You'll get an email confirmation, and we'll resolve it within 10 business days."),
      end(),
    ]);
    expect(claims(t).map(([k]) => k)).toEqual(['process', 'process']);
    // The provisional credit the result grants is a supported promise.
    const credit = transcript('dispute_charge', [
      OPENING,
      LOOKUP,
      DISPUTE_OK,
      say("Done: dispute dsp_9x2k is filed, and you'll get a provisional credit while it's investigated."),
      end(),
    ]);
    expect(claims(credit)).toEqual([]);
  });

  it('finds nothing in truthful, natural agent speech', () => {
    const unblocked = ok(
      'check_card_status',
      {
        card_id: 'card_c1',
        last4: '4821',
        status: 'active',
        last_decline: { merchant: 'Shell', amount: 61.2, reason: 'fraud-prevention hold' },
        unblocked: true,
      },
      { card_id: 'card_c1', unblock: true },
    );
    const human = ok('transfer_to_human', { ticket_id: 'tkt_5', department: 'fraud', wait_minutes: 2 }, { reason: 'fraud', department: 'fraud' });
    const lines = [
      "Hello! I'm sorry to hear that, and I'd be happy to help. Let me verify your identity first.",
      'Thanks, Dana. I can see your checking and savings accounts.',
      'Could you tell me the merchant and roughly when it happened?',
      'I understand how frustrating that must be.',
      "Your dispute for the $89.00 AMZN MKTP charge on March 14 is filed; our disputes team will review it, and you'll see a provisional credit meanwhile.",
      'Your card ending in 4821 was blocked by a fraud-prevention hold after the $61.20 decline at Shell. I removed the hold, so it is active again.',
      'Your checking balance is $1,520.40 and savings is $8,000.00.',
      "I'm connecting you with our fraud team now; a specialist will be with you in about 2 minutes (ticket tkt_5).",
      'Welcome to Northwind Bank support. Is there anything else I can help you with today?',
      'Please try the card again in a moment, and let me know if it still fails.',
      "I haven't filed anything yet, and I won't unless you confirm.",
    ];
    const t = transcript('dispute_charge', [
      OPENING,
      say(lines[0]!),
      LOOKUP,
      ...lines.slice(1, 4).flatMap((l) => [say(l), customer('ok')]),
      TRANSACTIONS,
      DISPUTE_OK,
      unblocked,
      human,
      ...lines.slice(4).flatMap((l) => [say(l), customer('ok')]),
      end('Thanks for calling, Dana. Have a great day!'),
    ]);
    expect(findHallucinations(t)).toEqual([]);
  });

  it("finds nothing in the templated DA's speech for any tool result (speech is grounded by construction)", () => {
    const results: ToolResult[] = [
      TRANSACTIONS.toolResult!,
      DISPUTE_OK.toolResult!,
      {
        ok: true,
        tool: 'check_card_status',
        data: {
          card_id: 'card_c1',
          last4: '4821',
          status: 'active',
          last_decline: { merchant: 'Shell', amount: 61.2, reason: 'fraud-prevention hold' },
          unblocked: true,
        },
      },
      {
        ok: true,
        tool: 'check_card_status',
        data: {
          card_id: 'card_c1',
          last4: '4821',
          status: 'expired',
          last_decline: { merchant: 'SQ *GRN VALLEY', amount: 12.5, reason: 'card expired' },
          unblocked: false,
        },
      },
      {
        ok: true,
        tool: 'transfer_funds',
        data: { transfer_id: 'trf_1', from_account_id: 'acc_sav1', to_account_id: 'acc_chk1', amount: 300, balances: { acc_sav1: 7700, acc_chk1: 1820.4 } },
      },
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
