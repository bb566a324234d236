/**
 * One episode seen from one seat: the learning role's turns come from outside (an external
 * trainer, through the environment server in host/env/), the other seat is a frozen opponent
 * policy played in process. It is `runEpisode` (core/arena/match.ts) cut at the learner's turns:
 * the same environment, the same seeded streams (`root.fork('da')`, `root.fork('ca')`), the same
 * judge and reward terms, so a learner that answers as a policy would have answered plays exactly
 * the arena's episode for that seed and scenario.
 */
import type { CaPolicy, DaPolicy } from '../agents/policy';
import type { SparringConfig } from '../config';
import type { Domain, Scenario } from '../domain/types';
import type { EpisodeOutcome, Judge } from '../arena/match';
import { scoreEpisode } from '../arena/match';
import { Rng } from '../random';
import { CustomerEnvironment } from '../world/environment';
import type { CaObservation, DaObservation, EnvState } from '../world/environment';

/** The role being trained: the support agent or the customer. */
export type LearnerRole = 'DA' | 'CA';

export type Opponent = { role: 'CA'; policy: CaPolicy } | { role: 'DA'; policy: DaPolicy };

export interface LearnerEpisodeArgs {
  domain: Domain;
  config: SparringConfig;
  judge: Judge;
  scenario: Scenario;
  seed: number;
  /** The frozen opponent: a CA when the DA learns, a DA when the CA learns. */
  opponent: Opponent;
  /** Where the finished episode goes in the lab: match id and position. */
  matchId: string;
  index: number;
  /**
   * The opponent's recorded turns of a replayed prefix (a gym export's `opponent_replay`): said
   * in its place, in order, before it is asked to move, so a decision point shows the recorded
   * dialogue whoever the frozen opponent is now — as the builtin gyms replay a recorded prefix
   * (core/rl/da-rollout.ts, ca-rollout.ts) and only then let the current frozen opponent play
   * (RL-ADA §3.5: a CA gym after a DA gym of the same round plays the new DA against the match's
   * recorded prefix). Its random stream stands where those gyms leave it: a frozen CA is asked for
   * each recorded customer turn and its words discarded (da-rollout's 'replay' stream); a frozen
   * DA is not asked (ca-rollout's fresh `da` stream).
   */
  opponentTurns?: readonly string[];
}

export type LearnerObservation = { role: 'DA'; view: DaObservation } | { role: 'CA'; view: CaObservation };

export class LearnerEpisode {
  readonly learner: LearnerRole;
  private readonly env: CustomerEnvironment;
  private readonly opponentRng: Rng;
  private outcomeValue: EpisodeOutcome | null = null;
  /** Recorded opponent turns not yet said (see LearnerEpisodeArgs.opponentTurns). */
  private readonly forced: string[];
  /** Learner actions taken so far. */
  steps = 0;

  private constructor(private readonly a: LearnerEpisodeArgs) {
    this.learner = a.opponent.role === 'CA' ? 'DA' : 'CA';
    this.env = new CustomerEnvironment(a.config.arena.maxDaTurns);
    this.env.reset(a.scenario, a.seed);
    // The streams runEpisode forks, in its order, so the opponent draws exactly what it would there.
    const root = new Rng(a.seed);
    const daRng = root.fork('da');
    const caRng = root.fork('ca');
    this.opponentRng = a.opponent.role === 'DA' ? daRng : caRng;
    this.forced = [...(a.opponentTurns ?? [])];
  }

  /** Recorded opponent turns given at the start and not yet said. */
  get opponentTurnsLeft(): number {
    return this.forced.length;
  }

  /** Reset to the scenario and seed, and play the opponent until the learner is to move. */
  static async start(a: LearnerEpisodeArgs): Promise<LearnerEpisode> {
    const ep = new LearnerEpisode(a);
    await ep.playOpponent();
    return ep;
  }

  get done(): boolean {
    return this.env.state().done;
  }

  get scenario(): Scenario {
    return this.a.scenario;
  }

  get seed(): number {
    return this.a.seed;
  }

  /** The environment's full state (host side only: never shown to the learner as is). */
  state(): Readonly<EnvState> {
    return this.env.state();
  }

  /** The learner's own view: the DA's (caller id, dialogue, its outputs and tool results) or the CA's (intent, persona facts, spoken dialogue). */
  observe(): LearnerObservation {
    return this.learner === 'DA' ? { role: 'DA', view: this.env.observeAgent() } : { role: 'CA', view: this.env.observeCustomer() };
  }

  /** The judged, rewarded episode once it is over. */
  get outcome(): EpisodeOutcome | null {
    return this.outcomeValue;
  }

  /**
   * The learner's turn: a DA output in the wire format (it may be unparseable, which the world
   * answers as it does any DA's) or the customer's utterance. The opponent then plays until the
   * learner is to move again or the episode ends; then the episode is judged and rewarded.
   */
  async act(text: string): Promise<void> {
    if (this.done) throw new Error('the episode is over; reset to start another');
    this.steps++;
    if (this.learner === 'DA') this.env.step({ role: 'agent', raw: text });
    else this.env.step({ role: 'customer', text });
    await this.playOpponent();
  }

  private async playOpponent(): Promise<void> {
    const learnerSeat = this.learner === 'DA' ? 'agent' : 'customer';
    const o = this.a.opponent;
    for (let next = this.env.state().next; next !== null && next !== learnerSeat;) {
      const recorded = this.forced.shift();
      let r;
      if (o.role === 'CA') {
        const said = await o.policy.speak(this.env.observeCustomer(), this.opponentRng);
        r = this.env.step({ role: 'customer', text: recorded ?? said });
      } else {
        r = this.env.step({ role: 'agent', raw: recorded ?? (await o.policy.act(this.env.observeAgent(), this.opponentRng)) });
      }
      next = r.next;
    }
    if (this.done && !this.outcomeValue) {
      const { domain, scenario, seed, judge, config, matchId, index } = this.a;
      this.outcomeValue = scoreEpisode({ domain, scenario, seed, judge, config, matchId, index }, this.env.transcript());
    }
  }
}
