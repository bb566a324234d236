import { describe, expect, it } from 'vitest';
import { phaseEta } from './eta';

describe('phaseEta', () => {
  it('leaves the first step’s start-up out of the rate, and says nothing until there is a rate', () => {
    let t = 0;
    const eta = phaseEta(() => t);
    // Step 1 of 198 after 3 s of start-up: counted, the old estimate was 3 s × 197 ≈ 10 min.
    t = 3_000;
    expect(eta(1, 198)).toBeNull();
    // Then 0.1 s a step: 10 steps later, 187 steps left at 0.1 s.
    t = 4_000;
    expect(eta(11, 198)).toBeCloseTo(18.7, 9);
    t = 23_700;
    expect(eta(198, 198)).toBe(0);
  });

  it('gives no rate from reports that did not move', () => {
    let t = 1_000;
    const eta = phaseEta(() => t);
    expect(eta(0, 30)).toBeNull();
    t = 2_000;
    expect(eta(0, 30)).toBeNull();
  });
});
