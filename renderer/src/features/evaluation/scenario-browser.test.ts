import { describe, expect, it } from 'vitest';
import { adversityLabel } from './ScenarioBrowser';

describe('adversity labels', () => {
  it('name the kind and what sets the adversity apart', () => {
    expect(adversityLabel({ kind: 'partial_information', slot: 'merchant' })).toBe('partial information (merchant)');
    expect(adversityLabel({ kind: 'goal_revision', from: 'card_lost', turn: 2, rate: 0.5 })).toBe('goal revision (from card_lost at utterance 2, rate 0.5)');
    expect(adversityLabel({ kind: 'backend_failure', tool: 'dispute_charge' })).toBe('backend failure (dispute_charge)');
    expect(adversityLabel({ kind: 'adversarial_tone' })).toBe('adversarial tone');
    expect(adversityLabel({ kind: 'timeout', turn: 3 })).toBe('timeout (at DA step 3)');
  });
});
