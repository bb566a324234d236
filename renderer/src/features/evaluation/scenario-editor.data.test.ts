import { describe, expect, it } from 'vitest';
import type { ScenarioDraft } from '../../../../core/contract/contract';
import { draftOf, emptyForm, fieldLabel, formOf, mergeProblems, newAdversity, problemsOf, toggleIntent } from './scenario-editor.data';

const scenario: ScenarioDraft = {
  id: 'angry-dispute',
  title: 'Angry dispute',
  fraudReference: false,
  ambiguity: 'ambiguous',
  intents: ['card_payment_not_recognised'],
  expectedTool: 'dispute_charge',
  account: { situation: 'unrecognized_charge', merchant: 'Cafe Rio', amount: 42.5 },
  description: 'A charge the customer does not know.',
  complexity: 'unhappy',
  task: {
    objective: 'Dispute the charge',
    hardConstraints: { amount: 42.5, merchant: 'Cafe Rio' },
    softPreferences: { urgent: true },
    successCriteria: ['dispute filed', 'customer told'],
  },
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
    expect(draft).toMatchObject({
      intents: ['a', 'b'],
      impossible: { fallback_behavior: 'decline', reason: 'no' },
      account: { situation: 'unrecognized_charge' },
    });
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

describe('scenario editor problems', () => {
  it('merges the form’s own problems with the engine’s, the form’s first where both name a field', () => {
    const local = [{ field: 'adversities[0].rate', message: 'expected a number, got "x"' }];
    const engine = [
      { field: 'adversities[0].rate', message: 'Expected number, received null' },
      { field: 'title', message: 'expected a non-empty string' },
    ];
    expect(mergeProblems(local, engine)).toEqual([local[0], engine[1]]);
  });

  it('ticks and unticks intents in the order picked', () => {
    expect(toggleIntent('', 'a', true)).toBe('a');
    expect(toggleIntent('a, b', 'c', true)).toBe('a, b, c');
    expect(toggleIntent('a, b', 'a', true)).toBe('a, b');
    expect(toggleIntent('a, b', 'a', false)).toBe('b');
  });

  it('names fields in the form’s words, not as paths', () => {
    expect(fieldLabel('adversities[0].turn')).toBe('Adversity 1 · turn');
    expect(fieldLabel('adversities[1].from')).toBe('Adversity 2 · opening intent');
    expect(fieldLabel('intents[2]')).toBe('Intent 3');
    expect(fieldLabel('task.hardConstraints')).toBe('Hard constraints');
    expect(fieldLabel('persona.sampleMessages[0]')).toBe('Sample messages');
    expect(fieldLabel('')).toBe('Scenario');
  });
});
