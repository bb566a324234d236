import { describe, expect, it } from 'vitest';
import type { HeldoutTable } from '../../../../core/contract/contract';
import { cellView, scenarioHeatmap, tableView } from './heldout-table.data';

const table: HeldoutTable = {
  opponent: 'CA2',
  checkpoints: ['DA0', 'DA1'],
  gateThreshold: 0.9,
  rows: [
    {
      key: 'routing',
      kind: 'rate',
      better: 'higher',
      cells: [
        { value: 22 / 24, ci: [0.742, 0.977], n: 24, delta: null },
        { value: 1, ci: [0.862, 1], n: 24, delta: 2 / 24 },
      ],
    },
    {
      key: 'fail',
      kind: 'rate',
      better: 'lower',
      cells: [
        { value: 0.25, ci: [0.12, 0.45], n: 24, delta: null },
        { value: 0.5, ci: [0.31, 0.69], n: 24, delta: 0.25 },
      ],
    },
    {
      key: 'meanReward',
      kind: 'reward',
      better: 'higher',
      cells: [
        { value: 3.1, ci: null, n: 24, delta: null },
        { value: 2.7, ci: null, n: 24, delta: -0.4 },
      ],
    },
    {
      key: 'gate',
      kind: 'rate',
      better: 'higher',
      cells: [
        { value: 0.75, ci: [0.5, 0.9], n: 16, delta: null, passed: false },
        { value: 15 / 16, ci: [0.72, 0.99], n: 16, delta: 3 / 16, passed: true },
      ],
    },
  ],
  scenarios: [
    {
      scenarioId: 'dispute-h',
      cells: [
        { episodes: 2, routingAccuracy: 0.5, strictPass: 0, meanReward: -1 },
        { episodes: 2, routingAccuracy: 1, strictPass: 0.5, meanReward: 4 },
      ],
    },
    { scenarioId: 'card-h', cells: [null, { episodes: 2, routingAccuracy: 0, strictPass: 0, meanReward: 1 }] },
  ],
};

describe('held-out table view', () => {
  it('words each cell: value, interval in %, Δ from DA0 in points with its tone', () => {
    const v = tableView(table);
    expect(v.checkpoints).toEqual(['DA0', 'DA1']);
    expect(v.rows.map((r) => r.label)).toEqual(['Tool-routing accuracy', 'FAIL', 'Mean reward r_DA', 'Deployment gate']);
    const [routing, fail, reward, gate] = v.rows;
    expect(routing!.cells[0]).toMatchObject({ value: '91.7%', ci: '[74–98]', delta: null, tone: null });
    expect(routing!.cells[1]).toMatchObject({ value: '100.0%', ci: '[86–100]', delta: '+8.3 pts', tone: 'better' });
    // FAIL rising is worse; reward falling is worse and has no interval.
    expect(fail!.cells[1]).toMatchObject({ delta: '+25.0 pts', tone: 'worse' });
    expect(reward!.cells[1]).toMatchObject({ value: '2.70', ci: null, delta: '−0.40', tone: 'worse' });
    expect(gate!.cells.map((c) => c.gate)).toEqual(['not held', 'held']);
    expect(gate!.cells[0]!.title).toBe('DA win rate 75.0% on 16 gate episodes (needs ≥ 90.0%); 95% interval 50% to 90%');
    expect(v.note).toBe('24 held-out episodes per checkpoint · 16 gate episodes, gate threshold 90.0%');
  });

  it('reads a change too small to print as none', () => {
    expect(cellView({ key: 'routing', kind: 'rate', better: 'higher' }, { value: 0.5, ci: null, n: 4, delta: 0.0001 }, null)).toMatchObject({
      delta: '±0',
      tone: 'same',
    });
  });

  it('lays per-scenario results out as scenario × checkpoint, rates on 0–100%, reward on its range', () => {
    const h = scenarioHeatmap(table, 'routingAccuracy');
    expect(h.scenarios).toEqual(['dispute-h', 'card-h']);
    expect(h.cells.map((c) => c.text)).toEqual(['50%', '100%', '–', '0%']);
    expect(h.cells.map((c) => c.t)).toEqual([0.5, 1, null, 0]);
    expect(h.legend).toEqual(['0%', '100%']);
    const r = scenarioHeatmap(table, 'meanReward');
    expect(r.legend).toEqual(['-1.0', '4.0']);
    expect(r.cells[1]!.t).toBe(1);
    expect(r.cells[0]!.t).toBe(0);
    expect(r.cells[0]!.title).toBe('dispute-h · DA0: Mean reward r_DA -1.0 over 2 episodes');
  });
});
