import { describe, expect, it } from 'vitest';
import { bankingDomain } from '../../host/domain-files';
import { heldoutWithArenaIntents, selectScenarios } from './scenarios';

describe('heldoutWithArenaIntents', () => {
  it('names the held-out scenarios that share an intent with an arena scenario', () => {
    const domain = bankingDomain();
    const reach = heldoutWithArenaIntents(domain);
    const arenaIntents = new Set(selectScenarios(domain, 'arena').flatMap((s) => s.intents));
    for (const s of selectScenarios(domain, 'heldout')) expect(reach.has(s.id), s.id).toBe(s.intents.some((i) => arenaIntents.has(i)));
    // The shipped sets: one intent of card-declined-h (declined_card_payment) is an arena intent, card_not_working is not.
    expect(reach.has('card-declined-h')).toBe(true);
    expect([...reach].sort()).toEqual([
      'card-declined-h',
      'dispute-duplicate-h',
      'dispute-unrecognized-h',
      'fraud-compromised-account-h',
      'internal-transfer-h',
      'refund-missing-h',
      'unknown-merchant-h',
    ]);
  });

  it('is empty when no held-out scenario shares an intent', () => {
    const domain = bankingDomain();
    const scenarios = domain.scenarios.map((s) => (s.set === 'heldout' ? { ...s, intents: ['nothing_the_arena_plays'] } : s));
    expect(heldoutWithArenaIntents({ scenarios }).size).toBe(0);
  });
});
