/** The written tier rubric beside the tier choice, so a person grades what the judge grades. */
import { TIER_RUBRIC } from './tier-rubric';

export function TierRubric() {
  return (
    <details className="tier-rubric" data-testid="tier-rubric">
      <summary>How to choose a tier</summary>
      <dl>
        {TIER_RUBRIC.map((r) => (
          <div key={r.tier}>
            <dt>
              {r.tier} {r.words}
            </dt>
            <dd>{r.when}</dd>
          </div>
        ))}
      </dl>
    </details>
  );
}
