import { describe, expect, it } from 'vitest';
import { evaluationView, formatCell } from './evaluation.data';

const perScenario = (acc: number) => [
  { scenarioId: 'dispute-h', episodes: 1, routingAccuracy: acc, meanReward: 1.3 },
  { scenarioId: 'card-h', episodes: 1, routingAccuracy: 1 - acc, meanReward: 9.5 },
];

describe('evaluation view', () => {
  it("reads the runner's shape: checkpoints with held-out metrics, a deployment gate and per-scenario results", () => {
    const v = evaluationView({
      checkpoints: [
        {
          da: 'DA0',
          ca: 'CA0',
          heldout: { episodes: 12, routingAccuracy: 0.33, fail: 0.75, perScenario: perScenario(0) },
          gate: { threshold: 0.9, scenarios: ['a', 'b'], episodes: 8, daWinRate: 0.625, passed: false },
        },
        {
          da: 'DA1',
          ca: 'CA0',
          heldout: { episodes: 12, routingAccuracy: 0.5, fail: 0.5, perScenario: perScenario(1) },
          gate: { threshold: 0.9, scenarios: ['a', 'b'], episodes: 8, daWinRate: 0.95, passed: true },
        },
      ],
    })!;
    expect(v.rest).toEqual({});
    const [main, scenarios] = v.tables;
    expect(main!.title).toBe('checkpoints');
    expect(main!.rowKey).toBe('da');
    expect(main!.rows.map((r) => r.key)).toEqual(['DA0', 'DA1']);
    // Ambiguous leaf names keep their path; the others read short. What every row shares is said once.
    expect(main!.columns.map((c) => c.label)).toEqual(['routingAccuracy', 'fail', 'daWinRate', 'passed']);
    expect(main!.common.map((c) => `${c.label}=${c.value}`)).toEqual(['ca=CA0', 'heldout.episodes=12', 'threshold=0.9', 'scenarios=a, b', 'gate.episodes=8']);
    expect(main!.rows[1]!.cells['gate.passed']).toBe(true);
    expect(scenarios!.title).toBe('checkpoints · perScenario');
    expect(scenarios!.rowKey).toBe('scenarioId');
    expect(scenarios!.rows.map((r) => r.key)).toEqual(['dispute-h', 'card-h']);
    expect(scenarios!.columns.map((c) => c.key)).toEqual(['routingAccuracy · DA0', 'routingAccuracy · DA1', 'meanReward · DA0', 'meanReward · DA1']);
    expect(scenarios!.common.map((c) => c.key)).toEqual(['episodes · DA0', 'episodes · DA1']);
    expect(scenarios!.rows[0]!.cells['routingAccuracy · DA1']).toBe(1);
    expect(scenarios!.rows[0]!.cells['routingAccuracy · DA0']).toBe(0);
  });

  it('names two per-scenario tables apart when a checkpoint also has a reference evaluation', () => {
    const row = (da: string) => ({
      da,
      heldout: { routingAccuracy: 0.5, perScenario: perScenario(0) },
      reference: { ca: 'scripted', heldout: { routingAccuracy: 0.75, perScenario: perScenario(1) } },
    });
    const v = evaluationView({ checkpoints: [row('DA0'), row('DA1')] })!;
    expect(v.tables.map((t) => t.title)).toEqual(['checkpoints', 'checkpoints · heldout.perScenario', 'checkpoints · reference.heldout.perScenario']);
    expect(v.tables[2]!.rows[0]!.cells['routingAccuracy · DA0']).toBe(1);
    expect(v.tables[0]!.columns.map((c) => c.label)).toEqual([]); // every column holds one value in both rows
    expect(v.tables[0]!.common.map((c) => c.label)).toEqual(['heldout.routingAccuracy', 'ca', 'reference.heldout.routingAccuracy']);
  });

  it('reads a plain array of rows, and rows keyed by checkpoint, keeping the rest', () => {
    const a = evaluationView([
      { checkpoint: 'DA0', strictPass: 0.25 },
      { checkpoint: 'DA2', strictPass: 0.5 },
    ])!;
    expect(a.tables[0]!.rows.map((r) => r.key)).toEqual(['DA0', 'DA2']);
    const b = evaluationView({ ca: 'CA3', perCheckpoint: { DA0: { failRate: 0.5 }, DA1: { failRate: 0.2 } }, notes: ['x'] })!;
    expect(b.tables.map((t) => t.title)).toEqual(['perCheckpoint']);
    expect(b.tables[0]!.rows.map((r) => r.key)).toEqual(['DA0', 'DA1']);
    expect(b.rest).toEqual({ ca: 'CA3', notes: ['x'] });
  });

  it('says there is nothing for null, and keeps an odd value as it is', () => {
    expect(evaluationView(null)).toBeNull();
    expect(evaluationView(42)).toEqual({ tables: [], rest: { value: 42 } });
  });

  it('formats rates as percentages and other numbers compactly', () => {
    expect(formatCell('routingAccuracy', 0.75)).toBe('75.0%');
    expect(formatCell('gate.threshold', 0.9)).toBe('90.0%');
    expect(formatCell('meanReward', 2.41234)).toBe('2.41');
    expect(formatCell('episodes', 12)).toBe('12');
    expect(formatCell('passed', false)).toBe('no');
    expect(formatCell('x', null)).toBe('—');
  });
});
