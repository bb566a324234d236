/**
 * The best-response report as the Evaluation screen shows it: the same lines as
 * `sparring best-response` (W_DA against the CA's own openings, one opening per intent chosen by
 * wins or by the gym's reward, the per-episode oracle, a random opening), then per head and value.
 */
import type { BestResponseView } from '../../../../core/contract/contract';

export interface BestResponseLine {
  key: 'greedy' | 'perIntent' | 'perIntentByReward' | 'oracle' | 'random';
  label: string;
  wDa: number;
  /** Mean gym reward of these openings; null where the report has none (oracle, random) or it is NaN. */
  gymReward: number | null;
}

export interface BestResponseFactorRow {
  head: string;
  value: string;
  /** The first value of its head (the table names the head once). */
  first: boolean;
  winRate: number;
  meanReward: number | null;
  greedyShare: number;
  /** The CA's win rate with its greedy opening changed in this head alone; null when not among the choices. */
  deviation: number | null;
}

const finite = (v: number): number | null => (Number.isFinite(v) ? v : null);

export function bestResponseLines(r: BestResponseView): BestResponseLine[] {
  return [
    { key: 'greedy', label: 'its own greedy choice (this replay)', wDa: r.wDaGreedy, gymReward: finite(r.gymReward.greedy) },
    {
      key: 'perIntent',
      label: 'one choice per intent, chosen on the other half of its episodes by wins',
      wDa: r.wDaPerIntent,
      gymReward: finite(r.gymReward.perIntent),
    },
    {
      key: 'perIntentByReward',
      label: 'one choice per intent, chosen the same way by the gym reward',
      wDa: r.wDaPerIntentByReward,
      gymReward: finite(r.gymReward.perIntentByReward),
    },
    { key: 'oracle', label: 'the best choice of each episode (oracle)', wDa: r.wDaOracle, gymReward: null },
    { key: 'random', label: 'a uniformly random choice', wDa: 1 - r.meanWinShare, gymReward: null },
  ];
}

export function bestResponseFactorRows(r: BestResponseView): BestResponseFactorRow[] {
  return r.factors.flatMap((f) =>
    f.values.map((v, i) => ({
      head: f.head,
      value: v.value,
      first: i === 0,
      winRate: v.winRate,
      meanReward: finite(v.meanReward),
      greedyShare: v.greedyShare,
      deviation: finite(v.deviation),
    })),
  );
}
