/**
 * The DA gym's samples and reward (RL-ADA §3.3, §3.5).
 *
 * A decision point is (scenario, episode seed, the episode up to one DA turn): the prompt of one
 * GRPO sample, with all prior dialogue as the DA's observation. The sliding-window slicer turns a
 * recorded episode into one decision point per DA turn.
 *
 * A candidate action at a decision point is scored by r_DA of the whole episode it leads to:
 * the environment is rebuilt by replaying the prefix (it is deterministic from its seed and the
 * actions taken: reset(scenario, seed), then the recorded customer texts and agent outputs), the
 * candidate is forced, and the rest of the episode is rolled out with a given DA (the current
 * policy, greedy) against the frozen CA, then judged — "r_env from a full environment rollout of
 * the rest of the episode against the frozen opponent". Terms earned in the prefix are the same
 * for every candidate of a point, so they shift a GRPO group's rewards without changing Â.
 *
 * Many rollouts run in lock-step, so each DA move of all of them is one batched policy call; the
 * finished rollouts of a batch are then judged together, so an LLM judge's calls overlap.
 */
import type { SparringConfig } from '../config';
import type { Domain, Scenario } from '../domain/types';
import type { JudgeVerdict } from '../judge/types';
import { DA_CHOICES, dialogueState, extractAmount, renderDaChoice } from '../agents/da-actions';
import type { DaChoice } from '../agents/da-actions';
import type { CaPolicy, DaPolicy } from '../agents/policy';
import type { ScriptedCa } from '../agents/scripted-ca';
import { customerFor } from '../eau/customer-mix';
import type { SymbolicMix } from '../eau/customer-mix';
import { deriveSeed, Rng } from '../random';
import { daRewards } from '../rewards/da-reward';
import type { DaTerms } from '../rewards/terms';
import type { EpisodeRecord } from '../store/port';
import { parseDaOutput } from '../wire';
import { CustomerEnvironment } from '../world/environment';
import type { DaObservation } from '../world/environment';
import type { AgentTurn, ToolResult, Transcript } from '../world/transcript';
import { hastyRecoveries } from './demos';
import type { GrpoReward } from './grpo';
import type { PolicyModel } from './ports';

// ------------------------------------------------------------------------ decision points

/** One recorded move, as the environment replays it (an agent move is the DA's raw output). */
export type RecordedMove =
  | { role: 'customer'; text: string }
  /** toolResult, when recorded, is checked against the replay (a changed world is an error, not a silent drift). */
  | { role: 'agent'; raw: string; toolResult?: ToolResult | null };

/** An episode as the slicer reads it: enough to replay it move by move. */
export interface RecordedEpisode {
  /** The stored episode's id, for lineage and messages; null for an unsaved one. */
  id: string | null;
  scenario: Scenario;
  seed: number;
  moves: readonly RecordedMove[];
  /** Did the DA win it? (the gym mixes failures and successes 70:30) */
  daWon: boolean | null;
}

/** A DA decision point: the prompt of one GRPO sample. */
export interface DaDecisionPoint {
  scenario: Scenario;
  seed: number;
  /** Every move before the decision, in order. */
  prefix: readonly RecordedMove[];
  /** What the DA saw at the decision: all prior dialogue (customer words, its own outputs and tool results). */
  obs: DaObservation;
  /** What the DA did here in the recorded episode, and that move as a choice (null: unparseable or a non-existent tool). */
  original: { raw: string; choice: DaChoice | null };
  /** The episode (null when unsaved) and the index of the agent turn this point decides. */
  source: { episodeId: string | null; turnIndex: number };
  daWon: boolean | null;
}

/**
 * Word dropout on what the DA reads (the DA gym's `gym.daWordDropout`): each word of each
 * customer utterance in `obs` is left out with probability p, drawn from `u`; words with a digit
 * stay. An utterance that would lose every word, or whose amount would no longer be read (extractAmount, a state feature
 * of the DA) stays whole. The DA's gyms only ever see the sentences of the bank's train slice, and
 * its gains there transfer less to sentences it never saw (the arena with the CA speaking the
 * whole bank, and held-out evaluation): dropout asks the update to route from any part of them.
 * Only the observation changes; the decision point's rollout replays the dialogue as it was.
 */
export function dropCustomerWords(obs: DaObservation, p: number, u: () => number): DaObservation {
  if (!(p >= 0 && p < 1)) throw new RangeError(`dropCustomerWords: p must be in [0, 1), got ${p}`);
  if (p === 0) return obs;
  const turns = obs.turns.map((t) => {
    if (t.role !== 'customer') return t;
    const words = t.text.split(/\s+/).filter((w) => w !== '');
    const kept = words.filter((w) => u() >= p || /\d/.test(w));
    if (kept.length === 0 || kept.length === words.length) return t;
    const text = kept.join(' ');
    return (extractAmount(text) === undefined) === (extractAmount(t.text) === undefined) ? { ...t, text } : t;
  });
  return { ...obs, turns };
}

/** A stored episode as a replayable recording; its scenario is looked up by id. */
export function recordedFromEpisode(e: EpisodeRecord, scenarios: readonly Scenario[]): RecordedEpisode {
  const scenario = scenarios.find((s) => s.id === e.scenarioId);
  if (!scenario) throw new Error(`episode ${e.id}: scenario '${e.scenarioId}' is not in this domain, so it cannot be replayed`);
  const moves: RecordedMove[] = e.turns.map((t) =>
    t.role === 'customer' ? { role: 'customer', text: t.text } : { role: 'agent', raw: t.text, toolResult: t.toolResult },
  );
  return { id: e.id, scenario, seed: e.seed, moves, daWon: e.winner === 'DA' };
}

/** A transcript just played (not yet stored) as a replayable recording. */
export function recordedFromTranscript(
  t: Transcript,
  scenario: Scenario,
  seed: number,
  daWon: boolean | null = null,
  id: string | null = null,
): RecordedEpisode {
  if (t.scenarioId !== scenario.id) throw new Error(`transcript of scenario '${t.scenarioId}' given with scenario '${scenario.id}'`);
  const moves: RecordedMove[] = t.turns.map((turn) =>
    turn.role === 'customer' ? { role: 'customer', text: turn.text } : { role: 'agent', raw: turn.raw, toolResult: turn.toolResult ?? null },
  );
  return { id, scenario, seed, moves, daWon };
}

/**
 * The sliding-window slicer: one decision point per DA turn of the episode, each with all prior
 * dialogue as its prompt. Replays the episode to rebuild each observation and checks every
 * recorded tool result against the replay.
 */
export function sliceDecisionPoints(ep: RecordedEpisode, maxDaTurns: number): DaDecisionPoint[] {
  const where = ep.id !== null ? `episode ${ep.id}` : `an episode of scenario '${ep.scenario.id}'`;
  const env = new CustomerEnvironment(maxDaTurns);
  env.reset(ep.scenario, ep.seed);
  const points: DaDecisionPoint[] = [];
  ep.moves.forEach((move, i) => {
    const s = env.state();
    if (s.done) throw new Error(`${where}: the replay ended (${s.endReason}) before move ${i}; the recording does not fit this environment`);
    if (move.role !== s.next) throw new Error(`${where}: move ${i} is the ${move.role}'s, but the replay expects the ${s.next}'s`);
    if (move.role === 'agent') {
      const obs = snapshotObs(env.observeAgent());
      points.push({
        scenario: ep.scenario,
        seed: ep.seed,
        prefix: ep.moves.slice(0, i),
        obs,
        original: { raw: move.raw, choice: choiceOf(move.raw, obs) },
        source: { episodeId: ep.id, turnIndex: i },
        daWon: ep.daWon,
      });
    }
    stepRecorded(env, move, where, i);
  });
  return points;
}

/**
 * The episode as far as a turn limit of `maxDaTurns` lets it go: cut after its `maxDaTurns`-th DA
 * move, where that limit ends an episode (every DA move counts, as in CustomerEnvironment). An
 * EAU write can lower arena.maxDaTurns between a match and its gym; the gym slices and plays out
 * the match's episodes under the limit in force, which a longer recording would overrun.
 */
export function withinTurnLimit(ep: RecordedEpisode, maxDaTurns: number): RecordedEpisode {
  let agentMoves = 0;
  const last = ep.moves.findIndex((m) => m.role === 'agent' && ++agentMoves === maxDaTurns);
  return last < 0 || last === ep.moves.length - 1 ? ep : { ...ep, moves: ep.moves.slice(0, last + 1) };
}

/** Decision points of many episodes, in order. */
export function sliceEpisodes(eps: readonly RecordedEpisode[], maxDaTurns: number): DaDecisionPoint[] {
  return eps.flatMap((e) => sliceDecisionPoints(e, maxDaTurns));
}

/**
 * Decision points of a recovery that a DA's own episodes rarely contain: a hasty expert (one that
 * calls dispute_charge before asking which charge it is) plays `scenarios` against `ca`, and where
 * its first call could not pin the charge down, the points after that call are kept (explain,
 * which asks which charge; the call again on the answer; …). Up to `episodes` such episodes per
 * scenario. A GRPO warm-up on the DA's episodes alone never meets these states, and its updates to
 * the states it does meet ("explained, the customer answered: end the call") carried over to them.
 */
export function recoveryDecisionPoints(
  domain: Pick<Domain, 'taxonomy'>,
  scenarios: readonly Scenario[],
  ca: ScriptedCa,
  opts: { seed: number; episodes: number; maxDaTurns: number },
): DaDecisionPoint[] {
  return scenarios.flatMap((scenario) =>
    hastyRecoveries(domain, scenario, ca, opts.maxDaTurns, opts.episodes, (k) => deriveSeed(opts.seed, 'recovery', scenario.id, k)).flatMap(
      ({ seed, transcript }) =>
        sliceDecisionPoints(recordedFromTranscript(transcript, scenario, seed), opts.maxDaTurns).filter((p) => dialogueState(p.obs).domainCalls.length > 0),
    ),
  );
}

/** The DA choice a raw output amounts to at `obs`, or null when it is unparseable or names no tool of ours. */
export function choiceOf(raw: string, obs: DaObservation): DaChoice | null {
  const p = parseDaOutput(raw);
  if (!p.ok) return null;
  const a = p.action;
  if (a.action_type === 'end_call') return 'end_call';
  if (a.action_type === 'tool_call') {
    const name = a.content.trim();
    return (DA_CHOICES as readonly string[]).includes(name) && name !== 'ask' && name !== 'explain' && name !== 'end_call' ? (name as DaChoice) : null;
  }
  // A speak is an explanation when it says what explaining the last result would say.
  const s = dialogueState(obs);
  const explainText = (JSON.parse(renderDaChoice('explain', obs, '', s)) as { content: string }).content;
  return s.domainCalls.length > 0 && a.content === explainText ? 'explain' : 'ask';
}

function snapshotObs(o: DaObservation): DaObservation {
  return { caller: { ...o.caller }, turns: o.turns.slice(), daSteps: o.daSteps, maxDaTurns: o.maxDaTurns };
}

function stepRecorded(env: CustomerEnvironment, move: RecordedMove, where: string, i: number): void {
  if (move.role === 'customer') {
    env.step({ role: 'customer', text: move.text });
    return;
  }
  const r = env.step({ role: 'agent', raw: move.raw });
  const got = (r.turn as AgentTurn).toolResult ?? null;
  if (move.toolResult !== undefined && JSON.stringify(move.toolResult ?? null) !== JSON.stringify(got)) {
    throw new Error(`${where}: replaying move ${i} gave a different tool result than recorded; the world generator or tools changed since it was played`);
  }
}

// ------------------------------------------------------------------------------ rollouts

/** The DA that plays the rest of each episode: a batch of observations in, raw outputs out. */
export type DaActor = (batch: readonly { obs: DaObservation; rng: Rng }[]) => Promise<string[]>;

/** The `thinking` of a builtin DA's output for a choice (r_format needs it non-empty). */
export type ThinkingFn = (obs: DaObservation, choice: DaChoice) => string;

export const defaultThinking: ThinkingFn = (obs, choice) => {
  const s = dialogueState(obs);
  const have = [s.lookup ? 'verified' : 'not verified', s.domainCalls.length ? `called ${s.domainCalls.at(-1)!.action!.content}` : 'no domain tool yet'];
  return `[HAVE: ${have.join('; ')}] -> Next: ${choice}`;
};

/** A choice as the DA's wire output, the way the builtin DA renders it. */
export function renderChoice(choice: DaChoice, obs: DaObservation, thinking: ThinkingFn = defaultThinking): string {
  return renderDaChoice(choice, obs, thinking(obs, choice));
}

/** The current policy, greedy: one batched forward per lock-step move. */
export function greedyActor(model: Pick<PolicyModel<DaObservation, DaChoice, never>, 'greedy'>, thinking: ThinkingFn = defaultThinking): DaActor {
  return async (batch) => {
    const picks = await model.greedy(batch.map((b) => b.obs));
    return picks.map((p, i) => renderChoice(p.action, batch[i]!.obs, thinking));
  };
}

/** Any DaPolicy (scripted, LLM …) as an actor, one call per observation. */
export function policyActor(p: DaPolicy): DaActor {
  return (batch) => Promise.all(batch.map(async (b) => p.act(b.obs, b.rng)));
}

/** Everything outside the DA that a rollout needs. */
export interface DaRolloutWorld {
  /** r_DA terms (daReward) and the DA's turn limit (arena.maxDaTurns). */
  config: Pick<SparringConfig, 'daReward' | 'arena'>;
  /** The frozen opponent. */
  ca: CaPolicy;
  /**
   * The judge of each finished rollout: the rule judge answers at once, an LLM judge
   * asynchronously. A batch's rollouts are all played first, then judged together, so an LLM
   * judge sees them concurrently (its endpoint keeps at most its max-concurrency in flight).
   */
  judge: (t: Transcript) => JudgeVerdict | Promise<JudgeVerdict>;
  /**
   * The CA's random stream for the rest of the episode. 'replay' (default) re-asks the CA for
   * each recorded customer turn of the prefix (its words are discarded; the recorded ones are
   * kept) so its stream stands exactly where it stood in the arena: a rollout that repeats the
   * recorded moves reproduces the recorded episode. 'fresh' skips those calls and draws from a
   * new stream per decision point — cheaper with a slow CA, not reproducing the recording.
   */
  caStream?: 'replay' | 'fresh';
  /**
   * EAU's symbolic user: the rule-based customer plays the rest of the episodes whose seed draws
   * it under ε (core/eau/customer-mix.ts), the same draw as the arena's, so a decision point of
   * an episode the symbolic customer played is rolled out against it. Absent: `ca` everywhere.
   */
  symbolic?: SymbolicMix;
}

export interface DaRollout {
  transcript: Transcript;
  verdict: JudgeVerdict;
  /** r_DA of the whole episode, and its terms. */
  rDa: number;
  terms: DaTerms;
  /**
   * The GRPO reward of the forced decision (RL-ADA eq. 1 for one completion): r_format and
   * r_tool of the forced turn only, plus r_env and r_end of the whole rollout. Summing every
   * turn's format bonus instead would pay the DA for making the call longer.
   */
  decisionReward: number;
}

/** r_format + r_tool of the decision's own turn, plus every r_env and r_end term of the episode. */
export function decisionReward(perTurn: ReadonlyMap<number, Partial<DaTerms>>, decisionTurn: number): number {
  let r = 0;
  for (const [i, row] of perTurn) {
    for (const [term, v] of Object.entries(row) as [keyof DaTerms, number][]) {
      if (term === 'format' || term === 'tool') {
        if (i === decisionTurn) r += v;
      } else r += v;
    }
  }
  return r;
}

interface Live {
  env: CustomerEnvironment;
  ca: CaPolicy;
  caRng: Rng;
  daRng: Rng;
}

/**
 * Replays each item's prefix, forces its raw output, and plays every episode to the end in
 * lock-step with `actor` against the frozen CA. Results are in the order of `items`.
 */
export async function rolloutDa(world: DaRolloutWorld, actor: DaActor, items: readonly { point: DaDecisionPoint; raw: string }[]): Promise<DaRollout[]> {
  const maxDaTurns = world.config.arena.maxDaTurns;
  const live: Live[] = await Promise.all(
    items.map(async ({ point, raw }, n) => {
      const where = point.source.episodeId ? `episode ${point.source.episodeId}` : `a decision point of scenario '${point.scenario.id}'`;
      const env = new CustomerEnvironment(maxDaTurns);
      env.reset(point.scenario, point.seed);
      const root = new Rng(point.seed);
      const replay = (world.caStream ?? 'replay') === 'replay';
      const caRng = replay ? root.fork('ca') : root.fork('ca', 'rollout', point.source.turnIndex);
      const { ca } = customerFor(point.seed, world.ca, world.symbolic);
      for (let i = 0; i < point.prefix.length; i++) {
        const move = point.prefix[i]!;
        if (move.role === 'customer' && replay) await ca.speak(env.observeCustomer(), caRng);
        stepRecorded(env, move, where, i);
      }
      if (env.state().next !== 'agent') throw new Error(`${where}: item ${n}: after the prefix it is not the DA's turn`);
      env.step({ role: 'agent', raw });
      return { env, ca, caRng, daRng: root.fork('da') };
    }),
  );

  for (;;) {
    const customers = live.filter((l) => l.env.state().next === 'customer');
    await Promise.all(
      customers.map(async (l) => {
        l.env.step({ role: 'customer', text: await l.ca.speak(l.env.observeCustomer(), l.caRng) });
      }),
    );
    // A customer always hands the turn to the DA, so the DA moves next wherever the episode goes on.
    const agents = live.filter((l) => l.env.state().next === 'agent');
    if (agents.length === 0) break;
    const raws = await actor(agents.map((l) => ({ obs: l.env.observeAgent(), rng: l.daRng })));
    if (raws.length !== agents.length) throw new Error(`DA actor returned ${raws.length} outputs for ${agents.length} observations`);
    agents.forEach((l, i) => l.env.step({ role: 'agent', raw: raws[i]! }));
  }

  // Every rollout of the batch is judged at once (an LLM judge's calls overlap); results keep the items' order.
  const transcripts = live.map(({ env }) => env.transcript());
  const verdicts = await Promise.all(transcripts.map(async (t) => world.judge(t)));
  return transcripts.map((transcript, n) => {
    const verdict = verdicts[n]!;
    const r = daRewards(transcript, verdict, world.config.daReward);
    return { transcript, verdict, rDa: r.rDa, terms: r.total, decisionReward: decisionReward(r.perTurn, items[n]!.point.prefix.length) };
  });
}

/**
 * The DA gym's GRPO reward: r_DA of the candidate choice (its own r_format and r_tool, and r_env
 * and r_end of the episode it leads to — see `decisionReward`), with the rest
 * played by `actor` (usually `greedyActor(model)` of the model being trained). Deterministic in
 * (point, choice) while the actor is, so GRPO may score each distinct choice of a group once.
 */
export function daRolloutReward(world: DaRolloutWorld, actor: DaActor, thinking: ThinkingFn = defaultThinking): GrpoReward<DaDecisionPoint, DaChoice> {
  return {
    async batch(items) {
      const out = await rolloutDa(
        world,
        actor,
        items.map(({ prompt, action }) => ({ point: prompt, raw: renderChoice(action, prompt.obs, thinking) })),
      );
      return out.map((r) => r.decisionReward);
    },
  };
}
