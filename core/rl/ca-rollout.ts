/**
 * The CA gym's samples and reward (RL-ADA §3.3, §3.5): the mirror of `da-rollout.ts`.
 *
 * A CA decision point is (scenario, episode seed, the episode up to one customer turn), with the
 * customer's observation (its hidden intent, its facts and the spoken dialogue) as the prompt. A
 * candidate CaChoice is rendered into words, forced, and the rest of the episode is played by
 * the frozen DA against the CA being trained (greedy); the reward is r_CA of the whole episode:
 * format + realism + conceal + inverse-DA, where the inverse-DA term — a misroute — dominates.
 */
import type { CaChoice } from '../agents/ca-choices';
import { renderCaChoice } from '../agents/ca-choices';
import type { SparringConfig } from '../config';
import type { Domain, Scenario } from '../domain/types';
import { Rng } from '../random';
import { caRewards } from '../rewards/ca-reward';
import { CustomerEnvironment } from '../world/environment';
import type { CaObservation } from '../world/environment';
import type { AgentTurn, Transcript } from '../world/transcript';
import type { DaActor, RecordedEpisode, RecordedMove } from './da-rollout';
import type { GrpoReward } from './grpo';
import type { PolicyModel } from './ports';

export interface CaDecisionPoint {
  scenario: Scenario;
  seed: number;
  prefix: readonly RecordedMove[];
  obs: CaObservation;
  source: { episodeId: string | null; turnIndex: number };
  /** Did the CA win the recorded episode (the DA misrouted)? */
  caWon: boolean | null;
}

function replayMove(env: CustomerEnvironment, move: RecordedMove, where: string, i: number): void {
  if (move.role !== env.state().next) throw new Error(`${where}: move ${i} is the ${move.role}'s, but the replay expects the ${env.state().next}'s`);
  if (move.role === 'customer') env.step({ role: 'customer', text: move.text });
  else {
    const r = env.step({ role: 'agent', raw: move.raw });
    const got = (r.turn as AgentTurn).toolResult ?? null;
    if (move.toolResult !== undefined && JSON.stringify(move.toolResult ?? null) !== JSON.stringify(got)) {
      throw new Error(`${where}: replaying move ${i} gave a different tool result than recorded; the world changed since it was played`);
    }
  }
}

/** One decision point per customer turn, each with the customer's view of all prior dialogue. */
export function sliceCaDecisionPoints(ep: RecordedEpisode, maxDaTurns: number): CaDecisionPoint[] {
  const where = ep.id !== null ? `episode ${ep.id}` : `an episode of scenario '${ep.scenario.id}'`;
  const env = new CustomerEnvironment(maxDaTurns);
  env.reset(ep.scenario, ep.seed);
  const points: CaDecisionPoint[] = [];
  ep.moves.forEach((move, i) => {
    if (env.state().done) throw new Error(`${where}: the replay ended before move ${i}`);
    if (move.role === 'customer') {
      const o = env.observeCustomer();
      points.push({
        scenario: ep.scenario,
        seed: ep.seed,
        prefix: ep.moves.slice(0, i),
        obs: { ...o, dialogue: o.dialogue.slice() },
        source: { episodeId: ep.id, turnIndex: i },
        caWon: ep.daWon === null ? null : !ep.daWon,
      });
    }
    replayMove(env, move, where, i);
  });
  return points;
}

/** Is this the customer's first utterance of its episode (the opening)? */
export function isOpeningPoint(point: Pick<CaDecisionPoint, 'prefix'>): boolean {
  return point.prefix.every((m) => m.role !== 'customer');
}

/** The CA that plays the customer's later turns: observations in, utterances out. */
export type CaActor = (batch: readonly { obs: CaObservation; rng: Rng }[]) => Promise<string[]>;

/** The current CA model, greedy, rendered from the bank. */
export function greedyCaActor(model: Pick<PolicyModel<CaObservation, CaChoice>, 'greedy'>, domain: Pick<Domain, 'bank'>): CaActor {
  return async (batch) => {
    const picks = await model.greedy(batch.map((b) => b.obs));
    return picks.map((p, i) => renderCaChoice(p.action, batch[i]!.obs, domain.bank, batch[i]!.rng));
  };
}

export interface CaRolloutWorld {
  config: Pick<SparringConfig, 'caReward' | 'arena'>;
  domain: Pick<Domain, 'bank' | 'taxonomy'>;
  /** The frozen DA. */
  da: DaActor;
}

export interface CaRollout {
  transcript: Transcript;
  /** r_CA of the whole episode. */
  rCa: number;
  /**
   * The GRPO reward of the forced utterance: its own r_format, r_realism and r_conceal, plus the
   * episode's r_inv-DA (booked on the opening turn). Later turns' shaping terms are left out, as
   * for the DA (`da-rollout.ts`).
   */
  decisionReward: number;
}

/** `point`'s episode replayed up to its customer turn, kept in `into` for the point's other candidates. */
function replayPrefix(point: CaDecisionPoint, maxDaTurns: number, into: Map<CaDecisionPoint, CustomerEnvironment>): CustomerEnvironment {
  const where = point.source.episodeId ? `episode ${point.source.episodeId}` : `a decision point of scenario '${point.scenario.id}'`;
  const env = new CustomerEnvironment(maxDaTurns);
  env.reset(point.scenario, point.seed);
  point.prefix.forEach((m, i) => replayMove(env, m, where, i));
  into.set(point, env);
  return env;
}

/** Replays each prefix, forces the rendered choice, and plays every episode out in lock-step. */
export async function rolloutCa(world: CaRolloutWorld, ca: CaActor, items: readonly { point: CaDecisionPoint; choice: CaChoice }[]): Promise<CaRollout[]> {
  const maxDaTurns = world.config.arena.maxDaTurns;
  // Each point's prefix is replayed once; its candidates start from copies.
  const replayed = new Map<CaDecisionPoint, CustomerEnvironment>();
  const live = items.map(({ point, choice }) => {
    const env = (replayed.get(point) ?? replayPrefix(point, maxDaTurns, replayed)).clone();
    const root = new Rng(point.seed);
    // The same (point, choice) always renders the same words, so a group may score each distinct choice once.
    const text = renderCaChoice(choice, env.observeCustomer(), world.domain.bank, root.fork('ca-gym', point.source.turnIndex));
    env.step({ role: 'customer', text });
    return { env, daRng: root.fork('da'), caRng: root.fork('ca', 'rollout', point.source.turnIndex) };
  });
  for (;;) {
    const agents = live.filter((l) => l.env.state().next === 'agent');
    if (agents.length > 0) {
      const raws = await world.da(agents.map((l) => ({ obs: l.env.observeAgent(), rng: l.daRng })));
      agents.forEach((l, i) => l.env.step({ role: 'agent', raw: raws[i]! }));
    }
    const customers = live.filter((l) => l.env.state().next === 'customer');
    if (customers.length > 0) {
      const texts = await ca(customers.map((l) => ({ obs: l.env.observeCustomer(), rng: l.caRng })));
      customers.forEach((l, i) => l.env.step({ role: 'customer', text: texts[i]! }));
    }
    if (live.every((l) => l.env.state().done)) break;
  }
  return live.map(({ env }, n) => {
    const transcript = env.transcript();
    const reveals = world.domain.taxonomy.find((e) => e.intent === transcript.intent)?.reveals ?? [];
    const r = caRewards(transcript, reveals, world.config.caReward);
    const own = r.perTurn.get(items[n]!.point.prefix.length) ?? {};
    const decision = (own.format ?? 0) + (own.realism ?? 0) + (own.conceal ?? 0) + r.total.inv_da;
    return { transcript, rCa: r.rCa, decisionReward: decision };
  });
}

/** The CA gym's GRPO reward of a candidate choice (see `CaRollout.decisionReward`). */
export function caRolloutReward(world: CaRolloutWorld, ca: CaActor): GrpoReward<CaDecisionPoint, CaChoice> {
  return {
    async batch(items) {
      const out = await rolloutCa(
        world,
        ca,
        items.map(({ prompt, action }) => ({ point: prompt, choice: action })),
      );
      return out.map((r) => r.decisionReward);
    },
  };
}
