/**
 * `sparring gym export RUN --gym N`: the decision points isolation gym N of a run trains on (or
 * would train on, for the gym the run is about to start), for an external trainer. The same
 * episodes as the gym (gymEpisodes: the match's transcripts 70:30 failure/success, human episodes
 * of the mix) through the same sliding-window slicer (core/rl/da-rollout.ts, ca-rollout.ts), one
 * JSON line per decision point: the prompt in the OpenAI chat format, and the reset that brings
 * `sparring env serve` to that point (seed, scenario and the learner's earlier turns to replay)
 * against the gym's frozen opponent, so the trainer rolls the rest of the episode out there and
 * reads r_env (RL-ADA §3.5) from the server's reward.
 *
 * An IB-RL gym (schedule kind 'ib-rl') trains on every trajectory of its round's joint rollouts
 * (no failure mix) against the pool's other member: its export is those decision points, with
 * `match_id` the joint rollouts' id (`RUN-J<round>`, or the arena match when both current
 * checkpoints played) and `frozen_opponent` that member. Joint rollouts not yet played (the gym
 * plays them when it starts) are refused by name.
 */
import type { GymSummary, MatchSummary } from '../../core/coevolution/run.machine';
import { parseRunConfig, sparringConfigOf } from '../../core/coevolution/run-config';
import type { Domain } from '../../core/domain/types';
import { sliceCaDecisionPoints } from '../../core/rl/ca-rollout';
import { sliceDecisionPoints } from '../../core/rl/da-rollout';
import type { RecordedEpisode, RecordedMove } from '../../core/rl/da-rollout';
import { withAdversityProfile } from '../../core/world/adversities';
import { observationView } from '../env/protocol';
import type { SqliteRunStore } from '../store/sqlite-store';
import type { SparringConfig } from '../../core/config';
import { gymEpisodes, runDomain, trainingDomain } from './actors';
import { createRunReader } from './run-reader';

/** One decision point, one JSONL line. */
export interface GymPoint {
  run: string;
  gym: number;
  /** The training role. */
  role: 'DA' | 'CA';
  /** The checkpoint the gym trains from, and the frozen opponent it trains against. */
  from: string;
  frozen_opponent: string;
  match_id: string;
  /** The recorded episode and its origin: the match (arena) or a human-played episode of the mix. */
  episode_id: string | null;
  source: 'arena' | 'human';
  /** From the training role's point of view: did it lose the recorded episode (the 70 of 70:30)? */
  trainer_lost: boolean | null;
  scenario: string;
  seed: number;
  /** Index of the decided turn in the recorded episode. */
  turn: number;
  /** The prompt: the learner's view as chat messages and its tools (the DA's functions, the CA's say), as the server shows it. */
  prompt: { messages: unknown[]; tools?: unknown[] };
  /** What the recorded policy did here. */
  original: string;
  /**
   * The reset that brings `env serve` to this point: `{"type": "reset", "data": reset}`: the
   * learner's recorded turns to replay and the opponent's recorded turns said in its place, so the
   * point's dialogue is the recorded one even when the frozen opponent is not the checkpoint that
   * played the match (a CA gym after the DA's gym of the same round).
   */
  reset: { seed: number; scenario: string; replay: string[]; opponent_replay: string[] };
}

export interface GymExport {
  gym: number;
  role: 'DA' | 'CA';
  from: string;
  opponent: string;
  matchId: string;
  /** The gym has run (its checkpoint) or is the run's next one (null). */
  to: string | null;
  episodes: { failures: number; successes: number; human: number };
  points: GymPoint[];
  /** The command that serves the gym's world. */
  serve: string;
}

/**
 * The world a run's matches and gyms were played in, for `env serve --run`: its reward and arena
 * config, its adversities, and the bank its training CAs speak from (trainingDomain: the train
 * slice of DA0's SFT split), so a gym export's resets replay the run's episodes exactly.
 */
export function runWorld(
  store: SqliteRunStore,
  domain: Domain,
  runId: string,
): { domain: Domain; caDomain: Domain; config: SparringConfig; adversities: boolean; seed: number } {
  const run = createRunReader(store.db, store.path, () => undefined).get(runId);
  const config = parseRunConfig(run.configJson, `run ${runId} config`);
  // As the run played it (runDomain): its adversity profile and rates, its validation slice kept out.
  const played = runDomain(domain, config, run.seed);
  return {
    domain: played,
    caDomain: trainingDomain({ domain: played, seed: run.seed }),
    config: sparringConfigOf(config),
    adversities: Boolean(config.adversities),
    seed: run.seed,
  };
}

/** One seat's turns of a recorded episode before move `i` (a DA's raw outputs, a customer's words): what a reset replays. */
function seatTurns(moves: readonly RecordedMove[], i: number, role: 'DA' | 'CA'): string[] {
  return moves.slice(0, i).flatMap((m) => (role === 'DA' ? (m.role === 'agent' ? [m.raw] : []) : m.role === 'customer' ? [m.text] : []));
}

/** The reset of the decision point at move `i` of `e` for the learning `role`. */
function resetAt(e: RecordedEpisode, i: number, role: 'DA' | 'CA'): GymPoint['reset'] {
  return {
    // OpenEnv reset seeds are >= 0; the server reads them modulo 2^32, so this replays the signed arena seed.
    seed: e.seed >>> 0,
    scenario: e.scenario.id,
    replay: seatTurns(e.moves, i, role),
    opponent_replay: seatTurns(e.moves, i, role === 'DA' ? 'CA' : 'DA'),
  };
}

export async function exportGym(store: SqliteRunStore, domain: Domain, runId: string, gymNumber: number): Promise<GymExport> {
  const reader = createRunReader(store.db, store.path, () => undefined);
  const run = reader.get(runId);
  const config = parseRunConfig(run.configJson, `run ${runId} config`);
  const sparring = sparringConfigOf(config);
  const gyms: GymSummary[] = run.gyms;
  const matches: MatchSummary[] = run.matchSummaries;
  if (!Number.isInteger(gymNumber) || gymNumber < 1) throw new Error(`--gym must be a positive integer, got ${gymNumber}`);
  // Gym N is a gym the run has done, or the next one it plans after its latest match (a schedule
  // may plan several after one match: RunConfig.schedule; older runs, RL-ADA's weaker agent).
  const last = matches.at(-1);
  const doneAfterLast = last ? gyms.filter((g) => g.afterMatch === last.index) : [];
  const planned = last ? (last.gyms ?? (last.next ? [last.next.role] : []))[doneAfterLast.length] : undefined;
  const target: { role: 'DA' | 'CA'; afterMatch: number; to: string | null; pool?: GymSummary['pool'] } | undefined =
    gymNumber <= gyms.length
      ? gyms[gymNumber - 1]!
      : gymNumber === gyms.length + 1 && planned && last
        ? {
            role: planned,
            afterMatch: last.index,
            to: null,
            // IB-RL: the round's draw names the joint rollouts and the frozen opponent (run.machine.ts ibRlGym).
            ...(last.pool
              ? {
                  pool: {
                    round: last.pool.round,
                    pairing: last.pool.pairing,
                    da: last.pool.da,
                    ca: last.pool.ca,
                    opponent: planned === 'DA' ? last.pool.ca : last.pool.da,
                  },
                }
              : {}),
          }
        : undefined;
  if (!target) {
    throw new Error(
      `run ${runId} has ${gyms.length} gym${gyms.length === 1 ? '' : 's'}${planned ? ` and gym ${gyms.length + 1} is next` : ''}; gym ${gymNumber} does not exist`,
    );
  }
  const match = matches.find((m) => m.index === target.afterMatch);
  if (!match) throw new Error(`run ${runId}: gym ${gymNumber} follows match ${target.afterMatch}, which the run does not list`);
  // The checkpoints in play when the gym started: the match's, as the gyms before it after the same match left them.
  let da = match.da;
  let ca = match.ca;
  for (const g of gyms.slice(0, gymNumber - 1)) {
    if (g.afterMatch !== match.index) continue;
    if (g.role === 'DA') da = g.to;
    else ca = g.to;
  }
  const role = target.role;
  const from = role === 'DA' ? da : ca;
  const to = target.to;
  // IB-RL: the update trains on every trajectory of the round's joint rollouts (the arena match
  // itself when both current checkpoints played, else RUN-J<round>, which the gym plays when it
  // starts), against the pairing's other member; RL-ADA: the match, mixed failure:success.
  const pool = target.pool;
  const opponent = pool ? pool.opponent : role === 'DA' ? ca : da;
  const dataId = pool && pool.pairing !== 'both-current' ? `${runId}-J${pool.round}` : match.matchId;
  if (pool && !store.getMatch(dataId)) {
    throw new Error(
      `run ${runId}: gym ${gymNumber} is IB-RL round ${pool.round}'s ${role} update, which trains on the round's joint rollouts ${dataId} ` +
        `(${pool.da} vs ${pool.ca}); they are not played yet — the gym plays them when it starts, so export it once it has`,
    );
  }
  const playDomain = config.adversities ? withAdversityProfile(domain) : domain;
  const chosen = await gymEpisodes(
    { store, domain: playDomain, config },
    {
      role,
      matchId: dataId,
      seed: run.seed,
      afterMatch: match.index,
      ...(pool ? { ibRl: { round: pool.round, pairing: pool.pairing, da: pool.da, ca: pool.ca } } : {}),
    },
  );
  const human = (e: RecordedEpisode) => e.id === null || !e.id.startsWith(`${dataId}:`);
  const lost = (e: RecordedEpisode) => (e.daWon === null ? null : role === 'DA' ? !e.daWon : e.daWon);

  const points: GymPoint[] = [];
  for (const e of chosen) {
    const common = {
      run: runId,
      gym: gymNumber,
      role,
      from,
      frozen_opponent: opponent,
      match_id: dataId,
      episode_id: e.id,
      source: human(e) ? ('human' as const) : ('arena' as const),
      trainer_lost: lost(e),
      scenario: e.scenario.id,
      seed: e.seed,
    };
    if (role === 'DA') {
      for (const p of sliceDecisionPoints(e, sparring.arena.maxDaTurns)) {
        const view = observationView({ role: 'DA', view: p.obs }, p.scenario, true);
        points.push({
          ...common,
          turn: p.source.turnIndex,
          prompt: { messages: view.messages as unknown[], tools: view.tools as unknown[] },
          original: p.original.raw,
          reset: resetAt(e, p.source.turnIndex, 'DA'),
        });
      }
    } else {
      for (const p of sliceCaDecisionPoints(e, sparring.arena.maxDaTurns)) {
        const view = observationView({ role: 'CA', view: p.obs }, p.scenario, true);
        const move = e.moves[p.source.turnIndex]!;
        points.push({
          ...common,
          turn: p.source.turnIndex,
          prompt: { messages: view.messages as unknown[], tools: view.tools as unknown[] },
          original: move.role === 'customer' ? move.text : '',
          reset: resetAt(e, p.source.turnIndex, 'CA'),
        });
      }
    }
  }
  const arena = chosen.filter((e) => !human(e));
  return {
    gym: gymNumber,
    role,
    from,
    opponent,
    matchId: dataId,
    to,
    episodes: {
      failures: arena.filter((e) => lost(e) === true).length,
      successes: arena.filter((e) => lost(e) === false).length,
      human: chosen.length - arena.length,
    },
    points,
    serve: `npx sparring env serve --role ${role} --opponent ${opponent} --run ${runId} --db ${store.path}`,
  };
}
