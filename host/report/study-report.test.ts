import { describe, expect, it } from 'vitest';
import type { ArmSummary } from '../../core/coevolution/study-summary';
import { meanInterval } from '../../core/stats/intervals';
import { fmt, shapeView } from './study-report';

describe('shapeView', () => {
  it('gives study show and the report one table: counts with their Wilson interval, ΔW_DA as points', () => {
    const m = (xs: number[]) => meanInterval(xs);
    const arm = {
      arm: 'full',
      measures: {
        matches: m([4, 5, 6]),
        daGyms: m([1, 1, 1]),
        caGyms: m([2, 3, 4]),
        wDaAfterCaGym: m([-0.05, -0.03, -0.04]),
        wDaAfterDaGym: m([0.3, 0.25, 0.2]),
      },
      daTrained: { k: 10, n: 10, ci: [0.722, 1] },
      nonMonotonic: { k: 7, n: 10, ci: [0.397, 0.892] },
    } as unknown as ArmSummary;
    const v = shapeView([arm]);
    expect(v.header).toEqual(['arm', 'matches', 'DA gyms', 'CA gyms', 'DA trained', 'W_DA non-monotonic', 'ΔW_DA after a CA gym', 'after a DA gym']);
    expect(v.rows).toEqual([
      [
        'full',
        fmt(m([4, 5, 6]), false),
        fmt(m([1, 1, 1]), false),
        fmt(m([2, 3, 4]), false),
        '10/10 [72–100%]',
        '7/10 [40–89%]',
        fmt(m([-0.05, -0.03, -0.04]), true),
        fmt(m([0.3, 0.25, 0.2]), true),
      ],
    ]);
    expect(v.rows[0]![6]).toMatch(/^-4\.0 \[/);
  });
});
