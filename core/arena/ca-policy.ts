/**
 * What a builtin CA's policy does with the openings of a match, head by head: for each value of
 * each head of its factored choice (core/agents/ca-choices.ts), the mean probability the policy
 * gives it over the match's opening observations (at T = 1, what the arena samples from) and the
 * share of openings whose greedy choice has it (what the CA's gym rollouts play). Read per match
 * of a run, it shows which factors the CA's gyms moved (a tactic the CA converged to, such as
 * withholding details or a decoy cue) without replaying anything (`sparring best-response` adds
 * what each value would have won).
 */
import { CA_HEAD_OFFSETS, CA_HEAD_SIZES, CA_HEADS, CA_LOGITS } from '../agents/ca-choices';
import { meanInterval } from '../stats/intervals';
import type { MeanInterval } from '../stats/intervals';

export interface CaPolicyHead {
  head: string;
  values: { value: string; meanP: number; greedyShare: number }[];
}

/** One match's openings read by the CA that played it. */
export interface CaPolicyMatch {
  matchId: string;
  da: string;
  ca: string;
  /** Openings summarised (the match's episodes, fraud references left out). */
  openings: number;
  heads: CaPolicyHead[];
}

/**
 * The per-head summary of `rows` rows of per-head log-probabilities ([rows, CA_LOGITS] row-major,
 * as CaModel.headLogProbs returns them). Ties of the greedy choice go to the first value, as
 * greedyChoice does.
 */
export function summariseCaPolicy(logp: Float32Array, rows: number): CaPolicyHead[] {
  if (rows <= 0) throw new Error('CA policy: no openings to summarise');
  if (logp.length !== rows * CA_LOGITS) throw new Error(`CA policy: ${logp.length} log-probabilities for ${rows} rows of ${CA_LOGITS}`);
  return CA_HEADS.map((h, hi) => {
    const size = CA_HEAD_SIZES[hi]!;
    const meanP = new Array<number>(size).fill(0);
    const greedy = new Array<number>(size).fill(0);
    for (let r = 0; r < rows; r++) {
      const base = r * CA_LOGITS + CA_HEAD_OFFSETS[hi]!;
      let best = 0;
      for (let i = 0; i < size; i++) {
        meanP[i]! += Math.exp(logp[base + i]!);
        if (logp[base + i]! > logp[base + best]!) best = i;
      }
      greedy[best]! += 1;
    }
    return { head: h.name, values: h.values.map((v, i) => ({ value: String(v), meanP: meanP[i]! / rows, greedyShare: greedy[i]! / rows })) };
  });
}

/** One head value of a CA's policy over seeds: first match → last, and the change per seed. */
export interface CaPolicyShiftRow {
  head: string;
  value: string;
  /** Mean probability over the first match's openings (CA0), mean [95% t] over seeds. */
  first: MeanInterval;
  last: MeanInterval;
  /** last − first, per seed, mean [95% t]. */
  change: MeanInterval;
  /** Seeds whose probability rose / fell from the first match to the last. */
  up: number;
  down: number;
}

/**
 * How an arm's CA moved over its runs, head value by head value: the first match's and the last
 * match's mean probability (summariseCaPolicy) over seeds, and the per-seed change with its 95%
 * Student-t interval and how many seeds it rose or fell in (`sparring study ca-policy`).
 */
export function caPolicyShift(seeds: readonly { first: readonly CaPolicyHead[]; last: readonly CaPolicyHead[] }[]): CaPolicyShiftRow[] {
  if (seeds.length === 0) return [];
  return seeds[0]!.first.flatMap((h, hi) =>
    h.values.map((v, vi) => {
      const p = (heads: readonly CaPolicyHead[]) => heads[hi]!.values[vi]!.meanP;
      const change = seeds.map((s) => p(s.last) - p(s.first));
      return {
        head: h.head,
        value: v.value,
        first: meanInterval(
          seeds.map((s) => p(s.first)),
          0.95,
          [0, 1],
        ),
        last: meanInterval(
          seeds.map((s) => p(s.last)),
          0.95,
          [0, 1],
        ),
        change: meanInterval(change, 0.95, [-1, 1]),
        up: change.filter((c) => c > 0).length,
        down: change.filter((c) => c < 0).length,
      };
    }),
  );
}
