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
