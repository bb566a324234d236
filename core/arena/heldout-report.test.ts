import { describe, expect, it } from 'vitest';
import type { GateResult, HeldoutMetrics } from './evaluate';
import { wilsonInterval } from './evaluate';
import { heldoutReport } from './heldout-report';

const heldout = (routing: number, strict: number, fail: number, reward: number, perScenario: HeldoutMetrics['perScenario'] = []): HeldoutMetrics => ({
  episodes: 24,
  routingAccuracy: routing,
  strictPass: strict,
  fail,
  meanReward: reward,
  lookupFirst: 1,
  perScenario,
});
const gate = (rate: number | null, passed: boolean): GateResult => ({ threshold: 0.9, scenarios: ['fraud-a'], episodes: 16, daWinRate: rate, passed });
const scen = (id: string, routing: number) => ({ scenarioId: id, episodes: 2, routingAccuracy: routing, strictPass: routing / 2, meanReward: 3 * routing });

describe('held-out report (RL-ADA Table 4)', () => {
  const evaluation = {
    checkpoints: [
      {
        da: 'DA0',
        ca: 'CA2',
        heldout: heldout(22 / 24, 6 / 24, 8 / 24, 2.5, [scen('a', 1), scen('b', 0.5)]),
        gate: gate(12 / 16, false),
        reference: { ca: 'scripted', heldout: heldout(1, 0.5, 0, 4), gate: gate(1, true) },
      },
      {
        da: 'DA1',
        ca: 'CA2',
        heldout: heldout(1, 12 / 24, 6 / 24, 3.25, [scen('b', 1), scen('c', 0)]),
        gate: gate(15 / 16, true),
        reference: { ca: 'scripted', heldout: heldout(1, 0.75, 0, 5), gate: gate(1, true) },
      },
    ],
  };

  it('puts checkpoints in columns and metrics in rows, rates with their Wilson interval and Δ from DA0', () => {
    const r = heldoutReport(evaluation)!;
    expect(r.vsRun.opponent).toBe('CA2');
    expect(r.vsRun.checkpoints).toEqual(['DA0', 'DA1']);
    expect(r.vsRun.rows.map((x) => x.key)).toEqual(['routing', 'strictPass', 'fail', 'meanReward', 'lookupFirst', 'gate']);
    const routing = r.vsRun.rows[0]!;
    expect(routing.cells[0]!.ci).toEqual(wilsonInterval(22, 24));
    expect(routing.cells[0]!.ci![0]).toBeCloseTo(0.742, 3);
    expect(routing.cells[0]!.delta).toBeNull();
    expect(routing.cells[1]!.delta).toBeCloseTo(2 / 24, 12);
    expect(routing.cells[1]!.ci).toEqual(wilsonInterval(24, 24));
    const fail = r.vsRun.rows.find((x) => x.key === 'fail')!;
    expect(fail.better).toBe('lower');
    expect(fail.cells[1]!.delta).toBeCloseTo(-2 / 24, 12);
    const reward = r.vsRun.rows.find((x) => x.key === 'meanReward')!;
    expect(reward.kind).toBe('reward');
    expect(reward.cells.map((c) => [c.value, c.ci, c.delta])).toEqual([
      [2.5, null, null],
      [3.25, null, 0.75],
    ]);
    const g = r.vsRun.rows.find((x) => x.key === 'gate')!;
    expect(g.cells.map((c) => [c.passed, c.n])).toEqual([
      [false, 16],
      [true, 16],
    ]);
    expect(g.cells[0]!.ci).toEqual(wilsonInterval(12, 16));
    expect(r.vsRun.gateThreshold).toBe(0.9);
  });

  it('has the same table against the scripted reference CA', () => {
    const r = heldoutReport(evaluation)!;
    expect(r.vsReference!.opponent).toBe('scripted');
    expect(r.vsReference!.rows[1]!.cells.map((c) => c.value)).toEqual([0.5, 0.75]);
    expect(r.vsReference!.rows[1]!.cells[1]!.delta).toBeCloseTo(0.25, 12);
  });

  it('lays per-scenario results out as scenario × checkpoint, a gap where a checkpoint has no result', () => {
    const s = heldoutReport(evaluation)!.vsRun.scenarios;
    expect(s.map((x) => x.scenarioId)).toEqual(['a', 'b', 'c']);
    expect(s[0]!.cells[1]).toBeNull();
    expect(s[1]!.cells.map((c) => c?.routingAccuracy)).toEqual([0.5, 1]);
  });

  it('is null for no evaluation or one of another shape; no reference table when a checkpoint lacks one', () => {
    expect(heldoutReport(null)).toBeNull();
    expect(heldoutReport({ checkpoints: [] })).toBeNull();
    expect(heldoutReport([{ checkpoint: 'DA0', routingAccuracy: 0.5 }])).toBeNull();
    const { reference: _r, ...noRef } = evaluation.checkpoints[1]!;
    expect(heldoutReport({ checkpoints: [evaluation.checkpoints[0], noRef] })!.vsReference).toBeNull();
  });

  it('gives no interval for a gate with no episodes', () => {
    const r = heldoutReport({ checkpoints: [{ ...evaluation.checkpoints[0]!, gate: { ...gate(null, false), episodes: 0 } }] })!;
    expect(r.vsRun.rows.at(-1)!.cells[0]).toMatchObject({ value: null, ci: null, delta: null });
  });
});
