import { describe, expect, it } from 'vitest';
import { measureOpening, summariseOpenings } from './tactics';

describe('tactic measures of opening utterances', () => {
  it('counts entities in a camouflaged opening (paper Appendix C style)', () => {
    const m = measureOpening('I see a charge from AMZN MKTP for $89 yesterday, I paid online in Portland.', 'dispute_charge');
    // AMZN MKTP, $89, yesterday, online, Portland
    expect(m.entities).toBe(5);
    expect(m.tokens).toBe(15);
    expect(m.entityDensity).toBeCloseTo(5 / 15);
  });

  it('finds no entities in a vague opening, and counts hedges', () => {
    const m = measureOpening("I'm not sure, maybe something is off with my account.", 'dispute_charge');
    expect(m.entities).toBe(0);
    expect(m.hedges).toBe(2);
  });

  it('counts decoy cues of other tools only', () => {
    const own = measureOpening('I was charged twice and want a refund.', 'dispute_charge');
    expect(own.decoyCues).toBe(0);
    const decoy = measureOpening('I was charged twice, and I also need to move money into my savings.', 'dispute_charge');
    expect(decoy.decoyCues).toBeGreaterThanOrEqual(2); // move, savings
  });

  it('summarises a match', () => {
    const s = summariseOpenings([
      { text: 'Something is off.', expectedTool: 'dispute_charge' },
      { text: 'Maybe I need to move money to savings, $40 yesterday.', expectedTool: 'dispute_charge' },
    ]);
    expect(s.n).toBe(2);
    expect(s.decoyRate).toBe(0.5);
    expect(s.hedgeRate).toBe(0.5);
    expect(s.meanTokens).toBe((3 + 10) / 2);
    expect(summariseOpenings([]).n).toBe(0);
  });
});
