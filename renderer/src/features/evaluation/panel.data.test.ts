import { describe, expect, it } from 'vitest';
import type { MeanInterval, PanelCounterpart, PanelRow, RunPanel } from '../../../../core/contract/contract';
import { gapBars, panelTable } from './panel.data';

const cp = (key: string, kind: PanelCounterpart['kind'] = 'run-ca'): PanelCounterpart => ({ key, kind, label: key, spec: '', runId: null });
/** A row as the host computes it (core/arena/panel.ts panelRow): Wilson intervals of k of n. */
const row = (c: PanelCounterpart, n: number, routing: number, ci: [number, number], reward: number, replay?: PanelRow['replay']): PanelRow => ({
  counterpart: c,
  episodes: n,
  cells: { routing: { value: routing, ci, n }, strictPass: { value: routing / 2, ci: null, n }, meanReward: { value: reward, ci: null, n } },
  ...(replay ? { replay } : {}),
});
const mi = (mean: number, ci: [number, number] | null, n = 3): MeanInterval => ({ n, mean, sd: 0.25, ci, t: null, df: n - 1 });

const panel: RunPanel = {
  da: 'DA2',
  protocol: 'seeds=1,2;episodes=1',
  summary: {
    rows: [
      row(cp('scripted', 'scripted'), 24, 0.75, [0.553, 0.881], 6),
      row(cp('CA4'), 24, 0.5, [0.314, 0.686], 4),
      row(cp('human', 'human'), 2, 1, [0.342, 1], 8, { episodes: 2, openingOnly: 1, replayedTurns: 3, humanTurns: 5 }),
    ],
    average: { routing: mi(0.75, [0.129, 1.371]), strictPass: mi(0.375, [0.06, 0.69]), meanReward: mi(6, [1.03, 10.97]) },
    training: row(cp('CA2'), 24, 1, [0.862, 1], 9),
    gap: { routing: mi(0.25, [-0.371, 0.871]), strictPass: mi(0.125, [-0.19, 0.44]), meanReward: mi(3, [-1.97, 7.97]) },
  },
};

describe("the Evaluation screen's panel", () => {
  it('lists the training counterpart, each member with its Wilson interval, the average and the gap', () => {
    const rows = panelTable(panel);
    expect(rows.map((r) => [r.role, r.label])).toEqual([
      ['training', 'training: CA2'],
      ['member', 'scripted'],
      ['member', 'CA4'],
      ['member', 'human'],
      ['summary', 'panel average (3 counterparts)'],
      ['summary', 'mismatch gap (training − panel)'],
    ]);
    expect(rows[2]!.routing).toBe('50.0% [31–69]');
    expect(rows[0]!.strictPass).toBe('50.0%');
    expect(rows[3]!.note).toBe('replayed 3 of 5 human turns; opening only in 1 of 2');
    // Average of 75, 50, 100 = 75; the gap 100 − 75 = 25 points, with the t interval over 3 counterparts.
    expect(rows[4]!.routing).toBe('75.0 [12.9, 137.1]');
    expect(rows[5]!.routing).toBe('25.0 [-37.1, 87.1]');
    expect(rows[5]!.meanReward).toBe('3.00 [-1.97, 7.97]');
  });

  it("draws the gap in routing and strict PASS with the host's intervals", () => {
    const bars = gapBars(panel);
    expect(bars.map((b) => b.key)).toEqual(['routing', 'strictPass']);
    expect(bars[0]!.value).toBeCloseTo(0.25, 12);
    expect(bars[0]!.ci).toEqual(panel.summary.gap!.routing.ci);
    expect(gapBars({ ...panel, summary: { ...panel.summary, gap: null } })).toEqual([]);
  });
});
