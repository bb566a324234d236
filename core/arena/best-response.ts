/**
 * How much the CA's action space allows against a frozen DA, next to what the CA plays: a bound
 * that tells a CA that has not learned apart from a CA that has nothing left to find.
 *
 * For every episode of a match, the CA's opening is replaced by each choice of the action space
 * in turn (`allCaChoices`, 8,640) and the episode is played out (host/engine/best-response.ts);
 * a choice wins when the DA misroutes. From that win matrix:
 * - W_DA against the CA's own greedy opening (the same replay, so comparable with the others);
 * - W_DA against a CA that says one opening per intent, chosen on half of that intent's episodes
 *   and scored on the other half (2-fold, both ways): a policy that conditions on the intent
 *   only, with no selection bias (choosing the best of 8,640 on the same episodes it is scored on
 *   would overstate it; an intent with one episode counts as the DA's);
 * - W_DA against a per-episode oracle (any winning choice counts): the action space's floor;
 * - per head and value, the share of (episode, choice) cells that win with that value, their mean
 *   gym reward (r_CA's terms of the opening plus the episode's inverse-DA term: what the CA's gym
 *   optimises), the CA's win rate when its own greedy opening changes in that head alone (a
 *   one-step deviation: is the CA at a local optimum?), and the share of episodes whose greedy
 *   opening has it: which factor the CA sits on against which pays.
 */
import { allCaChoices, CA_HEADS, caHeadValue } from '../agents/ca-choices';
import type { CaChoice } from '../agents/ca-choices';

/** One episode's opening, tried with every choice of `choices`. */
export interface BestResponseEpisode {
  intent: string;
  /** wins[c] = 1 when choice c misroutes the DA (the CA wins), else 0. */
  wins: ArrayLike<number>;
  /** Index in `choices` of the CA's own greedy opening. */
  greedy: number;
  /** rewards[c]: the CA gym's reward of choice c (its opening's r_format + r_realism + r_conceal, plus the episode's r_inv-DA); optional. */
  rewards?: ArrayLike<number>;
}

export interface BestResponseFactor {
  head: string;
  /**
   * meanReward: the mean gym reward of the value's cells (NaN without rewards); deviation: the CA's
   * win rate when its greedy opening is kept but this head set to this value (NaN when such an
   * opening is not among the choices).
   */
  values: { value: string; winRate: number; meanReward: number; deviation: number; greedyShare: number }[];
}

export interface BestResponseSummary {
  episodes: number;
  choices: number;
  /** W_DA when the CA opens with its greedy choice (this replay). */
  wDaGreedy: number;
  /** W_DA against one opening per intent, chosen on the other half of the intent's episodes. */
  wDaPerIntent: number;
  /**
   * W_DA against one opening per intent chosen, the same 2-fold way, by the gym's mean reward
   * instead of its wins: where the CA's own reward points. Near wDaGreedy, the reward terms besides
   * inverse-DA hold the CA where it is; near wDaPerIntent, the reward points at the drops and the
   * gym does not find them. NaN without rewards.
   */
  wDaPerIntentByReward: number;
  /**
   * The mean gym reward (r_CA's terms of the opening plus the episode's inverse-DA term) of the
   * greedy openings and, on the scoring halves, of the two per-intent openings above (NaN without
   * rewards): what the gym would gain by moving there.
   */
  gymReward: { greedy: number; perIntent: number; perIntentByReward: number };
  /** W_DA against the per-episode oracle: the share of episodes no choice wins. */
  wDaOracle: number;
  /** Mean share of choices that win an episode (a uniformly random opening's CA win rate). */
  meanWinShare: number;
  factors: BestResponseFactor[];
}

/** The figures of the module comment from a win matrix; `choices` are the columns (default: all). */
export function summariseBestResponse(rows: readonly BestResponseEpisode[], choices: readonly CaChoice[] = allCaChoices()): BestResponseSummary {
  if (rows.length === 0) throw new Error('best response: the match has no episodes to replay');
  const C = choices.length;
  for (const [i, r] of rows.entries()) {
    if (r.wins.length !== C) throw new Error(`best response: episode ${i} has ${r.wins.length} results for ${C} choices`);
    if (!Number.isInteger(r.greedy) || r.greedy < 0 || r.greedy >= C)
      throw new Error(`best response: episode ${i}'s greedy choice ${r.greedy} is not one of the ${C}`);
  }
  const n = rows.length;
  const greedyWins = rows.reduce((s, r) => s + r.wins[r.greedy]!, 0);
  let oracleWins = 0;
  let share = 0;
  for (const r of rows) {
    let k = 0;
    for (let c = 0; c < C; c++) k += r.wins[c]!;
    if (k > 0) oracleWins++;
    share += k / C;
  }
  const haveRewards = rows.every((r) => r.rewards);
  const winsOf = (r: BestResponseEpisode, c: number) => r.wins[c]!;
  const rewardOf = (r: BestResponseEpisode, c: number) => r.rewards![c]!;
  const perIntentByWins = perIntent2Fold(rows, C, winsOf);
  const perIntentByReward = haveRewards ? perIntent2Fold(rows, C, rewardOf) : null;
  const column = new Map(choices.map((c, i) => [choiceKey(c), i]));
  const factors = CA_HEADS.map((h): BestResponseFactor => {
    const valueOf = (c: CaChoice) => caHeadValue(c, h.name);
    return {
      head: h.name,
      values: (h.values as readonly unknown[]).map((v) => {
        const cols = choices.flatMap((c, i) => (valueOf(c) === v ? [i] : []));
        const cells = cols.length * n;
        const wins = rows.reduce((s, r) => s + cols.reduce((t, c) => t + r.wins[c]!, 0), 0);
        const reward = haveRewards ? rows.reduce((s, r) => s + cols.reduce((t, c) => t + r.rewards![c]!, 0), 0) : Number.NaN;
        const greedy = rows.filter((r) => valueOf(choices[r.greedy]!) === v).length;
        let deviation = 0;
        for (const r of rows) {
          const c = column.get(choiceKey({ ...choices[r.greedy]!, [h.name]: v }));
          deviation = c === undefined ? Number.NaN : deviation + r.wins[c]!;
        }
        return {
          value: String(v),
          winRate: cells > 0 ? wins / cells : Number.NaN,
          meanReward: cells > 0 ? reward / cells : Number.NaN,
          deviation: deviation / n,
          greedyShare: greedy / n,
        };
      }),
    };
  });
  return {
    episodes: n,
    choices: C,
    wDaGreedy: 1 - greedyWins / n,
    wDaPerIntent: 1 - perIntentByWins.wins / n,
    wDaPerIntentByReward: perIntentByReward ? 1 - perIntentByReward.wins / n : Number.NaN,
    gymReward: {
      greedy: haveRewards ? rows.reduce((s, r) => s + r.rewards![r.greedy]!, 0) / n : Number.NaN,
      perIntent: haveRewards ? perIntentByWins.reward / n : Number.NaN,
      perIntentByReward: perIntentByReward ? perIntentByReward.reward / n : Number.NaN,
    },
    wDaOracle: 1 - oracleWins / n,
    meanWinShare: share / n,
    factors,
  };
}

/** A choice's identity (a head left out reads as its first value: `caHeadValue`). */
export function choiceKey(c: CaChoice): string {
  return CA_HEADS.map((h) => String(caHeadValue(c, h.name))).join('|');
}

/**
 * One opening per intent, 2-fold: episodes alternate between the folds in match order; the choice
 * with the highest total `score` on one fold is scored on the other, both ways. Returns the CA's
 * wins and the summed gym reward (when the rows have rewards) over the scored episodes. An intent
 * with a single episode has nothing to choose on: it counts as the DA's, with no reward.
 */
function perIntent2Fold(
  rows: readonly BestResponseEpisode[],
  C: number,
  score: (r: BestResponseEpisode, c: number) => number,
): { wins: number; reward: number } {
  const byIntent = new Map<string, BestResponseEpisode[]>();
  for (const r of rows) byIntent.set(r.intent, [...(byIntent.get(r.intent) ?? []), r]);
  let wins = 0;
  let reward = 0;
  for (const eps of byIntent.values()) {
    const folds = [eps.filter((_, i) => i % 2 === 0), eps.filter((_, i) => i % 2 === 1)];
    for (const [choose, scored] of [
      [0, 1],
      [1, 0],
    ] as const) {
      if (folds[choose]!.length === 0 || folds[scored]!.length === 0) continue;
      const best = bestChoice(folds[choose]!, C, score);
      for (const r of folds[scored]!) {
        wins += r.wins[best]!;
        reward += r.rewards ? r.rewards[best]! : 0;
      }
    }
  }
  return { wins, reward };
}

/** The choice with the highest total `score` over `rows` (the first on ties). */
function bestChoice(rows: readonly BestResponseEpisode[], C: number, score: (r: BestResponseEpisode, c: number) => number): number {
  let best = 0;
  let bestTotal = -Infinity;
  for (let c = 0; c < C; c++) {
    const t = rows.reduce((s, r) => s + score(r, c), 0);
    if (t > bestTotal) [best, bestTotal] = [c, t];
  }
  return best;
}
