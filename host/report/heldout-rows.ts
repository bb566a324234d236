/**
 * The held-out table's rows (RL-ADA Table 4 per DA checkpoint), shared by `sparring run`'s summary
 * and the HTML report. Routing accuracy and strict PASS carry their 95% Wilson interval over the
 * evaluation's episodes: with 24 held-out episodes, 91.7% and 100% are two episodes apart.
 */
import { wilsonInterval } from '../../core/arena/evaluate';
import type { CheckpointEvaluation } from '../coevolution/actors';
import { pct } from '../format/table';

export const HELDOUT_HEADER = ['DA', 'routing [95% CI]', 'strict PASS [95% CI]', 'FAIL', 'mean reward', 'lookup-first', 'deployment gate'];

/** A rate measured on `n` episodes with its interval: "95.8% [79–99]". */
export function rateWithInterval(rate: number, n: number): string {
  const ci = wilsonInterval(Math.round(rate * n), n);
  return ci ? `${pct(rate)} [${Math.round(ci[0] * 100)}–${Math.round(ci[1] * 100)}]` : pct(rate);
}

export function heldoutRows(rows: readonly Pick<CheckpointEvaluation, 'da' | 'heldout' | 'gate'>[]): string[][] {
  return rows.map(({ da, heldout: h, gate }) => [
    da,
    rateWithInterval(h.routingAccuracy, h.episodes),
    rateWithInterval(h.strictPass, h.episodes),
    pct(h.fail),
    h.meanReward.toFixed(2),
    pct(h.lookupFirst),
    `${pct(gate.daWinRate)} ${gate.passed ? 'pass' : 'fail'}`,
  ]);
}
