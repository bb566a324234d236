/**
 * The run machine's actors on the builtin policies: bootstrap, arena match, isolation gym and
 * held-out evaluation. Each is keyed by ids derived from the run and finds its own earlier work
 * in the lab (a stored match, a checkpoint of this run), so a restored run that restarts an
 * actor neither loses nor duplicates anything. Every random choice is seeded from the run's seed
 * and the phase, so a resumed run ends where an uninterrupted one does.
 */
import { phaseEta } from './eta';
import type { Database } from 'better-sqlite3';
import { bootstrapKey, copyBootstrap, findBootstrap, recordBootstrap } from './bootstrap-reuse';
import type { LabContext } from './lab-context';
import type { CaChoice, CaTacticBounds } from '../../core/agents/ca-choices';
import { ScriptedCa } from '../../core/agents/scripted-ca';
import type { CaPolicy, CheckpointRef, DaPolicy } from '../../core/agents/policy';
import type { DaChoice } from '../../core/agents/da-actions';
import { DA_CHOICES, dialogueState } from '../../core/agents/da-actions';
import { invalidActions } from '../../models/da-net';
import { evaluateDa, evaluateMads } from '../../core/arena/evaluate';
import { runMatch } from '../../core/arena/match';
import { selectScenarios } from '../../core/arena/scenarios';
import type { BootstrapOutput, EvaluateInput, GymInput, GymOutput, MatchInput, MatchOutput } from '../../core/coevolution/run.machine';
import type { GrpoBudget, RunConfig } from '../../core/coevolution/run-config';
import { sparringConfigOf } from '../../core/coevolution/run-config';
import { summariseOpenings } from '../../core/coevolution/tactics';
import type { RunPhase } from '../../core/contract/contract';
import { summariseArms } from '../../core/eau/customer-mix';
import type { SymbolicMix } from '../../core/eau/customer-mix';
import { deadlockRate, diagnoseDegenerateGym, diagnoseMatch, digestMatch, knobValues } from '../../core/eau/diagnostics';
import type { MatchDigest } from '../../core/eau/diagnostics';
import { adversityProfile } from '../../core/eau/knobs';
import { withAdversityProfile } from '../../core/world/adversities';
import type { Domain, Scenario, UtteranceBank } from '../../core/domain/types';
import { judgeFunction, RULE_JUDGE_SPEC, ruleJudge } from '../../core/judge/port';
import type { Judge } from '../../core/judge/port';
import { deriveSeed, Rng } from '../../core/random';
import { caRolloutReward, greedyCaActor, isOpeningPoint, sliceCaDecisionPoints } from '../../core/rl/ca-rollout';
import type { CaDecisionPoint } from '../../core/rl/ca-rollout';
import { bankSlices, corpusRoutingItems, otherIntentScenarios, splitBank, validationSlice, withoutBankSentences, withUtterances } from '../../core/rl/demos';
import type { RoutingItem } from '../../core/rl/demos';
import {
  daRolloutReward,
  greedyActor,
  policyActor,
  recordedFromEpisode,
  dropCustomerWords,
  recoveryDecisionPoints,
  sliceEpisodes,
  withinTurnLimit,
} from '../../core/rl/da-rollout';
import type { DaDecisionPoint, RecordedEpisode } from '../../core/rl/da-rollout';
import { GrpoDivergenceError, KL_WINDOW, plannedSteps, runGrpo } from '../../core/rl/grpo';
import type { GrpoConfig, GrpoResult, GrpoStepMetrics } from '../../core/rl/grpo';
import { grpoConfig, roleBudget } from '../../core/coevolution/run-settings';
import type { EpisodeRecord } from '../../core/store/port';
import { BuiltinCa } from '../../models/builtin-ca';
import { BuiltinDa } from '../../models/builtin-da';
import { CaModel } from '../../models/ca-model';
import { DaModel } from '../../models/da-model';
import { flushPendingLlmCalls, llmCheckpointPolicy, pendingLlmCalls, resolveLlmCa, resolveLlmDa } from '../policies/policies';
import { trainSftDa } from '../routing-eval';
import { llmStore } from '../store/llm-store';
import { assertBuiltin, describeLlm, HUMAN_EPISODE } from '../store/checkpoint-store';
import type { CheckpointMeta } from '../store/checkpoint-store';
import { playStore } from '../store/play-store';
import { knobStore } from '../store/knob-store';
import { heldCorpusRows } from '../store/corpus-store';
import type { SqliteRunStore } from '../store/sqlite-store';
import { withEpisodes } from '../../core/config';

/** The policy spec of the scripted CA, which a run may take as its frozen opponent. */
const SCRIPTED = 'scripted';

/** Episodes played at once in a match: lets the builtin DA answer many with one forward run. */
const MATCH_CONCURRENCY = 32;

/** The run's judge (the arena tells it which episode it judges). */
function judgeOf(ctx: Pick<LabContext, 'judge'>): Judge {
  return ctx.judge ?? ruleJudge;
}

/**
 * Whether the run makes LLM calls (an LLM role, or an LLM judge): its calls outside stored matches
 * (bootstrap, gyms, evaluations) are written to the lab when each of those phases ends.
 */
function callsLlm(ctx: Pick<LabContext, 'config' | 'judge'>): boolean {
  return Boolean(ctx.config.schedule?.llm) || (ctx.judge !== undefined && ctx.judge.name !== RULE_JUDGE_SPEC);
}

/**
 * The GRPO config of each step from the run's effective config (EAU knob writes land between
 * steps). `lr`: IB-RL's per-role rate (schedule.stagger daLr/caLr), which takes precedence over
 * the gym budget's lr and any write to it.
 */
export function stepConfigs(
  ctx: Pick<LabContext, 'config' | 'atStep'>,
  role: 'DA' | 'CA',
  gymName: () => string,
  seed: number,
  lr?: number,
): (step: number) => GrpoConfig {
  return (step) => {
    ctx.atStep?.(gymName(), step);
    return grpoConfig(roleBudget(role === 'DA' ? ctx.config.gym.da : ctx.config.gym.ca, lr), role, seed);
  };
}

/** Where a run's LLM roles are resolved: the lab file and the names its schedule gives them (RunConfig schedule.llm). */
export interface LlmRoles {
  dbPath: string;
  da?: string;
  ca?: string;
}

/**
 * Loaded policies, one model per checkpoint, shared by the actors of a run. A checkpoint that is an
 * LLM (an external trainer's result, registered with `sparring checkpoints add --model SPEC`) plays
 * through its spec in the lab `dbPath`, its calls recorded with the matches like schedule.llm's.
 */
export class PolicyCache {
  private readonly das = new Map<string, Promise<DaModel>>();
  private readonly cas = new Map<string, Promise<CaModel>>();
  /** The checkpoint each name or SPEC resolved to when first loaded. */
  private readonly refs = new Map<string, CheckpointRef>();
  constructor(private readonly ctx: Pick<LabContext, 'checkpoints' | 'session' | 'domain'> & { llm?: LlmRoles; dbPath?: string; cache?: false }) {}

  /** The policy context of an LLM resolved in `db`, with the run's cache choice. */
  private llmIn(db: string) {
    return { db, seed: 0, ...(this.ctx.cache === false ? { cache: false } : {}) };
  }

  /** The LLM checkpoint a name is, if it is one (its meta), else undefined. */
  private llmCheckpoint(role: 'DA' | 'CA', name: string): (CheckpointMeta & { llm: NonNullable<CheckpointMeta['llm']> }) | undefined {
    if (name === SCRIPTED) return undefined;
    const c = this.ctx.checkpoints.meta(name);
    if (!c?.llm || c.role !== role) return undefined;
    if (!this.ctx.dbPath)
      throw new Error(`run: ${name} is an LLM checkpoint (${describeLlm(c.llm)}), but this run's policy cache has no lab path to resolve it in`);
    return c as CheckpointMeta & { llm: NonNullable<CheckpointMeta['llm']> };
  }

  /** The LLM context of a role's name: set when `name` is the LLM the run gives that role. */
  private llmContext(role: 'DA' | 'CA', name: string) {
    const roles = this.ctx.llm;
    if (!roles || name !== (role === 'DA' ? roles.da : roles.ca)) return undefined;
    return this.llmIn(roles.dbPath);
  }

  private noModel(role: 'DA' | 'CA', name: string): never {
    throw new Error(
      `run: the ${role} is the LLM "${name}" (schedule.llm.${role.toLowerCase()}), but the lab ${this.ctx.llm!.dbPath} has no model of that name (sparring models add)`,
    );
  }

  daModel(name: string): Promise<DaModel> {
    let m = this.das.get(name);
    if (!m) {
      const cp = this.ctx.checkpoints.resolve(name, 'DA');
      assertBuiltin(cp);
      this.refs.set(`DA:${name}`, { name: cp.name, id: cp.id });
      m = DaModel.fromSnapshot(cp.snapshot, this.ctx.session ?? {});
      this.das.set(name, m);
    }
    return m;
  }
  caModel(name: string): Promise<CaModel> {
    let m = this.cas.get(name);
    if (!m) {
      const cp = this.ctx.checkpoints.resolve(name, 'CA');
      assertBuiltin(cp);
      this.refs.set(`CA:${name}`, { name: cp.name, id: cp.id });
      m = CaModel.fromSnapshot(cp.snapshot, this.ctx.session ? { session: this.ctx.session } : {});
      this.cas.set(name, m);
    }
    return m;
  }
  async da(name: string): Promise<DaPolicy> {
    const llm = this.llmContext('DA', name);
    if (llm) return resolveLlmDa(name, llm) ?? this.noModel('DA', name);
    const c = this.llmCheckpoint('DA', name);
    if (c) return llmCheckpointPolicy({ ...c, role: 'DA' }, this.llmIn(this.ctx.dbPath!));
    const model = await this.daModel(name);
    return new BuiltinDa(model, { name, checkpoint: this.refs.get(`DA:${name}`)! });
  }
  /**
   * The CA of a checkpoint, speaking from `bank` (default: the whole bank, as in held-out
   * evaluation); `scripted` is the scripted CA (a run's frozen opponent under schedule.daOpponent).
   */
  async ca(name: string, bank: UtteranceBank = this.ctx.domain.bank, tactics?: CaTacticBounds): Promise<CaPolicy> {
    if (name === SCRIPTED) return new ScriptedCa(bank === this.ctx.domain.bank ? this.ctx.domain : { ...this.ctx.domain, bank });
    const llm = this.llmContext('CA', name);
    if (llm) return resolveLlmCa(name, llm) ?? this.noModel('CA', name);
    const c = this.llmCheckpoint('CA', name);
    if (c) return llmCheckpointPolicy({ ...c, role: 'CA' }, this.llmIn(this.ctx.dbPath!));
    const model = await this.caModel(name);
    return new BuiltinCa(model, bank, { name, checkpoint: this.refs.get(`CA:${name}`)!, ...(tactics ? { tactics } : {}) });
  }
  async dispose(): Promise<void> {
    for (const m of [...this.das.values(), ...this.cas.values()]) await (await m).dispose();
    this.das.clear();
    this.cas.clear();
  }
}

/**
 * The routing items of the corpus a run's DA0 learns from (`bootstrap.sft.corpus`): the lab's
 * import with that content hash, less the rows that repeat a bank sentence.
 */
function runCorpus(ctx: Pick<LabContext, 'store' | 'domain' | 'runId'>, hash: string): RoutingItem[] {
  const rows = heldCorpusRows(ctx.store.db, hash, `run ${ctx.runId}`);
  return withoutBankSentences(corpusRoutingItems(ctx.domain, rows), ctx.domain.bank);
}

/** The seed of DA0's SFT, which also draws the bank's held-out slice (core/rl/demos.ts splitBank). */
export function da0SftSeed(runSeed: number): number {
  return deriveSeed(runSeed, 'da0-sft');
}

/** The run's domain with its bank reduced to DA0's own slice: the train slice less the CA-only share (bankSlices). */
function da0Domain(ctx: Pick<LabContext, 'domain' | 'seed'>, caOnlyShare: number): Domain {
  return withUtterances(ctx.domain, bankSlices(ctx.domain.bank.utterances, da0SftSeed(ctx.seed), { caOnlyShare }).daTrain);
}

const trainDomains = new WeakMap<Domain, Map<number, Domain>>();

/**
 * The run's domain with its bank reduced to the train slice of DA0's SFT split: what every CA that
 * produces training data speaks from (the warm-up's scripted CA, the arena matches that feed the
 * gyms, gym rollouts). Otherwise the DA would train, through the arena's transcripts, on the very
 * sentences its routing is measured on. The held-out evaluation keeps the whole bank.
 */
export function trainingDomain(ctx: Pick<LabContext, 'domain' | 'seed'>): Domain {
  let bySeed = trainDomains.get(ctx.domain);
  if (!bySeed) trainDomains.set(ctx.domain, (bySeed = new Map()));
  let d = bySeed.get(ctx.seed);
  if (!d) bySeed.set(ctx.seed, (d = withUtterances(ctx.domain, splitBank(ctx.domain.bank.utterances, da0SftSeed(ctx.seed)).train)));
  return d;
}

/**
 * The domain a run of seed `seed` plays: the lab's, without the validation slice of its bank when
 * the config keeps one (`validation.bankShare`), with the config's adversity profile (MADS) when
 * it sets one.
 */
export function runDomain(domain: Domain, config: RunConfig, seed: number): Domain {
  const d = withoutValidation(domain, config, seed);
  const profile = adversityProfile(config);
  return profile ? withAdversityProfile(d, profile) : d;
}

/** The domain without the validation slice of its bank that a run of this config and seed keeps out (`validation.bankShare`); the domain itself when none. */
export function withoutValidation(domain: Domain, config: Pick<RunConfig, 'validation'>, seed: number): Domain {
  const share = config.validation?.bankShare;
  return share ? withUtterances(domain, validationSlice(domain.bank.utterances, da0SftSeed(seed), share).kept) : domain;
}

/**
 * What run `runId`'s own arena matches play with, to play one outside the run (`sparring match
 * --run`, the Arena screen's "as in run"): its config with the knob writes applied to it, its
 * domain (with its adversity profile), its judge SPEC, EAU's symbolic user, and a CA speaking the
 * train slice of the bank its seed drew, within the run's tactic bounds. A match played otherwise
 * lets a checkpoint CA speak the whole bank, held-out slice included, as held-out evaluation does.
 * Undefined when the lab holds no such run.
 */
export function runArena(db: Database, runId: string, lab: Domain) {
  const row = db.prepare<[string], { seed: number }>('SELECT seed FROM runs WHERE id = ?').get(runId);
  if (!row) return undefined;
  const config = knobStore(db).effective(runId);
  const ctx = { domain: runDomain(lab, config, row.seed), seed: row.seed, config };
  const symbolic = symbolicMix(ctx);
  const share = config.validation?.bankShare;
  const tactics = config.ca?.tactics ? { tactics: config.ca.tactics } : {};
  return {
    ...ctx,
    sparring: sparringConfigOf(config),
    speak: { bank: trainingDomain(ctx).bank, ...tactics },
    /** A CA speaking the run's validation slice (none when the run keeps none). */
    speakValidation: share ? { bank: validationBank(lab, ctx, share), ...tactics } : undefined,
    judge: config.judge ?? RULE_JUDGE_SPEC,
    ...(symbolic ? { symbolic } : {}),
  };
}

/**
 * The bank of a run's validation slice (`validation.bankShare`), for a CA to speak: its sentences,
 * and for an intent with none among them (a few of the bank's thinnest intents on some seeds), the
 * run's train sentences of that intent, so that every scenario can still be played.
 */
function validationBank(lab: Domain, run: Pick<LabContext, 'domain' | 'seed'>, share: number) {
  const { validation } = validationSlice(lab.bank.utterances, da0SftSeed(run.seed), share);
  const covered = new Set(validation.map((u) => u.intent));
  return withUtterances(lab, [...validation, ...trainingDomain(run).bank.utterances.filter((u) => !covered.has(u.intent))]).bank;
}

/**
 * EAU's symbolic user (run config customer.symbolicMix ε > 0): the scripted CA, speaking the train
 * slice like every CA that produces training data, takes the customer seat of a share ε of the
 * episodes of matches and DA gym rollouts (core/eau/customer-mix.ts). Undefined at ε = 0.
 */
export function symbolicMix(ctx: Pick<LabContext, 'domain' | 'seed' | 'config'>): SymbolicMix | undefined {
  const mix = ctx.config.customer?.symbolicMix ?? 0;
  return mix > 0 ? { ca: new ScriptedCa(trainingDomain(ctx)), mix } : undefined;
}

function report(ctx: LabContext, phase: RunPhase, label: string, _started: number) {
  // The time left from the speed since the phase's first report (its start-up left out: ./eta.ts).
  const eta = phaseEta();
  return (done: number, total: number) => {
    ctx.progress({ phase, label, done, total, etaSeconds: eta(done, total) });
  };
}

function onGrpoStep(ctx: LabContext, phase: RunPhase, label: string, metricPhase: string, steps: number) {
  const started = Date.now();
  const tick = report(ctx, phase, label, started);
  return (m: GrpoStepMetrics, step: number) => {
    for (const [k, v] of Object.entries(m)) if (Number.isFinite(v)) ctx.metric(metricPhase, k, step, v);
    tick(step + 1, steps);
  };
}

/** Training-data kinds of an IB-RL gym's checkpoint: the DA and the CA that played the round's joint rollouts. */
export const IB_RL_POOL_DA = 'ib-rl-pool-da';
export const IB_RL_POOL_CA = 'ib-rl-pool-ca';

/** Why a gym ended before its planned steps (the trust region), for the run's record; null when it did not. */
export function earlyStopNote(r: GrpoResult): string | null {
  if (!r.earlyStop) return null;
  return `stopped after step ${r.earlyStop.step + 1} of ${r.plannedSteps}: mean KL to the start over the last ${KL_WINDOW} steps ${r.earlyStop.kl.toFixed(2)} > maxKl ${r.earlyStop.maxKl} (trust region)`;
}

/**
 * Gym data (RL-ADA §3.5): recent arena transcripts mixed failure:success by `failureShare`
 * (0.7) from the training agent's point of view, as many as the smaller side allows.
 */
export function mixFailures<T>(failures: readonly T[], successes: readonly T[], failureShare: number, rng: Rng): T[] {
  const shuffle = (xs: readonly T[]) => {
    const a = xs.slice();
    for (let i = a.length - 1; i > 0; i--) {
      const j = rng.int(0, i);
      [a[i], a[j]] = [a[j]!, a[i]!];
    }
    return a;
  };
  if (failures.length === 0 || successes.length === 0) return shuffle([...failures, ...successes]);
  // The largest total whose failure and success parts both fit.
  const total = Math.floor(Math.min(failures.length / failureShare, successes.length / (1 - failureShare)));
  const nf = Math.max(1, Math.round(total * failureShare));
  const ns = Math.max(1, total - nf);
  return shuffle([...shuffle(failures).slice(0, nf), ...shuffle(successes).slice(0, ns)]);
}

/** `round(weight × n)` items, cycling through them: each item `weight` times on average. */
export function weighted<T>(items: readonly T[], weight: number): T[] {
  return Array.from({ length: items.length ? Math.round(weight * items.length) : 0 }, (_, i) => items[i % items.length]!);
}

/**
 * Human-played episodes for a gym (RunConfig gym.humanEpisodes): a person's customer episodes
 * train the DA, a person's agent episodes train the CA. The newest `cap` played before the match
 * that feeds the gym, so a restarted gym sees the same ones.
 */
function humanEpisodeIds(ctx: Pick<LabContext, 'store' | 'config'>, role: 'DA' | 'CA', matchId: string): string[] {
  const mix = ctx.config.gym.humanEpisodes;
  const match = ctx.store.getMatch(matchId);
  if (!mix || mix.cap === 0 || !match) return [];
  return playStore(ctx.store)
    .listHumanEpisodes({ seat: role === 'DA' ? 'customer' : 'agent', before: match.createdAt, limit: mix.cap })
    .map((m) => m.episodeId);
}

/**
 * The match that feeds a gym and the run's matches before it, up to `gym.matches` (1: that match
 * alone), oldest first. A run's matches are `RUN-M1`, `RUN-M2`, …
 */
function recentMatchIds(ctx: Pick<LabContext, 'store' | 'config'>, matchId: string): string[] {
  const n = ctx.config.gym.matches ?? 1;
  const m = /^(.*-M)(\d+)$/.exec(matchId);
  if (n === 1 || !m) return [matchId];
  const last = Number(m[2]);
  const ids: string[] = [];
  for (let k = Math.max(1, last - n + 1); k <= last; k++) ids.push(`${m[1]}${k}`);
  return ids.filter((id) => id === matchId || ctx.store.getMatch(id) !== undefined);
}

async function matchEpisodes(ctx: Pick<LabContext, 'store'>, matchId: string): Promise<EpisodeRecord[]> {
  const n = ctx.store.countEpisodes({ matchId });
  const summaries = ctx.store.listEpisodes({ matchId, limit: n });
  return summaries.map((s) => ctx.store.getEpisode(s.id)!);
}

// ------------------------------------------------------------------------------ bootstrap

/** Hasty-expert episodes per arena dispute scenario whose recovery joins DA0's GRPO warm-up (see recoveryDecisionPoints). */
const WARMUP_RECOVERY_EPISODES = 3;

export async function bootstrap(ctx: LabContext, cache: PolicyCache): Promise<BootstrapOutput> {
  const mine = ctx.checkpoints.list().filter((c) => c.runId === ctx.runId && c.source === 'bootstrap');
  // A role played by an LLM (schedule.llm) has no bootstrap checkpoint: the model is that role from the start.
  const llm = ctx.config.schedule?.llm;
  let da = llm?.da ?? mine.find((c) => c.role === 'DA')?.name;
  let ca = llm?.ca ?? mine.find((c) => c.role === 'CA')?.name;
  const b = ctx.config.bootstrap;
  const arena = selectScenarios(ctx.domain, 'arena');
  // The same inputs as an earlier run's bootstrap: copy its DA0 and CA0 (host/coevolution/bootstrap-reuse.ts).
  const key = ctx.bootstrapScope === undefined || callsLlm(ctx) ? null : bootstrapKey(ctx);
  if (key && !da && !ca) {
    const earlier = findBootstrap(ctx, key);
    if (earlier) {
      const started = Date.now();
      const copied = copyBootstrap(ctx, earlier);
      report(ctx, 'bootstrap', `DA0 and CA0: the bootstrap of run ${earlier.run_id}, reused (same seed and inputs)`, started)(1, 1);
      return copied;
    }
  }

  if (!da) {
    // DA0 = SFT on routing demonstrations, then a GRPO warm-up against the judge-based reward.
    const started = Date.now();
    const corpus = b.sft.corpus ? runCorpus(ctx, b.sft.corpus) : undefined;
    const label = `DA0: SFT on routing demonstrations${corpus ? ` and ${corpus.length} corpus rows` : ''}`;
    const sftTick = report(ctx, 'bootstrap', label, started);
    const sft = await trainSftDa(ctx.domain, {
      seed: da0SftSeed(ctx.seed),
      sft: { epochs: b.sft.epochs, batchSize: b.sft.batchSize, lr: b.sft.lr },
      bank: {
        episodesPerIntent: b.sft.expertEpisodesPerIntent,
        ...(b.sft.camouflaged !== undefined ? { camouflaged: b.sft.camouflaged } : {}),
        ...(b.sft.caOnlyShare ? { caOnlyShare: b.sft.caOnlyShare } : {}),
        ...(b.sft.camouflagedEpisodesPerIntent !== undefined ? { camouflagedEpisodesPerIntent: b.sft.camouflagedEpisodesPerIntent } : {}),
        ...(b.sft.recoveryEpisodesPerIntent !== undefined ? { recoveryEpisodesPerIntent: b.sft.recoveryEpisodesPerIntent } : {}),
        ...(b.sft.recoveryCustomer ? { recoveryCustomer: b.sft.recoveryCustomer } : {}),
      },
      ...(corpus ? { extraRouting: corpus } : {}),
      ...(ctx.session ? { session: ctx.session } : {}),
      hooks: {
        onStep: (p) => {
          sftTick(p.step, p.totalSteps);
          for (const [k, v] of Object.entries(p.metrics)) ctx.metric('bootstrap:DA0-sft', k, p.step, v);
        },
      },
    });
    const model = sft.model;
    // The warm-up's customer speaks DA0's own slice: CA-only sentences stay new to the DA until the arena.
    const scripted = new ScriptedCa(b.sft.caOnlyShare ? da0Domain(ctx, b.sft.caOnlyShare) : trainingDomain(ctx));
    const warm = await runMatch({
      matchId: `${ctx.runId}-warmup`,
      createdAt: '',
      domain: ctx.domain,
      scenarios: arena,
      scenarioSet: 'arena',
      da: new BuiltinDa(model),
      ca: scripted,
      judge: judgeOf(ctx),
      seed: deriveSeed(ctx.seed, 'da0-warmup'),
      config: withEpisodes(ctx.sparring, 2),
      concurrency: MATCH_CONCURRENCY,
    });
    const maxDaTurns = ctx.sparring.arena.maxDaTurns;
    // The DA's own episodes, and the recovery from a dispute that named no charge, which they rarely reach.
    const points = [
      ...sliceEpisodes(
        warm.episodes.map((e) => recordedFromEpisode(e, ctx.domain.scenarios)),
        maxDaTurns,
      ),
      ...recoveryDecisionPoints(
        ctx.domain,
        arena.filter((s) => s.expectedTool === 'dispute_charge'),
        scripted,
        {
          seed: deriveSeed(ctx.seed, 'da0-recovery'),
          episodes: WARMUP_RECOVERY_EPISODES,
          maxDaTurns,
        },
      ),
    ];
    const reference = await DaModel.fromSnapshot(await model.snapshot(), ctx.session ?? {});
    try {
      await runGrpo<DaDecisionPoint, DaDecisionPoint['obs'], DaChoice>({
        model,
        reference,
        prompts: points,
        observe: (p) => p.obs,
        reward: daRolloutReward({ config: ctx.sparring, ca: scripted, judge: judgeFunction(judgeOf(ctx)) }, greedyActor(model)),
        config: grpoConfig(b.daWarmup, 'DA', deriveSeed(ctx.seed, 'da0-grpo')),
        actionKey: (c) => c,
        onStep: onGrpoStep(ctx, 'bootstrap', 'DA0: GRPO warm-up', 'bootstrap:DA0-grpo', b.daWarmup.steps),
        shouldStop: ctx.stopped,
      });
    } finally {
      await reference.dispose();
    }
    if (ctx.stopped()) throw new Error('run stopped');
    da = ctx.checkpoints.save({
      role: 'DA',
      source: 'bootstrap',
      runId: ctx.runId,
      parent: null,
      generation: 0,
      snapshot: await model.snapshot(),
      provider: model.provider,
      metrics: sft.sft.epochs.at(-1)?.metrics ?? null,
      trainingData: [
        { kind: 'demos', id: `bank-train:${da0SftSeed(ctx.seed)}${b.sft.caOnlyShare ? `:ca-only=${b.sft.caOnlyShare}` : ''}` },
        ...(b.sft.corpus ? [{ kind: 'corpus', id: b.sft.corpus }] : []),
      ],
    }).name;
    await model.dispose();
  }

  if (!ca) {
    // CA0: no SFT; reward pressure alone against the frozen DA0 (r_CA, whose core is inverse-DA).
    const model = await CaModel.create(ctx.domain.taxonomy, { seed: deriveSeed(ctx.seed, 'ca0-init'), ...(ctx.session ? { session: ctx.session } : {}) });
    const frozenDa = await cache.da(da);
    const probe = await runMatch({
      matchId: `${ctx.runId}-ca0-probe`,
      createdAt: '',
      domain: ctx.domain,
      scenarios: arena,
      scenarioSet: 'arena',
      da: frozenDa,
      ca: new BuiltinCa(model, trainingDomain(ctx).bank),
      judge: judgeOf(ctx),
      seed: deriveSeed(ctx.seed, 'ca0-probe'),
      config: withEpisodes(ctx.sparring, 2),
      concurrency: MATCH_CONCURRENCY,
    });
    const points = probe.episodes.flatMap((e) => sliceCaDecisionPoints(recordedFromEpisode(e, ctx.domain.scenarios), ctx.sparring.arena.maxDaTurns));
    await trainCa(
      ctx,
      model,
      points,
      frozenDa,
      b.caPressure,
      deriveSeed(ctx.seed, 'ca0-grpo'),
      'bootstrap',
      'CA0: reward pressure against DA0',
      'bootstrap:CA0',
    );
    if (ctx.stopped()) throw new Error('run stopped');
    ca = ctx.checkpoints.save({
      role: 'CA',
      source: 'bootstrap',
      runId: ctx.runId,
      parent: null,
      generation: 0,
      snapshot: await model.snapshot(),
      provider: model.provider,
      trainingData: [{ kind: 'checkpoint', id: da }],
    }).name;
    await model.dispose();
  }
  // The LLM judge's calls of the warm-up and the probe (their episodes are not stored, what they cost is).
  if (callsLlm(ctx)) flushPendingLlmCalls();
  if (key) recordBootstrap(ctx, key, da, ca);
  return { da, ca };
}

async function trainCa(
  ctx: LabContext,
  model: CaModel,
  points: readonly CaDecisionPoint[],
  frozenDa: DaPolicy,
  budget: GrpoBudget,
  seed: number,
  phase: RunPhase,
  label: string,
  metricPhase: string,
  configForStep?: (step: number) => GrpoConfig,
): Promise<GrpoResult> {
  const reference = await CaModel.fromSnapshot(await model.snapshot(), ctx.session ? { session: ctx.session } : {});
  const config = grpoConfig(budget, 'CA', seed);
  try {
    return await runGrpo<CaDecisionPoint, CaDecisionPoint['obs'], CaChoice>({
      model,
      reference,
      prompts: points,
      observe: (p) => p.obs,
      reward: caRolloutReward({ config: ctx.sparring, domain: trainingDomain(ctx), da: policyActor(frozenDa) }, greedyCaActor(model, trainingDomain(ctx))),
      config,
      actionKey: (c) => JSON.stringify(c),
      onStep: onGrpoStep(ctx, phase, label, metricPhase, plannedSteps(config, points.length)),
      shouldStop: ctx.stopped,
      ...(configForStep ? { configForStep } : {}),
    });
  } finally {
    await reference.dispose();
  }
}

// ---------------------------------------------------------------------------------- match

/**
 * An arena match between two checkpoints, stored under `matchId` (all or nothing), or the stored
 * one when a restarted actor finds it: the run's matches and IB-RL's joint rollouts.
 */
async function storedMatch(
  ctx: LabContext,
  cache: PolicyCache,
  matchId: string,
  da: string,
  ca: string,
  seed: number,
  label: string,
  /** Other scenarios than the arena's (a DA gym's match beyond the arena's intents), with their episodes per scenario. */
  beyond?: { scenarios: Scenario[]; episodesPerScenario: number },
): Promise<{ match: NonNullable<ReturnType<SqliteRunStore['getMatch']>>; episodes: EpisodeRecord[] | null }> {
  const stored = ctx.store.getMatch(matchId);
  if (stored) return { match: stored, episodes: null };
  const scenarios = beyond?.scenarios ?? selectScenarios(ctx.domain, 'arena');
  const symbolic = symbolicMix(ctx);
  const r = await runMatch({
    matchId,
    createdAt: new Date().toISOString(),
    domain: ctx.domain,
    scenarios,
    scenarioSet: beyond ? 'other-intents' : 'arena',
    da: await cache.da(da),
    ca: await cache.ca(ca, trainingDomain(ctx).bank, ctx.config.ca?.tactics),
    judge: judgeOf(ctx),
    config: beyond ? withEpisodes(ctx.sparring, beyond.episodesPerScenario) : ctx.sparring,
    seed,
    concurrency: MATCH_CONCURRENCY,
    onProgress: report(ctx, 'match', label, Date.now()),
    ...(symbolic ? { symbolic } : {}),
  });
  // All or nothing: the match, and the LLM calls behind it when an LLM plays a role.
  const ledger = pendingLlmCalls(ctx.store.path);
  ctx.store.db
    .transaction(() => {
      ctx.store.saveMatch(r.match, r.episodes);
      if (ledger) llmStore(ctx.store.db).writeLedger(ledger);
    })
    .immediate(); // IMMEDIATE, as saveMatch alone: a deferred transaction would read (the lab's scenarios) before it writes, and fail with SQLITE_BUSY at once when another connection wrote in between
  ledger?.written();
  return { match: r.match, episodes: r.episodes };
}

export async function playMatch(ctx: LabContext, cache: PolicyCache, input: MatchInput): Promise<MatchOutput> {
  const matchId = `${input.runId}-M${input.index}`;
  const { match: stored, episodes: played } = await storedMatch(
    ctx,
    cache,
    matchId,
    input.da,
    input.ca,
    deriveSeed(input.seed, 'match', input.index),
    `match ${input.index}: ${input.da} vs ${input.ca}`,
  );
  const episodes = played ?? (await matchEpisodes(ctx, matchId));
  const tactics = summariseOpenings(episodes.map((e) => ({ text: e.turns.find((t) => t.role === 'customer')?.text ?? '', expectedTool: e.expectedTool })));
  await recordMatchDiagnostics(ctx, input.index, episodes);
  // The stopping rule after this match uses the thresholds in force when it started (EAU knobs τ_DA, r_CA).
  return {
    matchId,
    wDa: stored.wDa ?? 0,
    fraudRate: stored.fraudRate,
    tactics,
    stopping: { ...ctx.sparring.stopping },
    ...(symbolicMix(ctx) ? { arms: summariseArms(episodes) } : {}),
  };
}

/**
 * EAU's diagnostics after a match (core/eau/diagnostics.ts): on its episodes and the run's earlier
 * matches (read back from the lab, so a resumed run sees the same series), recorded through
 * ctx.recordProposals, never applied.
 */
async function recordMatchDiagnostics(ctx: LabContext, index: number, episodes: readonly EpisodeRecord[]): Promise<void> {
  if (!ctx.recordProposals) return;
  const earlier: MatchDigest[] = [];
  const earlierDeadlock: { matchIndex: number; deadlockRate: number }[] = [];
  for (let i = 1; i < index; i++) {
    const id = `${ctx.runId}-M${i}`;
    if (!ctx.store.getMatch(id)) continue;
    const eps = await matchEpisodes(ctx, id);
    earlier.push(digestMatch(i, eps));
    earlierDeadlock.push({ matchIndex: i, deadlockRate: deadlockRate(eps) });
  }
  const { proposals } = diagnoseMatch({
    matchIndex: index,
    episodes,
    earlier,
    earlierDeadlock,
    taxonomy: ctx.domain.taxonomy,
    knobs: knobValues(ctx.config, ctx.sparring),
  });
  ctx.recordProposals(ctx.runId, proposals);
}

/** EAU's degenerate-gym diagnostic on a finished gym's step statistics, recorded like the match ones. */
function recordGymDiagnostics(ctx: LabContext, gymId: string, role: 'DA' | 'CA', budget: GrpoBudget, prompts: number, result: GrpoResult): void {
  if (!ctx.recordProposals) return;
  const proposals = diagnoseDegenerateGym(
    {
      gymId,
      role,
      groupsPerStep: Math.min(budget.promptsPerStep, prompts),
      skippedGroups: result.history.map((h) => h['gym/skipped_groups']),
      rewardMean: result.history.map((h) => h['gym/reward_mean']),
    },
    knobValues(ctx.config, ctx.sparring),
  );
  ctx.recordProposals(ctx.runId, proposals);
}

// ------------------------------------------------------------------------------------ gym

/** The index of a run's match from its id (`R3-M2` → 2), for gym inputs persisted before GymInput.afterMatch. */
function matchIndexOf(matchId: string): number {
  const m = /(?:^|-)M(\d+)$/.exec(matchId);
  if (!m) throw new Error(`gym: cannot tell the match index of "${matchId}" (expected RUN-M<n>)`);
  return Number(m[1]);
}

/**
 * The episodes a gym trains on (RL-ADA §3.5): the match's transcripts mixed failure:success from
 * the training role's point of view (mixFailures), then the human-played episodes of the mix. The
 * gym slices them into decision points; `sparring gym export` writes the same points for an
 * external trainer (host/coevolution/gym-export.ts). Seeded by the run's seed and the match's
 * place in the run, never by its id (which names the run, R1 or R7 by how many runs the lab held
 * before): a run's numbers depend on its seed and config only.
 */
export async function gymEpisodes(
  ctx: Pick<LabContext, 'store' | 'domain' | 'config'>,
  input: Pick<GymInput, 'role' | 'matchId' | 'seed' | 'afterMatch' | 'ibRl'>,
): Promise<RecordedEpisode[]> {
  const beyond = !input.ibRl && input.role === 'DA' ? otherIntentsMatch(ctx, input.matchId) : null;
  const episodes = input.ibRl
    ? await matchEpisodes(ctx, input.matchId)
    : [
        ...(await Promise.all(recentMatchIds(ctx, input.matchId).map((id) => matchEpisodes(ctx, id)))).flat(),
        // gym.daOtherIntents: the match the gym played beyond the arena's intents, pooled with them.
        ...(beyond && ctx.store.getMatch(beyond.matchId) ? await matchEpisodes(ctx, beyond.matchId) : []),
      ];
  const scenarios = beyond ? [...ctx.domain.scenarios, ...beyond.scenarios] : ctx.domain.scenarios;
  const recorded: RecordedEpisode[] = episodes.map((e) => recordedFromEpisode(e, scenarios));
  // Lost from the training role's point of view (gym.daFailure: the DA's unresolved episodes too).
  const unresolvedLoses = input.role === 'DA' && ctx.config.gym.daFailure === 'unresolved';
  const lost = episodes.map((e) => (input.role === 'DA' ? e.winner !== 'DA' || (unresolvedLoses && !e.judge.resolved) : e.winner === 'DA'));
  const mixRng = new Rng(deriveSeed(input.seed, 'gym-mix', input.afterMatch ?? matchIndexOf(input.matchId)));
  const humanIds = humanEpisodeIds(ctx, input.role, input.matchId);
  const human = humanIds.map((id) => recordedFromEpisode(ctx.store.getEpisode(id)!, ctx.domain.scenarios));
  return [
    // IB-RL: both roles learn from the same trajectories, all of the round's joint rollouts (no failure mix).
    ...(input.ibRl
      ? recorded
      : mixFailures(
          recorded.filter((_, i) => lost[i]),
          recorded.filter((_, i) => !lost[i]),
          ctx.config.gym.failureShare,
          mixRng,
        )),
    ...weighted(human, ctx.config.gym.humanEpisodes?.weight ?? 0),
  ];
}

/**
 * A DA gym's match beyond the arena's intents (`gym.daOtherIntents` episodes per intent; null when
 * off): its id (the gym's match with `-G`) and the synthetic scenarios it plays, the 'gym' half of
 * otherIntentScenarios (the bank's train slice keeps an utterance of every intent, so the whole
 * bank names the same intents; the CA speaks the run's train slice).
 */
function otherIntentsMatch(
  ctx: Pick<LabContext, 'domain' | 'config'>,
  matchId: string,
): { matchId: string; scenarios: Scenario[]; episodesPerScenario: number } | null {
  const n = ctx.config.gym.daOtherIntents ?? 0;
  if (n === 0) return null;
  return { matchId: `${matchId}-G`, scenarios: otherIntentScenarios(ctx.domain, ctx.domain.bank, 'gym'), episodesPerScenario: n };
}

/**
 * IB-RL: the round's joint rollouts between the pool's members, which the round's gyms train on,
 * played once and stored as `input.matchId` (the arena match itself when both are current: found
 * stored). Nothing for an RL-ADA gym. An external gym plays them before it exports (the export
 * writes their decision points).
 */
export async function jointRollouts(ctx: LabContext, cache: PolicyCache, input: GymInput): Promise<void> {
  const ib = input.ibRl;
  if (!ib) return;
  await storedMatch(
    ctx,
    cache,
    input.matchId,
    ib.da,
    ib.ca,
    deriveSeed(input.seed, 'ib-rl-joint', ib.round),
    `IB-RL round ${ib.round}: joint rollouts ${ib.da} vs ${ib.ca}`,
  );
}

/** The DA's actions not masked as structurally invalid at `obs` (models/da-net.ts invalidActions), for GRPO's ε-greedy exploration. */
function validDaChoices(obs: DaDecisionPoint['obs']): DaChoice[] {
  const invalid = invalidActions(dialogueState(obs));
  return DA_CHOICES.filter((a) => !invalid.has(a));
}

/**
 * The DA gym's observation of a decision point: as recorded, or with word dropout at rate p
 * (`gym.daWordDropout`), drawn from a stream per GRPO step, so a step's observations depend on
 * (seed, step) and the order GRPO observes its prompts in.
 */
function wordDropout(p: number, seed: number): (point: DaDecisionPoint, step: number) => DaDecisionPoint['obs'] {
  if (p === 0) return (point) => point.obs;
  let at = -1;
  let rng = new Rng(0);
  return (point, step) => {
    if (step !== at) [at, rng] = [step, new Rng(deriveSeed(seed, 'da-word-dropout', step))];
    return dropCustomerWords(point.obs, p, () => rng.next());
  };
}

export async function gym(ctx: LabContext, cache: PolicyCache, input: GymInput): Promise<GymOutput> {
  // Our own earlier result, when a restored run restarts this gym (killed after the save below,
  // before the run's next snapshot): the note is stored with the checkpoint.
  const done = ctx.checkpoints
    .list(input.role)
    .find((c) => c.runId === ctx.runId && c.parent === input.from && c.trainingData.find((d) => d.kind === 'match')?.id === input.matchId);
  if (done) return { checkpoint: done.name, note: done.note };

  const afterMatch = input.afterMatch ?? matchIndexOf(input.matchId);
  const ib = input.ibRl;
  await jointRollouts(ctx, cache, input);
  const beyond = input.role === 'DA' && !ib ? otherIntentsMatch(ctx, input.matchId) : null;
  if (beyond)
    await storedMatch(
      ctx,
      cache,
      beyond.matchId,
      input.from,
      input.opponent,
      deriveSeed(input.seed, 'gym-other-intents', afterMatch),
      `DA gym beyond the arena: ${input.from} vs ${input.opponent} on ${beyond.scenarios.length} other intents`,
      beyond,
    );
  const poolNote = ib
    ? `IB-RL round ${ib.round}: ${ib.pairing} joint rollouts ${ib.da} vs ${ib.ca} (${input.matchId}), rollouts against frozen ${input.opponent}${ib.lr !== undefined ? `, lr ${ib.lr}` : ''}`
    : null;
  const chosen = await gymEpisodes(ctx, input);
  // Played under the turn limit of their match; an EAU write may have lowered it since (arena.maxDaTurns).
  const withinLimit = chosen.map((e) => withinTurnLimit(e, ctx.sparring.arena.maxDaTurns));
  const humanIds = humanEpisodeIds(ctx, input.role, input.matchId);
  // The name this gym will likely get, for its label and metric phase. Checkpoint names are
  // per lab, so runs in parallel processes (a study's workers) can take it first: the saved
  // checkpoint takes the next free name at write time, and that is the one the run goes on with.
  let name = ctx.checkpoints.nextName(input.role);
  const label = `${input.role} gym: ${input.from} → ${name} against frozen ${input.opponent}`;
  const seed = deriveSeed(input.seed, 'gym', afterMatch);
  const start = ctx.checkpoints.resolve(input.from, input.role);
  // The machine plans no builtin gym for an LLM (untrainedLlmRoles); this is the last guard.
  assertBuiltin(start);
  let note: string | null;

  try {
    if (input.role === 'DA') {
      const model = await DaModel.fromSnapshot(start.snapshot, ctx.session ?? {});
      const reference = await DaModel.fromSnapshot(start.snapshot, ctx.session ?? {});
      try {
        const points = sliceEpisodes(withinLimit, ctx.sparring.arena.maxDaTurns);
        const frozenCa = await cache.ca(input.opponent, trainingDomain(ctx).bank, ctx.config.ca?.tactics);
        const symbolic = symbolicMix(ctx);
        const config = grpoConfig(roleBudget(ctx.config.gym.da, ib?.lr), 'DA', seed);
        const result = await runGrpo<DaDecisionPoint, DaDecisionPoint['obs'], DaChoice>({
          model,
          reference,
          prompts: points,
          observe: wordDropout(ctx.config.gym.daWordDropout ?? 0, seed),
          explorable: validDaChoices,
          reward: daRolloutReward(
            { config: ctx.sparring, ca: frozenCa, judge: judgeFunction(judgeOf(ctx)), ...(symbolic ? { symbolic } : {}) },
            greedyActor(model),
          ),
          config,
          actionKey: (c) => c,
          onStep: onGrpoStep(ctx, 'gym', label, `gym:${name}`, plannedSteps(config, points.length)),
          shouldStop: ctx.stopped,
          configForStep: stepConfigs(ctx, 'DA', () => name, seed, ib?.lr),
        });
        if (ctx.stopped()) throw new Error('run stopped');
        note = earlyStopNote(result);
        save(await model.snapshot(), note, model.provider);
        recordGymDiagnostics(ctx, name, 'DA', ctx.config.gym.da, points.length, result);
      } finally {
        await model.dispose();
        await reference.dispose();
      }
    } else {
      const model = await CaModel.fromSnapshot(start.snapshot, ctx.session ? { session: ctx.session } : {});
      try {
        const every = withinLimit.flatMap((r) => sliceCaDecisionPoints(r, ctx.sparring.arena.maxDaTurns));
        const points = ctx.config.gym.caDecisions === 'openings' ? every.filter(isOpeningPoint) : every;
        const result = await trainCa(
          ctx,
          model,
          points,
          await cache.da(input.opponent),
          roleBudget(ctx.config.gym.ca, ib?.lr),
          seed,
          'gym',
          label,
          `gym:${name}`,
          stepConfigs(ctx, 'CA', () => name, seed, ib?.lr),
        );
        if (ctx.stopped()) throw new Error('run stopped');
        note = earlyStopNote(result);
        save(await model.snapshot(), note, model.provider);
        recordGymDiagnostics(ctx, name, 'CA', ctx.config.gym.ca, points.length, result);
      } finally {
        await model.dispose();
      }
    }
  } catch (e) {
    if (!(e instanceof GrpoDivergenceError)) throw e;
    // A diverging gym keeps the last good checkpoint (a copy, so lineage records the attempt).
    note = `gym diverged (${e.message}); kept the weights of ${input.from}`;
    save(start.snapshot, note, start.provider);
  }
  note = poolNote && note ? `${poolNote}; ${note}` : (poolNote ?? note);
  // The LLM judge's calls of the gym's rollouts (no stored episode: their records have none).
  if (callsLlm(ctx)) flushPendingLlmCalls();
  return { checkpoint: name, note };

  function save(snapshot: Awaited<ReturnType<DaModel['snapshot']>>, why: string | null, provider: string | null) {
    name = ctx.checkpoints.save({
      role: input.role,
      source: 'gym',
      runId: ctx.runId,
      parent: input.from,
      snapshot,
      provider,
      note: poolNote && why ? `${poolNote}; ${why}` : (poolNote ?? why),
      trainingData: [
        { kind: 'match', id: input.matchId },
        // The earlier matches of the pool (gym.matches), newest first.
        ...(ib
          ? []
          : recentMatchIds(ctx, input.matchId)
              .filter((id) => id !== input.matchId)
              .reverse()
              .map((id) => ({ kind: 'match', id }))),
        // gym.daOtherIntents: the gym's own match on the intents beyond the arena.
        ...(beyond ? [{ kind: 'match', id: beyond.matchId }] : []),
        ...humanIds.map((id) => ({ kind: HUMAN_EPISODE, id })),
        // IB-RL lineage: the pool members whose joint rollouts this update saw.
        ...(ib
          ? [
              { kind: IB_RL_POOL_DA, id: ib.da },
              { kind: IB_RL_POOL_CA, id: ib.ca },
            ]
          : []),
      ],
    }).name;
  }
}

// ------------------------------------------------------------------------------- evaluate

export interface CheckpointEvaluation {
  da: string;
  ca: string;
  heldout: Awaited<ReturnType<typeof evaluateDa>>['heldout'];
  gate: Awaited<ReturnType<typeof evaluateDa>>['gate'];
  /** With adversities on: MADS L-2 and L-1 on the robustness set, the lab's custom scenarios included. */
  mads?: Awaited<ReturnType<typeof evaluateMads>>;
  /**
   * The same held-out evaluation against the scripted CA: a fixed opponent, so DA checkpoints of
   * different runs (each evaluated against its own latest CA) can be compared with each other.
   * Absent in evaluations stored before it was added.
   */
  reference?: { ca: 'scripted'; heldout: CheckpointEvaluation['heldout']; gate: CheckpointEvaluation['gate'] };
}

/** The evaluations against the scripted CA, as rows like the main ones (checkpoints that have one). */
export function referenceEvaluations(evals: readonly CheckpointEvaluation[]): Pick<CheckpointEvaluation, 'da' | 'heldout' | 'gate'>[] {
  return evals.flatMap((e) => (e.reference ? [{ da: e.da, heldout: e.reference.heldout, gate: e.reference.gate }] : []));
}

export async function evaluate(ctx: LabContext, cache: PolicyCache, input: EvaluateInput): Promise<{ checkpoints: CheckpointEvaluation[] }> {
  const out: CheckpointEvaluation[] = [];
  const seeds = Array.from({ length: ctx.config.eval.runs }, (_, i) => deriveSeed(input.seed, 'eval', i));
  const ca = await cache.ca(input.ca);
  const scripted = new ScriptedCa(ctx.domain);
  for (const [i, name] of input.da.entries()) {
    const da = await cache.da(name);
    const of = `${name} (${i + 1}/${input.da.length})`;
    const heldout = (opponent: CaPolicy, label: string) =>
      evaluateDa({
        domain: ctx.domain,
        da,
        ca: opponent,
        judge: judgeOf(ctx),
        config: ctx.sparring,
        seeds,
        episodesPerScenario: ctx.config.eval.episodesPerScenario,
        gateEpisodesPerScenario: ctx.config.eval.gateEpisodesPerScenario,
        onProgress: report(ctx, 'evaluate', label, Date.now()),
      });
    const r = await heldout(ca, `held-out evaluation of ${of}`);
    const mads = ctx.config.adversities
      ? await evaluateMads({
          domain: ctx.domain,
          da,
          ca,
          judge: judgeOf(ctx),
          config: ctx.sparring,
          seeds,
          episodesPerScenario: ctx.config.eval.episodesPerScenario,
          onProgress: report(ctx, 'evaluate', `robustness (MADS) of ${of}`, Date.now()),
        })
      : undefined;
    const ref = await heldout(scripted, `held-out evaluation of ${of} against the scripted CA`);
    out.push({
      da: name,
      ca: input.ca,
      heldout: r.heldout,
      gate: r.gate,
      ...(mads ? { mads } : {}),
      reference: { ca: 'scripted', heldout: ref.heldout, gate: ref.gate },
    });
  }
  // The evaluation's LLM calls (its episodes are not stored, what they cost is): an LLM role's, an LLM judge's or an LLM checkpoint's.
  if (callsLlm(ctx) || pendingLlmCalls(ctx.store.path)?.records.length) flushPendingLlmCalls();
  return { checkpoints: out };
}
