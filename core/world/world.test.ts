import { describe, expect, it } from 'vitest';
import type { Scenario } from '../domain/types';
import { Rng } from '../random';
import { formatDaAction } from '../wire';
import { executeTool, generateWorld, datePhrase } from './backend';
import type { WorldState } from './backend';
import { CustomerEnvironment } from './environment';
import type { LookupAccountResult } from './tool-types';

const scenario = (over: Partial<Scenario['account']> = {}, expectedTool: Scenario['expectedTool'] = 'dispute_charge'): Scenario => ({
  id: 'dup',
  title: 'Duplicate',
  set: 'arena',
  fraudReference: false,
  ambiguity: 'ambiguous',
  intents: ['duplicate_charge', 'transaction_charged_twice'],
  expectedTool,
  account: { situation: 'duplicate_charge', merchant: 'Blue Bottle Coffee', amount: 6.5, daysAgo: 2, ...over },
  description: 'charged twice',
});

function verified(world: WorldState, rng = new Rng(9)): LookupAccountResult {
  const r = executeTool(world, 'lookup_account', { phone: world.customer.phone }, rng);
  if (!r.ok) throw new Error('lookup failed');
  return r.data as unknown as LookupAccountResult;
}

describe('generateWorld', () => {
  it('is deterministic for a seed and differs across seeds', () => {
    expect(generateWorld(scenario(), new Rng(3))).toEqual(generateWorld(scenario(), new Rng(3)));
    expect(generateWorld(scenario(), new Rng(3)).customer).not.toEqual(generateWorld(scenario(), new Rng(4)).customer);
  });

  it('puts the scenario facts on the account', () => {
    const w = generateWorld(scenario(), new Rng(1));
    const dups = w.accounts[0]!.transactions.filter((t) => t.merchant === 'Blue Bottle Coffee' && t.amount === 6.5);
    expect(dups).toHaveLength(2);
    expect(w.facts).toMatchObject({ merchant: 'Blue Bottle Coffee', amount: 6.5 });
    const declined = generateWorld(scenario({ situation: 'card_declined', cardStatus: 'blocked' }, 'check_card_status'), new Rng(1));
    expect(declined.cards[0]!.status).toBe('blocked');
    expect(declined.cards[0]!.lastDecline?.merchant).toBe('Blue Bottle Coffee');
  });

  it('speaks dates as a customer would', () => {
    expect(datePhrase(1)).toBe('yesterday');
    expect(datePhrase(3)).toMatch(/^last [A-Z][a-z]+day$/);
    expect(datePhrase(20)).toMatch(/^on [A-Z][a-z]+ \d+$/);
  });
});

describe('tools', () => {
  const rng = () => new Rng(5);

  it('returns typed errors for unknown tools and invalid arguments, naming the field', () => {
    const w = generateWorld(scenario(), new Rng(1));
    expect(executeTool(w, 'refund_money', {}, rng())).toMatchObject({ ok: false, error: { code: 'UNKNOWN_TOOL' } });
    const missing = executeTool(w, 'lookup_account', {}, rng());
    expect(missing).toMatchObject({ ok: false, error: { code: 'INVALID_ARGUMENTS' } });
    if (!missing.ok) expect(missing.error.message).toMatch(/^phone:/);
    const extra = executeTool(w, 'get_transactions', { account_id: 'a', limit: 5, sort: 'desc' }, rng());
    expect(extra).toMatchObject({ ok: false, error: { code: 'INVALID_ARGUMENTS' } });
    const badLimit = executeTool(w, 'get_transactions', { account_id: 'a', limit: 50 }, rng());
    if (!badLimit.ok) expect(badLimit.error.message).toMatch(/^limit:/);
    const badAmount = executeTool(w, 'transfer_funds', { from_account_id: 'a', to_account_id: 'b', amount: -5 }, rng());
    if (!badAmount.ok) expect(badAmount.error.message).toMatch(/^amount:/);
    const badReason = executeTool(w, 'dispute_charge', { account_id: 'a', amount: 5, reason: 'because' }, rng());
    if (!badReason.ok) expect(badReason.error.message).toMatch(/^reason:/);
  });

  it('refuses account tools before verification, but always lets the customer reach a person', () => {
    const w = generateWorld(scenario(), new Rng(1));
    const acc = w.accounts[0]!.account_id;
    expect(executeTool(w, 'get_transactions', { account_id: acc }, rng())).toMatchObject({ ok: false, error: { code: 'NOT_VERIFIED' } });
    expect(executeTool(w, 'transfer_to_human', { reason: 'help' }, rng())).toMatchObject({ ok: true });
    expect(executeTool(w, 'lookup_account', { phone: '+1 555 000 0000' }, rng())).toMatchObject({ ok: false, error: { code: 'NOT_FOUND' } });
  });

  it('disputes the later of two duplicate charges, once', () => {
    const w = generateWorld(scenario(), new Rng(1));
    const acc = verified(w).accounts[0]!.account_id;
    const ambiguous = executeTool(w, 'dispute_charge', { account_id: acc, amount: 6.5, reason: 'unrecognized' }, rng());
    expect(ambiguous).toMatchObject({ ok: false, error: { code: 'AMBIGUOUS' } });
    const r = executeTool(w, 'dispute_charge', { account_id: acc, merchant: 'blue bottle', amount: 6.5, reason: 'duplicate' }, rng());
    expect(r).toMatchObject({ ok: true, data: { merchant: 'Blue Bottle Coffee', amount: 6.5, status: 'filed' } });
    const again = executeTool(w, 'dispute_charge', { account_id: acc, merchant: 'Blue Bottle Coffee', amount: 6.5, reason: 'duplicate' }, rng());
    expect(again).toMatchObject({ ok: false, error: { code: 'NOT_ALLOWED' } });
  });

  it('moves money between own accounts and refuses overdrafts', () => {
    const w = generateWorld(scenario({ situation: 'internal_transfer', amount: 100 }, 'transfer_funds'), new Rng(1));
    const [checking, savings] = verified(w).accounts;
    const before = checking!.balance;
    const r = executeTool(w, 'transfer_funds', { from_account_id: checking!.account_id, to_account_id: savings!.account_id, amount: 100 }, rng());
    expect(r.ok).toBe(true);
    expect(w.accounts[0]!.balance).toBeCloseTo(before - 100);
    expect(
      executeTool(w, 'transfer_funds', { from_account_id: checking!.account_id, to_account_id: savings!.account_id, amount: 999_999 }, rng()),
    ).toMatchObject({ ok: false, error: { code: 'INSUFFICIENT_FUNDS' } });
    expect(executeTool(w, 'transfer_funds', { from_account_id: checking!.account_id, to_account_id: checking!.account_id, amount: 1 }, rng())).toMatchObject({
      ok: false,
      error: { code: 'NOT_ALLOWED' },
    });
  });

  it('lifts a fraud hold on request but not an expiry', () => {
    const w = generateWorld(scenario({ situation: 'card_declined', cardStatus: 'blocked' }, 'check_card_status'), new Rng(1));
    const card = verified(w).cards[0]!.card_id;
    expect(executeTool(w, 'check_card_status', { card_id: card, unblock: true }, rng())).toMatchObject({
      ok: true,
      data: { status: 'active', unblocked: true },
    });
    const x = generateWorld(scenario({ situation: 'card_declined', cardStatus: 'expired' }, 'check_card_status'), new Rng(1));
    const c2 = verified(x).cards[0]!.card_id;
    expect(executeTool(x, 'check_card_status', { card_id: c2, unblock: true }, rng())).toMatchObject({
      ok: true,
      data: { status: 'expired', unblocked: false },
    });
  });
});

describe('CustomerEnvironment', () => {
  const say = (env: CustomerEnvironment, text: string) => env.step({ role: 'customer', text });
  const act = (env: CustomerEnvironment, action_type: 'speak' | 'tool_call' | 'end_call', content: string, tool_args = {}) =>
    env.step({ role: 'agent', raw: formatDaAction({ thinking: 't', action_type, content, tool_args }) });
  /** An episode of seed `seed` after the customer's greeting and the account lookup. */
  const lookedUp = (seed: number) => {
    const env = new CustomerEnvironment(12);
    env.reset(scenario(), seed);
    say(env, 'hi');
    act(env, 'tool_call', 'lookup_account', { phone: env.observeAgent().caller.phone });
    return env;
  };
  /** dispute_charge on the caller's first account. */
  const dispute = (env: CustomerEnvironment, reason: string) =>
    act(env, 'tool_call', 'dispute_charge', { account_id: env.state().world.accounts[0]!.account_id, merchant: 'Blue Bottle Coffee', reason });

  it('keeps the intent from the DA and tool results from the CA', () => {
    const env = new CustomerEnvironment(12);
    env.reset(scenario(), 7);
    say(env, 'My coffee looks odd.');
    const obs = env.observeAgent();
    expect(JSON.stringify(obs)).not.toMatch(/duplicate_charge|charged_twice/);
    act(env, 'tool_call', 'lookup_account', { phone: obs.caller.phone });
    act(env, 'speak', 'Thanks, I found your account.');
    const ca = env.observeCustomer();
    expect(['duplicate_charge', 'transaction_charged_twice']).toContain(ca.intent);
    expect(ca.dialogue).toEqual([
      { role: 'customer', text: 'My coffee looks odd.' },
      { role: 'agent', text: 'Thanks, I found your account.' },
    ]);
    expect(JSON.stringify(ca)).not.toContain('acc_');
  });

  it('enforces turn order, the turn limit and end_call', () => {
    const env = new CustomerEnvironment(3);
    env.reset(scenario(), 1);
    expect(() => act(env, 'speak', 'hi')).toThrow(/customer's turn/);
    say(env, 'hello');
    expect(act(env, 'tool_call', 'lookup_account', { phone: 'x' }).next).toBe('agent'); // a tool call keeps the move
    expect(env.step({ role: 'agent', raw: 'not json' }).next).toBe('agent'); // so does garbage
    const last = act(env, 'speak', 'hmm?');
    expect(last.done).toBe(true);
    expect(env.transcript().endReason).toBe('turn_limit');
    expect(() => say(env, 'hello?')).toThrow(/over/);

    const env2 = new CustomerEnvironment(12);
    env2.reset(scenario(), 1);
    say(env2, 'hi');
    expect(act(env2, 'end_call', 'bye').done).toBe(true);
    expect(env2.transcript().endReason).toBe('end_call');
    expect(env2.transcript().turns[1]).toMatchObject({ role: 'agent', action: { action_type: 'end_call' } });
  });

  it('is deterministic: the same seed and actions give the same transcript and world', () => {
    const play = (seed: number) => {
      const env = lookedUp(seed);
      dispute(env, 'duplicate');
      act(env, 'end_call', 'bye');
      return { t: env.transcript(), w: env.state().world };
    };
    expect(play(11)).toEqual(play(11));
    expect(play(11).t.turns[2]).toMatchObject({ toolResult: { ok: true } });
    expect(JSON.stringify(play(12).w)).not.toEqual(JSON.stringify(play(11).w));
  });

  it("resets to the seed's own world after an episode changed it (worlds are cached, each reset gets a copy)", () => {
    const fresh = generateWorld(scenario(), new Rng(11).fork('world'));
    const env = new CustomerEnvironment(12);
    env.reset(scenario(), 11);
    expect(env.state().world).toEqual(fresh);
    say(env, 'hi');
    act(env, 'tool_call', 'lookup_account', { phone: env.observeAgent().caller.phone });
    dispute(env, 'duplicate');
    expect(env.state().world).not.toEqual(fresh);
    const again = new CustomerEnvironment(12);
    again.reset(scenario(), 11);
    expect(again.state().world).toEqual(fresh);
    expect(again.state().world).not.toBe(env.state().world);
  });

  it('clones an episode mid-way: the copy plays on as the original would, and the original stays put', () => {
    const finish = (env: CustomerEnvironment) => {
      dispute(env, 'duplicate');
      dispute(env, 'again');
      act(env, 'end_call', 'bye');
      return { t: env.transcript(), w: env.state().world };
    };
    const original = lookedUp(11);
    const before = JSON.stringify(original.state());
    const copy = original.clone();
    expect(finish(copy)).toEqual(finish(lookedUp(11))); // the tool stream continues where it was
    expect(JSON.stringify(original.state())).toBe(before);
    expect(finish(original)).toEqual(finish(lookedUp(11)));
    expect(copy.state().scenario).toBe(original.state().scenario);
  });
});
