import { describe, expect, it } from 'vitest';
import { bankingDomain } from '../../host/domain-files';
import { ScriptedCa } from '../agents/scripted-ca';
import type { AdversitySpec, Scenario } from '../domain/types';
import { Rng } from '../random';
import { formatDaAction } from '../wire';
import { CustomerEnvironment } from './environment';
import type { AgentTurn, Transcript } from './transcript';

const domain = bankingDomain();
const scenario = (id: string) => domain.scenarios.find((s) => s.id === id)!;
const ca = new ScriptedCa(domain);
const base = scenario('dispute-reference-r');
const withAdv = (s: Scenario, ...adversities: AdversitySpec[]): Scenario => ({ ...s, adversities });

const say = (content: string) => formatDaAction({ thinking: 't', action_type: 'speak', content, tool_args: {} });
const call = (tool: string, args: Record<string, unknown>) => formatDaAction({ thinking: 't', action_type: 'tool_call', content: tool, tool_args: args });
const bye = formatDaAction({ thinking: 't', action_type: 'end_call', content: 'Goodbye.', tool_args: {} });

/** A fixed agent script: verify, call `tool` `calls` times, ask about the merchant, end. The customer answers with the scripted CA. */
function play(s: Scenario, seed: number, tool: string, args: (lookup: AgentTurn) => Record<string, unknown>, calls = 1): Transcript {
  const env = new CustomerEnvironment(12);
  env.reset(s, seed);
  const rng = new Rng(seed).fork('ca');
  const customer = () => env.step({ role: 'customer', text: ca.speak(env.observeCustomer(), rng) });
  customer();
  const lookup = env.step({ role: 'agent', raw: call('lookup_account', { phone: env.observeAgent().caller.phone }) }).turn as AgentTurn;
  for (let i = 0; i < calls; i++) env.step({ role: 'agent', raw: call(tool, args(lookup)) });
  env.step({ role: 'agent', raw: say('Which merchant was it?') });
  customer();
  env.step({ role: 'agent', raw: say('Thanks, anything else I should know?') });
  customer();
  env.step({ role: 'agent', raw: bye });
  return env.transcript();
}

const checking = (lookup: AgentTurn) => (lookup.toolResult as unknown as { data: { accounts: { account_id: string }[] } }).data.accounts[0]!.account_id;
const dispute = (lookup: AgentTurn) => ({ account_id: checking(lookup), amount: 12.99, reason: 'unrecognized' });
const customerTexts = (t: Transcript) => t.turns.filter((x) => x.role === 'customer').map((x) => (x as { text: string }).text);

describe('execution adversities', () => {
  const cases = [
    { kind: 'backend_failure', code: 'BACKEND_ERROR' },
    { kind: 'timeout', code: 'TIMEOUT' },
    { kind: 'policy_constraint', code: 'POLICY' },
    { kind: 'empty_results', code: 'NOT_FOUND' },
  ] as const;

  it.each(cases)('$kind with a turn fires once, at the first matching call from that DA step, and is recorded', ({ kind, code }) => {
    const s = withAdv(base, { kind, turn: 2 });
    const t = play(s, 7, 'dispute_charge', dispute, 2);
    // Turn 2 is the first dispute_charge (DA step 2); the retry at turn 3 reaches the real tool.
    expect(t.adversities).toEqual([{ kind, turn: 2, detail: expect.stringContaining('dispute_charge') as string }]);
    const first = t.turns[2] as AgentTurn;
    const retry = t.turns[3] as AgentTurn;
    expect(first.toolResult).toMatchObject({ ok: false, error: { code } });
    expect(retry.toolResult).toMatchObject({ ok: true, tool: 'dispute_charge' });
    expect(play(s, 7, 'dispute_charge', dispute, 2)).toEqual(t);
  });

  it('empty results on get_transactions return an empty history', () => {
    const t = play(withAdv(base, { kind: 'empty_results', tool: 'get_transactions', turn: 1 }), 3, 'get_transactions', (l) => ({ account_id: checking(l) }));
    expect((t.turns[2] as AgentTurn).toolResult).toMatchObject({ ok: true, data: { transactions: [] } });
    expect(t.adversities?.map((a) => [a.kind, a.turn])).toEqual([['empty_results', 2]]);
  });

  it("a policy message is what the DA reads; an invalid call gets the tool's own error, not the adversity", () => {
    const s = withAdv(base, { kind: 'policy_constraint', message: 'refund window expired' });
    const t = play(s, 1, 'dispute_charge', dispute);
    expect((t.turns[2] as AgentTurn).toolResult).toEqual({ ok: false, tool: 'dispute_charge', error: { code: 'POLICY', message: 'refund window expired' } });
    const bad = play(s, 1, 'dispute_charge', () => ({ account_id: 'x' }));
    expect((bad.turns[2] as AgentTurn).toolResult).toMatchObject({ ok: false, error: { code: 'INVALID_ARGUMENTS' } });
    expect(bad.adversities).toBeUndefined();
  });

  it('a rate fires per call from the seed: never at 0, always at 1, reproducibly in between', () => {
    const fired = (rate: number, seed: number) => play(withAdv(base, { kind: 'timeout', rate }), seed, 'dispute_charge', dispute, 3).adversities?.length ?? 0;
    const seeds = Array.from({ length: 16 }, (_, i) => i + 1);
    expect(seeds.map((s) => fired(0, s))).toEqual(seeds.map(() => 0));
    expect(seeds.map((s) => fired(1, s))).toEqual(seeds.map(() => 3));
    const half = seeds.map((s) => fired(0.5, s));
    expect(half).toEqual(seeds.map((s) => fired(0.5, s)));
    expect(new Set(half).size).toBeGreaterThan(1);
  });
});

describe('conversational adversities', () => {
  it('partial information withholds the slot until the agent asks for it', () => {
    const s = withAdv(base, { kind: 'partial_information', slot: 'merchant' });
    for (const seed of [1, 2, 3, 4, 5, 6]) {
      const t = play(s, seed, 'get_transactions', (l) => ({ account_id: checking(l) }));
      const [opening, answer] = customerTexts(t);
      expect(opening).not.toContain('HULU');
      expect(answer).toContain('HULU *EXTRA'); // "Which merchant was it?" asked for it
      expect(t.adversities).toContainEqual({ kind: 'partial_information', turn: 0, detail: 'withholds the merchant until asked' });
    }
    // Without the adversity the same seeds name the merchant at once in some openings.
    expect(
      [1, 2, 3, 4, 5, 6].some((seed) => customerTexts(play(base, seed, 'get_transactions', (l) => ({ account_id: checking(l) })))[0]!.includes('HULU')),
    ).toBe(true);
  });

  it('incremental constraint revelation adds one constraint per later utterance', () => {
    const s = withAdv(base, { kind: 'incremental_constraints', reveals: ['It must be the {amount} one.', 'And I want it done today.'] });
    const t = play(s, 2, 'get_transactions', (l) => ({ account_id: checking(l) }));
    const texts = customerTexts(t);
    expect(texts[0]).not.toContain('It must be');
    expect(texts[1]).toContain('It must be the $12.99 one.');
    expect(texts[2]).toContain('And I want it done today.');
    expect(t.adversities?.map((a) => a.kind)).toEqual(['incremental_constraints', 'incremental_constraints']);
  });

  it('goal revision acts the earlier intent, then drops it at the given customer turn', () => {
    const s = withAdv(base, { kind: 'goal_revision', from: 'card_declined', turn: 2 });
    const env = new CustomerEnvironment(12);
    env.reset(s, 4);
    expect(env.observeCustomer().intent).toBe('card_declined');
    env.step({ role: 'customer', text: 'my card does not work' });
    env.step({ role: 'agent', raw: say('I see, tell me more?') });
    expect(env.observeCustomer().intent).toBe('unrecognized_charge');
    expect(env.observeCustomer().adversity).toEqual({ revise: true });
    const t = play(s, 4, 'get_transactions', (l) => ({ account_id: checking(l) }));
    expect(customerTexts(t)[1]).toMatch(/^Actually, forget that/);
    expect(t.adversities).toEqual([expect.objectContaining({ kind: 'goal_revision', turn: 4 })]);
  });

  it("adversarial tone opens every utterance with the persona's hostile lines", () => {
    const s: Scenario = {
      ...withAdv(base, { kind: 'adversarial_tone' }),
      persona: { name: 'Gordon', style: 'curt', sampleMessages: ['You people again.', 'Hurry up.'] },
    };
    const t = play(s, 9, 'get_transactions', (l) => ({ account_id: checking(l) }));
    const texts = customerTexts(t);
    expect(texts[0]).toMatch(/^You people again\./);
    expect(texts[1]).toMatch(/^Hurry up\./);
    expect(t.adversities?.filter((a) => a.kind === 'adversarial_tone')).toHaveLength(3);
  });

  it('a conversational rate is drawn once per episode from its seed', () => {
    const s = withAdv(base, { kind: 'adversarial_tone', rate: 0.5 });
    const acted = (seed: number) => (play(s, seed, 'get_transactions', (l) => ({ account_id: checking(l) })).adversities?.length ?? 0) > 0;
    const seeds = Array.from({ length: 16 }, (_, i) => i + 1);
    const a = seeds.map(acted);
    expect(a).toEqual(seeds.map(acted));
    expect(new Set(a).size).toBe(2);
  });

  it('scenarios without adversities play exactly as before: no directive, nothing recorded', () => {
    const env = new CustomerEnvironment(12);
    env.reset(base, 1);
    expect(env.observeCustomer().adversity).toBeUndefined();
    expect(play(base, 1, 'dispute_charge', dispute).adversities).toBeUndefined();
  });
});
