import { describe, expect, it } from 'vitest';
import type { EpisodeRecord } from '../../../../core/contract/contract';
import { adversitiesByTurn, episodeTerms, signed, termDefinition, termLabel, turnViews } from './transcript.data';

const daTerms = {
  format: 1,
  tool: 1,
  env_lookup_first: 0.5,
  env_correct_tool: 2,
  env_speak: -0.05,
  env_milestone: 1.05,
  env_late: 0,
  env_judge: 1.5,
  env_missed_verification: 0,
  env_missing_tool: 0,
  end: 1,
  env_fallback: 0,
};
const episode: EpisodeRecord = {
  id: 'M1:0',
  matchId: 'M1',
  index: 0,
  scenarioId: 's',
  fraudReference: false,
  seed: 1,
  intent: 'card_arrival',
  expectedTool: 'check_card_status',
  routedTool: 'check_card_status',
  winner: 'DA',
  endReason: 'end_call',
  rDa: 8,
  rCa: -1,
  daTerms,
  caTerms: { format: 0.2, realism: 0.1, conceal: 0, inv_da: -1.3 },
  judge: { score: 1.5, resolved: true, tier: 4, hallucination: false, hallucinations: [], rationale: 'fine' },
  turns: [
    {
      index: 0,
      role: 'customer',
      text: 'my card?',
      actionType: null,
      tool: null,
      toolArgs: null,
      toolResult: null,
      parseError: null,
      rewards: { format: 0.1 },
    },
    {
      index: 1,
      role: 'agent',
      text: JSON.stringify({ thinking: 'verify first', action_type: 'tool_call', content: 'lookup_account', tool_args: { phone: '555' } }),
      actionType: 'tool_call',
      tool: 'lookup_account',
      toolArgs: { phone: '555' },
      toolResult: { ok: true, tool: 'lookup_account', data: { customer_id: 'C1' } },
      parseError: null,
      rewards: { format: 0.5, env_lookup_first: 0.5 },
    },
    {
      index: 2,
      role: 'agent',
      text: JSON.stringify({ thinking: 'card', action_type: 'tool_call', content: 'check_card_status', tool_args: {} }),
      actionType: 'tool_call',
      tool: 'check_card_status',
      toolArgs: {},
      toolResult: { ok: false, tool: 'check_card_status', error: { code: 'INVALID_ARGUMENTS', message: 'card_id missing' } },
      parseError: null,
      rewards: {},
    },
    {
      index: 3,
      role: 'agent',
      text: '{"thinking": "bye", "action_type": "end_call", "content": "Goodbye!"}',
      actionType: 'end_call',
      tool: null,
      toolArgs: null,
      toolResult: null,
      parseError: null,
      rewards: { end: 1 },
    },
    {
      index: 4,
      role: 'agent',
      text: 'oops {',
      actionType: null,
      tool: null,
      toolArgs: null,
      toolResult: null,
      parseError: 'not valid JSON',
      rewards: { format: -3 },
    },
  ],
};

describe('transcript view data', () => {
  it("splits the DA's wire output into thinking, words and tool calls", () => {
    const v = turnViews(episode);
    expect(v[0]).toMatchObject({ role: 'customer', said: 'my card?', thinking: null, rewardSum: 0.1 });
    expect(v[1]).toMatchObject({ thinking: 'verify first', tool: 'lookup_account', said: null, toolResult: { ok: true, error: null } });
    expect(v[1]!.toolArgs).toContain('"phone": "555"');
    expect(v[1]!.rewards).toEqual([
      { term: 'format', value: 0.5 },
      { term: 'env_lookup_first', value: 0.5 },
    ]);
    expect(v[1]!.rewardSum).toBe(1);
    expect(v[2]!.toolResult).toMatchObject({ ok: false, error: 'INVALID_ARGUMENTS: card_id missing' });
    expect(v[3]).toMatchObject({ said: 'Goodbye!', thinking: 'bye', raw: null });
    expect(v[4]).toMatchObject({ raw: 'oops {', parseError: 'not valid JSON', thinking: null, said: null });
  });

  it('lists every episode reward term with the totals', () => {
    const t = episodeTerms(episode);
    expect(t.da.map((r) => r.term)).toEqual(Object.keys(daTerms));
    expect(t.ca).toHaveLength(4);
    expect(t.rDa).toBe(8);
  });

  it('formats numbers and term names for people', () => {
    expect(signed(1)).toBe('+1.00');
    expect(signed(-0.05)).toBe('−0.05');
    expect(signed(-0.001)).toBe('0.00');
    expect(termLabel('env_lookup_first')).toBe('lookup first');
    expect(termDefinition('inv_da')).toMatch(/^Inverse of the DA’s win/);
    expect(termLabel('some_new_term')).toBe('some new term');
    expect(termLabel('inv_da')).toBe('DA misrouted');
  });
});

describe('adversitiesByTurn', () => {
  it('groups the firings by the turn they shaped, in words', () => {
    const m = adversitiesByTurn({
      adversities: [
        { kind: 'adversarial_tone', turn: 0, detail: 'hostile tone' },
        { kind: 'partial_information', turn: 0, detail: 'withholds the merchant until asked' },
        { kind: 'backend_failure', turn: 2, detail: 'transfer_funds: service unavailable' },
      ],
    });
    expect([...m.entries()]).toEqual([
      [0, ['adversarial tone: hostile tone', 'partial information: withholds the merchant until asked']],
      [2, ['backend failure: transfer_funds: service unavailable']],
    ]);
    expect(adversitiesByTurn({}).size).toBe(0);
  });
});
