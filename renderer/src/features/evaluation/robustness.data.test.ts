import { describe, expect, it } from 'vitest';
import type { MadsEvaluation, MadsGroup } from '../../../../core/contract/contract';
import { robustnessBars, robustnessView } from './robustness.data';

const g = (episodes: number, l2: number, l1: MadsGroup['l1'] = null): MadsGroup => ({ episodes, l2, l2Complete: l2 === 1 ? 1 : 0.25, l1 });
const l1 = { episodes: 2, actionTypeRecall: 0.9, toolF1: 0.8, paramExactMatch: 0.5, responseSimilarity: 0.4 };

const report: MadsEvaluation = {
  da: 'DA2',
  ca: 'scripted',
  daCheckpoint: { name: 'DA2', id: 'DA2' },
  caCheckpoint: null,
  seed: 1,
  episodesPerScenario: 2,
  scenarios: ['r1', 'r2', 'r3'],
  overall: g(6, 0.6, l1),
  byComplexity: { impossible: g(2, 0.2), normal: g(2, 1, l1), unhappy: g(2, 0.6) },
  byAdversity: { none: g(2, 1), backend_failure: g(3, 0.4), adversarial_tone: g(1, 0.5) },
};

describe('robustness view', () => {
  it('orders complexity normal → unhappy → impossible and adversities by name with "none" last', () => {
    const v = robustnessView(report);
    expect(v.overall).toMatchObject({ key: 'all', episodes: 6, l2: 0.6, l1 });
    expect(v.byComplexity.map((r) => r.label)).toEqual(['normal', 'unhappy', 'impossible']);
    expect(v.byAdversity.map((r) => r.key)).toEqual(['adversity:adversarial_tone', 'adversity:backend_failure', 'adversity:none']);
    expect(v.byAdversity.map((r) => r.label)).toEqual(['adversarial tone', 'backend failure', 'no adversity fired']);
    expect(v.byComplexity[1]!.l1).toBeNull();
  });

  it('bars carry L-2 per complexity then per adversity, with their group', () => {
    const bars = robustnessBars(robustnessView(report));
    expect(bars.map((b) => [b.group, b.value])).toEqual([
      ['complexity', 1],
      ['complexity', 0.6],
      ['complexity', 0.2],
      ['adversity', 0.5],
      ['adversity', 0.4],
      ['adversity', 1],
    ]);
  });
});
