/**
 * IB-RL's schedule (Isolated Bilateral RL, ../shared/seeds/003): both roles train together from
 * joint rollouts, each with everything of its own — reward (r_DA, r_CA), group-normalised
 * advantages within its own groups (Eq. 4), a loss on its own decision points only (the turn
 * mask of Eq. 5), its own optimiser state, learning rate and update frequency. Stabilised by
 * opponent-pool sampling (§5.1) and staggered updates.
 *
 * In a run (core/coevolution/run.machine.ts) a round is: arena match t (the current DA against the
 * current CA: W_DA and the stopping rule, as in RL-ADA), then, when the run goes on, the pool draws
 * the round's pairing and the roles it allows and the stagger schedules train, each in its own gym
 * (host/coevolution/actors.ts `gym`: one GRPO run over that role's decision points of the round's
 * joint rollouts, against the pairing's other member). Nothing here holds state: a round's draw
 * is a function of the run's seed, the round and the run's checkpoints so far, so a resumed run
 * draws what the uninterrupted one drew.
 */
import { deriveSeed, Rng } from '../random';
import { IB_RL_DEFAULTS } from '../presets';
import type { Role } from './stopping';
import type { Schedule } from './run-config';

/** The three pool configurations: both current (p_both), current DA vs a historical CA (p_agent1), a historical DA vs the current CA (p_agent2). */
export type Pairing = 'both-current' | 'historical-ca' | 'historical-da';

export interface PoolProbabilities {
  pBoth: number;
  pDa: number;
  pCa: number;
}

/** One round's draw from the opponent pool: who plays the joint rollouts, and who may train. */
export interface PoolDraw {
  round: number;
  pairing: Pairing;
  /** The DA checkpoint that plays the joint rollouts. */
  da: string;
  /** The CA checkpoint that plays the joint rollouts. */
  ca: string;
  /** The roles the pairing lets train (a historical member never trains). */
  trainable: Role[];
  /** The roles that train this round: the trainable ones whose stagger frequency falls on it. */
  trains: Role[];
  /** Set when the pairing asked for a historical checkpoint and the run had none yet (the current one played). */
  noHistory?: Role;
}

/** The pool and stagger settings of an ib-rl schedule, defaults filled in. */
export function ibRlSettings(schedule: Schedule | undefined): {
  pool: PoolProbabilities;
  daEvery: number;
  caEvery: number;
  daLr?: number;
  caLr?: number;
  rounds?: number;
} {
  const st = schedule?.stagger;
  return {
    pool: { ...(schedule?.pool ?? IB_RL_DEFAULTS.pool) },
    daEvery: st?.daEvery ?? IB_RL_DEFAULTS.stagger.daEvery,
    caEvery: st?.caEvery ?? IB_RL_DEFAULTS.stagger.caEvery,
    ...(st?.daLr !== undefined ? { daLr: st.daLr } : {}),
    ...(st?.caLr !== undefined ? { caLr: st.caLr } : {}),
    ...(schedule?.rounds !== undefined ? { rounds: schedule.rounds } : {}),
  };
}

export function isIbRl(schedule: Schedule | undefined): boolean {
  return schedule?.kind === 'ib-rl';
}

/** Draws discarded at the head of the pool stream: the first outputs of xoroshiro128+ follow its seed closely. */
const WARM_UP = 8;

/**
 * Round `round`'s two uniforms: the round-th pair of the run's pool stream (seeded by the run's
 * seed alone), so a round's draw depends on the seed and the round only, and successive rounds
 * are successive draws of one stream rather than first draws of neighbouring seeds.
 */
function roundUniforms(seed: number, round: number): [number, number] {
  const rng = new Rng(deriveSeed(seed, 'ib-rl-pool'));
  for (let i = 0; i < WARM_UP; i++) rng.next();
  let u: [number, number] = [0, 0];
  for (let r = 1; r <= round; r++) u = [rng.next(), rng.next()];
  return u;
}

function pairingOf(u: number, pool: PoolProbabilities): Pairing {
  if (u < pool.pBoth) return 'both-current';
  if (u < pool.pBoth + pool.pDa) return 'historical-ca';
  return pool.pCa > 0 ? 'historical-da' : pool.pDa > 0 ? 'historical-ca' : 'both-current';
}

/** The pairing of round `round`, drawn from the pool with the run's seed and the round (same seed → same pairing). */
export function drawPairing(seed: number, round: number, pool: PoolProbabilities): Pairing {
  return pairingOf(roundUniforms(seed, round)[0], pool);
}

/**
 * Round `round`'s draw: the pairing, the historical member (uniform over the role's earlier
 * checkpoints of this run, oldest first), and who trains. `history` lists each role's checkpoints
 * in the order the run made them, the current one last.
 */
export function drawRound(seed: number, round: number, schedule: Schedule | undefined, history: Readonly<Record<Role, readonly string[]>>): PoolDraw {
  const s = ibRlSettings(schedule);
  const [uPairing, uMember] = roundUniforms(seed, round);
  const pairing = pairingOf(uPairing, s.pool);
  const current = (r: Role) => history[r].at(-1)!;
  let noHistory: Role | undefined;
  const historical = (r: Role) => {
    const earlier = history[r].slice(0, -1);
    if (!earlier.length) {
      noHistory = r;
      return current(r);
    }
    return earlier[Math.floor(uMember * earlier.length)]!;
  };
  const da = pairing === 'historical-da' ? historical('DA') : current('DA');
  const ca = pairing === 'historical-ca' ? historical('CA') : current('CA');
  const trainable: Role[] = pairing === 'both-current' ? ['DA', 'CA'] : pairing === 'historical-ca' ? ['DA'] : ['CA'];
  const every = { DA: s.daEvery, CA: s.caEvery };
  const trains = trainable.filter((r) => round % every[r] === 0);
  return { round, pairing, da, ca, trainable, trains, ...(noHistory ? { noHistory } : {}) };
}

/** The draw in words, for the match's schedule note and the gym's checkpoint note. */
export function describeDraw(d: PoolDraw): string {
  const who =
    d.pairing === 'both-current'
      ? `both current (${d.da} vs ${d.ca})`
      : d.pairing === 'historical-ca'
        ? `current DA vs historical CA (${d.da} vs ${d.ca})`
        : `historical DA vs current CA (${d.da} vs ${d.ca})`;
  const skipped = d.trainable.filter((r) => !d.trains.includes(r));
  return (
    `IB-RL round ${d.round}: pool drew ${who}${d.noHistory ? ` — no historical ${d.noHistory} yet, the current one played` : ''}; ` +
    (d.trains.length ? `${d.trains.join(' and ')} train${d.trains.length === 1 ? 's' : ''}` : 'no update') +
    (skipped.length ? ` (${skipped.join(', ')} skipped by the stagger)` : '')
  );
}

/** IB-RL's stopping: a fixed number of rounds, when set; stop at arena match t once t − 1 rounds were played. */
export function roundsDone(matchIndex: number): number {
  return matchIndex - 1;
}
