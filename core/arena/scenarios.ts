/** Named scenario sets for matches and evaluations. */
import type { Domain, Scenario } from '../domain/types';

export const SCENARIO_SETS = ['arena', 'heldout', 'fraud', 'all', 'robustness'] as const;
export type ScenarioSetName = (typeof SCENARIO_SETS)[number];

/**
 * arena: the 10 arena scenarios (CA-winnable and fraud reference); heldout: the 12 held-out ones;
 * fraud: the fraud-escalation reference scenarios of the arena; all: arena then held-out;
 * robustness: MADS's normal, unhappy and impossible scenarios (adversities, fallbacks).
 */
export function selectScenarios(domain: Pick<Domain, 'scenarios'>, set: ScenarioSetName): Scenario[] {
  switch (set) {
    case 'arena':
      return domain.scenarios.filter((s) => s.set === 'arena');
    case 'heldout':
      return domain.scenarios.filter((s) => s.set === 'heldout');
    case 'fraud':
      return domain.scenarios.filter((s) => s.set === 'arena' && s.fraudReference);
    case 'robustness':
      return domain.scenarios.filter((s) => s.set === 'robustness');
    case 'all':
      return [...domain.scenarios.filter((s) => s.set === 'arena'), ...domain.scenarios.filter((s) => s.set === 'heldout')];
  }
}

/**
 * The held-out scenarios that share at least one intent with an arena scenario: how far the
 * arena's training reaches. A DA's gyms only ever see arena scenarios' intents, so its held-out
 * gain on the other held-out scenarios is transfer to intents (and their words) it never trained
 * against the CA on.
 */
export function heldoutWithArenaIntents(domain: Pick<Domain, 'scenarios'>): Set<string> {
  const arena = new Set(selectScenarios(domain, 'arena').flatMap((s) => s.intents));
  return new Set(
    selectScenarios(domain, 'heldout')
      .filter((s) => s.intents.some((i) => arena.has(i)))
      .map((s) => s.id),
  );
}
