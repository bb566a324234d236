/**
 * The arena (RL-ADA §3.4): the current DA against the current CA, N episodes per scenario.
 * Every episode is seeded from (match seed, scenario, episode index), so a match is reproducible
 * whatever order or concurrency its episodes run in. W_DA is the DA win rate over the CA-winnable
 * scenarios; the fraud-escalation scenarios are a separate reference rate.
 */
import type { SparringConfig } from '../config';
import type { Domain, Scenario } from '../domain/types';
import type { JudgeVerdict } from '../judge/types';
import { deriveSeed, Rng } from '../random';
import { caRewards } from '../rewards/ca-reward';
import { daRewards } from '../rewards/da-reward';
import { daWins, routedTool } from '../rewards/episode-facts';
import type { EpisodeRecord, MatchRecord, ScenarioResult, TurnRecord } from '../store/port';
import type { CaPolicy, DaPolicy } from '../agents/policy';
import type { Judge as JudgePort } from '../judge/port';
import { customerFor } from '../eau/customer-mix';
import type { SymbolicMix } from '../eau/customer-mix';
import { CustomerEnvironment } from '../world/environment';
import type { Transcript } from '../world/transcript';

/** A synchronous judge: what scoring a transcript already in hand needs (a human-played episode, a learner's). */
export type Judge = (t: Transcript) => JudgeVerdict;
/**
 * Any judge: a function of the transcript (the rule judge, `judgeEpisode`), or a judge behind the
 * port (core/judge/port.ts), which an LLM judge is: it answers asynchronously, and is told the
 * episode it judges (its id; its turn count as the turn) for its call record.
 */
export type AnyJudge = ((t: Transcript) => JudgeVerdict | Promise<JudgeVerdict>) | JudgePort;

export interface EpisodeOutcome {
  transcript: Transcript;
  verdict: JudgeVerdict;
  record: EpisodeRecord;
}

export interface EpisodeArgs {
  domain: Domain;
  scenario: Scenario;
  seed: number;
  da: DaPolicy;
  ca: CaPolicy;
  judge: AnyJudge;
  config: SparringConfig;
  matchId: string;
  index: number;
  /**
   * EAU's symbolic user (core/eau/customer-mix.ts): with probability ε, drawn from the episode's
   * seed, the rule-based customer plays the customer seat instead of `ca`; the record says which
   * one did. Absent: `ca` plays every episode and the record names no arm.
   */
  symbolic?: SymbolicMix;
}

/** Play one episode to the end, judge it and compute every reward term. */
export async function runEpisode(a: EpisodeArgs): Promise<EpisodeOutcome> {
  const env = new CustomerEnvironment(a.config.arena.maxDaTurns);
  env.reset(a.scenario, a.seed);
  const root = new Rng(a.seed);
  const daRng = root.fork('da');
  const caRng = root.fork('ca');
  const episodeId = `${a.matchId}:${a.index}`;
  const customer = customerFor(a.seed, a.ca, a.symbolic);
  for (let next = env.state().next; next !== null;) {
    const ctx = { episodeId, turn: env.state().turns.length };
    const r =
      next === 'customer'
        ? env.step({ role: 'customer', text: await customer.ca.speak(env.observeCustomer(), caRng, ctx) })
        : env.step({ role: 'agent', raw: await a.da.act(env.observeAgent(), daRng, ctx) });
    next = r.next;
  }
  const transcript = env.transcript();
  const verdict = await (typeof a.judge === 'function' ? a.judge(transcript) : a.judge.judge(transcript, { episodeId, turn: transcript.turns.length }));
  const out = scoreEpisode({ ...a, judge: () => verdict }, transcript);
  if (a.symbolic) out.record.customer = customer.arm;
  return out;
}

/**
 * Judge a finished transcript and compute every reward term: what an arena episode stores, and
 * what a human-played one stores too (the same judge and rewards, whoever sat in either seat).
 */
export function scoreEpisode(a: Omit<EpisodeArgs, 'da' | 'ca' | 'judge'> & { judge: Judge }, transcript: Transcript): EpisodeOutcome {
  const verdict = a.judge(transcript);
  const reveals = a.domain.taxonomy.find((e) => e.intent === transcript.intent)?.reveals ?? [];
  const da = daRewards(transcript, verdict, a.config.daReward);
  const ca = caRewards(transcript, reveals, a.config.caReward);

  const turns: TurnRecord[] = transcript.turns.map((t, i) =>
    t.role === 'customer'
      ? {
          index: i,
          role: 'customer',
          text: t.text,
          actionType: null,
          tool: null,
          toolArgs: null,
          toolResult: null,
          parseError: null,
          rewards: ca.perTurn.get(i) ?? {},
        }
      : {
          index: i,
          role: 'agent',
          text: t.raw,
          actionType: t.action?.action_type ?? null,
          tool: t.action?.action_type === 'tool_call' ? t.action.content.trim() : null,
          toolArgs: t.action?.action_type === 'tool_call' ? t.action.tool_args : null,
          toolResult: t.toolResult ?? null,
          parseError: t.parseError ?? null,
          rewards: da.perTurn.get(i) ?? {},
        },
  );
  const record: EpisodeRecord = {
    id: `${a.matchId}:${a.index}`,
    matchId: a.matchId,
    index: a.index,
    scenarioId: a.scenario.id,
    fraudReference: a.scenario.fraudReference,
    seed: a.seed,
    intent: transcript.intent,
    expectedTool: transcript.expectedTool,
    routedTool: routedTool(transcript),
    winner: daWins(transcript) ? 'DA' : 'CA',
    endReason: transcript.endReason,
    rDa: da.rDa,
    rCa: ca.rCa,
    daTerms: da.total,
    caTerms: ca.total,
    judge: verdict,
    turns,
  };
  if (transcript.adversities) record.adversities = transcript.adversities;
  return { transcript, verdict, record };
}

export interface MatchArgs {
  matchId: string;
  createdAt: string;
  domain: Domain;
  scenarios: readonly Scenario[];
  scenarioSet: string;
  da: DaPolicy;
  ca: CaPolicy;
  judge: AnyJudge;
  config: SparringConfig;
  seed: number;
  /** Called after each episode with (episodes done, total). */
  onProgress?: (done: number, total: number) => void;
  /**
   * Episodes played at once (default 1). Results are the same and in the same order whatever the
   * value; more lets a batched DA (the builtin one) answer several episodes with one forward run.
   */
  concurrency?: number;
  /** EAU's symbolic user mixed into the customer seat by ε (see EpisodeArgs.symbolic). */
  symbolic?: SymbolicMix;
}

export interface MatchResult {
  match: MatchRecord;
  episodes: EpisodeRecord[];
}

/** Win-rate figures of a set of episodes (also used by analyses that re-score stored matches). */
export function summarise(scenarios: readonly Scenario[], episodes: readonly Pick<EpisodeRecord, 'scenarioId' | 'winner'>[]) {
  const perScenario: ScenarioResult[] = scenarios.map((s) => {
    const eps = episodes.filter((e) => e.scenarioId === s.id);
    const daWinsN = eps.filter((e) => e.winner === 'DA').length;
    return { scenarioId: s.id, fraudReference: s.fraudReference, episodes: eps.length, daWins: daWinsN, daWinRate: eps.length ? daWinsN / eps.length : 0 };
  });
  const rate = (rows: ScenarioResult[]) => {
    const n = rows.reduce((s, r) => s + r.episodes, 0);
    return n === 0 ? null : rows.reduce((s, r) => s + r.daWins, 0) / n;
  };
  return {
    perScenario,
    wDa: rate(perScenario.filter((r) => !r.fraudReference)),
    fraudRate: rate(perScenario.filter((r) => r.fraudReference)),
  };
}

export async function runMatch(a: MatchArgs): Promise<MatchResult> {
  const N = a.config.arena.episodesPerScenario;
  if (!Number.isInteger(N) || N < 1) throw new Error(`episodesPerScenario must be a positive integer, got ${N}`);
  if (a.scenarios.length === 0) throw new Error('runMatch: no scenarios to play');
  const total = a.scenarios.length * N;
  const C = a.concurrency ?? 1;
  if (!Number.isInteger(C) || C < 1) throw new Error(`concurrency must be a positive integer, got ${C}`);
  const jobs = a.scenarios.flatMap((scenario) => Array.from({ length: N }, (_, k) => ({ scenario, k })));
  const episodes: EpisodeRecord[] = new Array<EpisodeRecord>(total);
  let next = 0;
  let done = 0;
  let failed = false;
  // C workers take episodes in index order; each episode has its own seeded environment and streams.
  const worker = async () => {
    while (!failed && next < total) {
      const index = next++;
      const { scenario, k } = jobs[index]!;
      const out = await runEpisode({
        domain: a.domain,
        scenario,
        seed: deriveSeed(a.seed, scenario.id, k),
        da: a.da,
        ca: a.ca,
        judge: a.judge,
        config: a.config,
        matchId: a.matchId,
        index,
        ...(a.symbolic ? { symbolic: a.symbolic } : {}),
      }).catch((e: unknown) => {
        failed = true; // the other workers stop after their current episode
        throw e;
      });
      episodes[index] = out.record;
      a.onProgress?.(++done, total);
    }
  };
  await Promise.all(Array.from({ length: Math.min(C, total) }, worker));
  const { perScenario, wDa, fraudRate } = summarise(a.scenarios, episodes);
  const match: MatchRecord = {
    id: a.matchId,
    createdAt: a.createdAt,
    seed: a.seed,
    daSpec: a.da.name,
    caSpec: a.ca.name,
    daCheckpoint: a.da.checkpoint ?? null,
    caCheckpoint: a.ca.checkpoint ?? null,
    scenarioSet: a.scenarioSet,
    episodesPerScenario: N,
    wDa,
    fraudRate,
    perScenario,
    configJson: JSON.stringify(a.config),
  };
  return { match, episodes };
}
