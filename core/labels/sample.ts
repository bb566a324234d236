/**
 * Stratified sampling of a labelling queue: up to n items per match, spread evenly over the
 * match's scenarios (round robin over the scenarios, a seeded random item within each), then the
 * whole queue shuffled so that items of one match do not arrive together — the annotator should
 * not be able to tell matches (or the CA checkpoint) apart by their order.
 */
import { Rng } from '../random';

export interface Candidate {
  matchId: string;
  scenarioId: string;
  episodeId: string;
}

function shuffle<T>(xs: T[], rng: Rng): T[] {
  for (let i = xs.length - 1; i > 0; i--) {
    const j = rng.int(0, i);
    [xs[i], xs[j]] = [xs[j]!, xs[i]!];
  }
  return xs;
}

export function sampleQueue<C extends Candidate>(candidates: readonly C[], perMatch: number, seed: number): C[] {
  if (!Number.isInteger(perMatch) || perMatch < 1) throw new Error(`sampleQueue: perMatch must be a positive integer, got ${perMatch}`);
  const rng = new Rng(seed);
  const byMatch = new Map<string, Map<string, C[]>>();
  for (const c of candidates) {
    const strata = byMatch.get(c.matchId) ?? new Map<string, C[]>();
    strata.set(c.scenarioId, [...(strata.get(c.scenarioId) ?? []), c]);
    byMatch.set(c.matchId, strata);
  }
  const picked: C[] = [];
  for (const [matchId, strata] of byMatch) {
    const r = rng.fork(matchId);
    const pools = [...strata.keys()].sort().map((s) => shuffle([...strata.get(s)!], r.fork(s)));
    for (let taken = 0, round = 0; taken < perMatch && pools.some((p) => p.length > round); round++) {
      for (const p of pools) {
        if (taken >= perMatch) break;
        if (round < p.length) {
          picked.push(p[round]!);
          taken++;
        }
      }
    }
  }
  return shuffle(picked, rng.fork('order'));
}
