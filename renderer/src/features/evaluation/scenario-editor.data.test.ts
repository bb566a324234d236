import { describe, expect, it } from 'vitest';
import type { ScenarioDraft } from '../../../../core/contract/contract';
import { draftOf, emptyForm, formOf, newAdversity, problemsOf } from './scenario-editor.data';

const scenario: ScenarioDraft = {
  id: 'angry-dispute', title: 'Angry dispute', fraudReference: false, ambiguity: 'ambiguous', intents: ['card_payment_not_recognised'], expectedTool: 'dispute_charge',
  account: { situation: 'unrecognized_charge', merchant: 'Cafe Rio', amount: 42.5 }, description: 'A charge the customer does not know.', complexity: 'unhappy',
  task: { objective: 'Dispute the charge', hardConstraints: { amount: 42.5, merchant: 'Cafe Rio' }, softPreferences: { urgent: true }, successCriteria: ['dispute filed', 'customer told'] },
  persona: { name: 'Dana', style: 'curt', sampleMessages: ['Fix this now.', 'Seriously?'] },
  adversities: [
    { kind: 'partial_information', slot: 'amount', rate: 0.5 },
    { kind: 'incremental_constraints', reveals: ['It was on {date}.'] },
    { kind: 'goal_revision', from: 'card_arrival', turn: 2 },
    { kind: 'timeout', tool: 'dispute_charge', turn: 3, message: 'slow' },
    { kind: 'policy_constraint', rate: 1 },
  ],
  referenceActions: [{ action_type: 'tool_call', content: 'lookup_account', tool_args: { phone: '*' } }],
};

describe('scenario editor form', () => {
  it('round-trips a scenario through the form unchanged', () => {
    expect(draftOf(formOf(scenario))).toEqual({ draft: scenario, problems: [] });
  });

  it('adds the impossible block and leaves persona and task out when empty', () => {
    const f = { ...emptyForm(), id: 'x', title: 'X', intents: 'a, b', description: 'd', impossible: true, fallbackBehavior: 'decline', impossibleReason: 'no' };
    const { draft } = draftOf(f);
    expect(draft).toMatchObject({ intents: ['a', 'b'], impossible: { fallback_behavior: 'decline', reason: 'no' }, account: { situation: 'unrecognized_charge' } });
    expect(draft).not.toHaveProperty('persona');
    expect(draft).not.toHaveProperty('task');
  });

  it('names the field of what it cannot read: a rate that is no number, a constraint line without =', () => {
    const f = { ...formOf(scenario), hardConstraints: 'amount = 3\nmerchant Cafe', adversities: [{ ...newAdversity('backend_failure'), rate: 'often' }] };
    const { problems } = draftOf(f);
    expect(problems).toEqual([
      { field: 'task.hardConstraints', message: 'line 2: expected key = value, got "merchant Cafe"' },
      { field: 'adversities[0].rate', message: 'expected a number, got "often"' },
    ]);
    expect(problemsOf(problems, 'adversities[0]')).toEqual(['expected a number, got "often"']);
    expect(problemsOf(problems, 'adversities[1]')).toEqual([]);
    expect(problemsOf(problems, 'task')).toHaveLength(1);
  });
});
