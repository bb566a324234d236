import { describe, expect, it } from 'vitest';
import { cohenKappa, fleissCounts, fleissKappa, krippendorffAlphaNominal } from './agreement';

describe('cohenKappa', () => {
  it('matches the 50-item worked example of Wikipedia, "Cohen\'s kappa" (κ = 0.40)', () => {
    // Source: https://en.wikipedia.org/wiki/Cohen%27s_kappa, "Simple example": A and B both say
    // Yes on 20 items, A Yes / B No on 5, A No / B Yes on 10, both No on 15; p_o = 0.7, p_e = 0.5.
    const a = [...Array(20).fill('Y'), ...Array(5).fill('Y'), ...Array(10).fill('N'), ...Array(15).fill('N')];
    const b = [...Array(20).fill('Y'), ...Array(5).fill('N'), ...Array(10).fill('Y'), ...Array(15).fill('N')];
    expect(cohenKappa(a, b)).toBeCloseTo(0.4, 12);
  });

  it('drops items either rater left blank, and is 1 for identical non-constant labels', () => {
    expect(cohenKappa(['x', 'y', null, 'x'], ['x', 'y', 'x', null])).toBe(1);
    expect(cohenKappa(['x', 'x'], ['x', 'x'])).toBeNaN();
    expect(() => cohenKappa(['x'], [])).toThrow(/different numbers of items/);
  });

  it('is negative when the raters disagree more than chance', () => {
    expect(cohenKappa(['a', 'b', 'a', 'b'], ['b', 'a', 'b', 'a'])).toBeCloseTo(-1, 12);
  });
});

describe('fleissKappa', () => {
  // Source: Fleiss (1971), Psychological Bulletin 76(5), as reproduced in the worked example of
  // https://en.wikipedia.org/wiki/Fleiss%27_kappa: 10 subjects, 14 raters, 5 categories;
  // column shares 0.143 0.200 0.279 0.150 0.229, P̄ = 0.378, P̄_e = 0.213, κ = 0.210.
  const table = [
    [0, 0, 0, 0, 14],
    [0, 2, 6, 4, 2],
    [0, 0, 3, 5, 6],
    [0, 3, 9, 2, 0],
    [2, 2, 8, 1, 1],
    [7, 7, 0, 0, 0],
    [3, 2, 6, 3, 0],
    [2, 5, 3, 2, 2],
    [6, 5, 2, 1, 0],
    [0, 2, 2, 3, 7],
  ];

  it('matches the published worked example (κ ≈ 0.210)', () => {
    expect(fleissKappa(table)).toBeCloseTo(0.21, 3);
  });

  it('equals Cohen-style agreement on a perfectly agreeing table and rejects ragged ones', () => {
    expect(
      fleissKappa([
        [3, 0],
        [0, 3],
        [3, 0],
      ]),
    ).toBeCloseTo(1, 12);
    expect(() =>
      fleissKappa([
        [2, 1],
        [1, 1],
      ]),
    ).toThrow(/subject 1 has 2 ratings/);
  });

  it('builds its table from raters × items, keeping only items every rater labelled', () => {
    const r = [
      ['a', 'b', 'a'],
      ['a', 'b', null],
      ['b', 'b', 'a'],
    ];
    expect(fleissCounts(r, ['a', 'b'])).toEqual([
      [2, 1],
      [0, 3],
    ]);
  });
});

describe('krippendorffAlphaNominal', () => {
  it("matches Krippendorff's own nominal example with missing data (α ≈ 0.743)", () => {
    // Source: K. Krippendorff (2011), "Computing Krippendorff's Alpha-Reliability", Annenberg
    // School for Communication, section C (nominal data, any number of observers, missing
    // values): 4 observers, 12 units, α_nominal = 0.743. (The same "C" data is the example of
    // R's irr::kripp.alpha / DescTools::KrippAlpha.)
    const _ = null;
    const data = [
      [1, 2, 3, 3, 2, 1, 4, 1, 2, _, _, _],
      [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, _, 3],
      [_, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, _],
      [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, _],
    ];
    expect(krippendorffAlphaNominal(data)).toBeCloseTo(0.743, 3);
  });

  it("agrees with Cohen's κ up to the small-sample correction, and is 1 on full agreement", () => {
    expect(
      krippendorffAlphaNominal([
        ['a', 'b', 'a'],
        ['a', 'b', 'a'],
      ]),
    ).toBe(1);
    // Two raters, no missing data: α = 1 − (n−1)/n · (1 − π) relation; check against a hand count.
    // Items: (a,a) (a,b) (b,b) (b,b): o_aa=2, o_ab=o_ba=1, o_bb=4, n_a=3, n_b=5, n=8;
    // α = 1 − 7·2 / (2·3·5) = 1 − 14/30.
    expect(
      krippendorffAlphaNominal([
        ['a', 'a', 'b', 'b'],
        ['a', 'b', 'b', 'b'],
      ]),
    ).toBeCloseTo(1 - 14 / 30, 12);
    expect(
      krippendorffAlphaNominal([
        ['a', null],
        [null, 'b'],
      ]),
    ).toBeNaN();
  });
});
