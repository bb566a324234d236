/**
 * The co-evolution run (RL-ADA §3, DESIGN.md §1) as an xstate v5 machine:
 *
 *   bootstrap → match → decide ─stop─→ evaluate → done
 *                 ↑        │
 *                 └─ gym ←─┘ (the weaker agent trains against the frozen other one)
 *
 * A role whose gyms train outside Sparring (RunInput.externalGyms: run config gym.da.trainer or
 * gym.ca.trainer 'external') takes `waiting-for-trainer` instead of `gym`: the host exports the
 * gym, records a gym job and waits until a checkpoint is registered for it (or the job is
 * cancelled: the role keeps its checkpoint). It is persisted like any phase, so a killed run
 * resumes waiting; a pause there takes effect at once (nothing runs in this process).
 *
 * Who trains after a match follows the run's schedule (RunConfig.schedule): RL-ADA's isolation
 * by default; the ablations a study compares it with (both agents, no CA gyms, a frozen
 * opponent, a fixed DA gym budget) change only the queue of gyms planned after each match.
 * IB-RL (`kind: 'ib-rl'`, ./ib-rl.ts) also plans a queue: after match t the opponent pool draws
 * round t's pairing, and each role the pairing and the stagger let train gets a gym of its own on
 * the round's joint rollouts, against the pairing's other member.
 *
 * Side effects (training, matches, evaluation, storage) are actors the host provides; each is
 * keyed by ids derived from the run (match `RUN-M3`, checkpoint `DA2`), so an actor restarted
 * after a restore finds its own earlier work and neither loses nor duplicates it. The host
 * persists `getPersistedSnapshot()` at every phase boundary.
 */
import { assign, fromPromise, setup } from 'xstate';
import type { StoppingConfig } from '../config';
import { stoppingDecision, weakerAgent } from './stopping';
import type { Role, StopDecision, WeakerAgent } from './stopping';
import type { CustomerArmSummary } from '../eau/customer-mix';
import type { TacticSummary } from './tactics';
import type { Schedule } from './run-config';
import { describeDraw, drawRound, isIbRl, roundsDone } from './ib-rl';
import type { PoolDraw } from './ib-rl';

export interface RunInput {
  runId: string;
  seed: number;
  stopping: StoppingConfig;
  /** Who trains after a match (absent: RL-ADA's isolation gym). */
  schedule?: Schedule;
  /** Roles whose gyms an external trainer runs (absent: none, every gym is the builtin GRPO). */
  externalGyms?: Role[];
}

export interface MatchSummary {
  matchId: string;
  index: number;
  da: string;
  ca: string;
  wDa: number;
  fraudRate: number | null;
  tactics: TacticSummary;
  stop: StopDecision;
  /** The weaker agent by RL-ADA's rule (null when the run stops after this match). */
  next: WeakerAgent | null;
  /** The gyms planned after this match, in order (absent in runs stored before schedules). */
  gyms?: Role[];
  /** Why those gyms (or none), in words, when the schedule departs from RL-ADA's rule. */
  scheduleNote?: string;
  /** W_DA per customer arm under the symbolic-user mix ε (MatchOutput.arms); `wDa` is the blend. */
  arms?: CustomerArmSummary;
  /** IB-RL: the round's draw from the opponent pool (who plays the joint rollouts, who trains). */
  pool?: PoolDraw;
}

export interface GymSummary {
  role: Role;
  from: string;
  to: string;
  /** After this match. */
  afterMatch: number;
  /** Why the gym ended early or restored a checkpoint, when it did. */
  note: string | null;
  /** `to` is an LLM an external trainer handed back: its model spec (GymOutput.llm). */
  llm?: string;
  /** IB-RL: the pool members whose joint rollouts this update saw, and the frozen opponent of its rollouts. */
  pool?: { round: number; pairing: PoolDraw['pairing']; da: string; ca: string; opponent: string };
}

export interface RunContext extends RunInput {
  da: string | null;
  ca: string | null;
  matches: MatchSummary[];
  gyms: GymSummary[];
  pauseRequested: boolean;
  /** Gyms still to run after the latest match, in order (absent in snapshots stored before schedules). */
  pendingGyms?: Role[];
  /**
   * Roles whose current checkpoint is an LLM an external trainer handed back (`sparring checkpoints
   * add --model SPEC`): the checkpoint and its model spec. Such a role plays through the LLM; its
   * gyms go to the external trainer again, or are skipped (said in the verdicts) when its trainer
   * is the builtin one, which cannot train an LLM. Absent: none.
   */
  llmCheckpoints?: Partial<Record<Role, { checkpoint: string; spec: string }>>;
  /** Where `paused` returns to. */
  resumeTo: 'match' | 'gym' | 'evaluate' | null;
  evaluation: unknown;
  error: string | null;
}

export type RunEvent = { type: 'user.pause' } | { type: 'user.resume' } | { type: 'user.stop' };

export interface BootstrapOutput {
  da: string;
  ca: string;
}
export interface MatchInput {
  runId: string;
  index: number;
  da: string;
  ca: string;
  seed: number;
}
export interface MatchOutput {
  matchId: string;
  wDa: number;
  fraudRate: number | null;
  tactics: TacticSummary;
  /** The stopping thresholds in force for this match (EAU knobs τ_DA, r_CA); absent: the run's. */
  stopping?: StoppingConfig;
  /**
   * W_DA per customer arm under EAU's symbolic-user mix ε (run config customer.symbolicMix > 0);
   * `wDa` above is the blend of the two. Absent without a mix.
   */
  arms?: CustomerArmSummary;
}
export interface GymInput {
  runId: string;
  role: Role;
  /** The checkpoint that trains. */
  from: string;
  /** The frozen opponent. */
  opponent: string;
  /** The match whose transcripts feed the gym. */
  matchId: string;
  /**
   * That match's index in the run (1, 2, …): what the gym's random choices are seeded from, beside
   * the run's seed. Never the match id, which holds the run id, so the same seed and config give
   * the same gym in any lab. Absent in snapshots persisted before it was added.
   */
  afterMatch?: number;
  seed: number;
  /**
   * IB-RL: the round's joint rollouts and the role's own settings. `matchId` is then the joint
   * rollouts' id: the arena match itself when both current checkpoints play, else
   * `RUN-J<round>`, which the gym plays (once) between `da` and `ca`. Its data is every
   * trajectory of the joint rollouts (no RL-ADA failure mix); `lr` is the role's own rate.
   */
  ibRl?: { round: number; pairing: PoolDraw['pairing']; da: string; ca: string; lr?: number };
}
/** A gym handed to an external trainer: the gym's input and its number in the run (1: the first). */
export interface ExternalGymInput extends GymInput {
  gym: number;
}
export interface GymOutput {
  checkpoint: string;
  note: string | null;
  /** The checkpoint is an LLM (an external trainer's result): its model spec. */
  llm?: string;
}
export interface EvaluateInput {
  runId: string;
  da: string[];
  ca: string;
  seed: number;
}

/** The role of the gym to run now: the head of the queue (snapshots before schedules: RL-ADA's choice). */
function gymRole(context: RunContext): Role {
  return context.pendingGyms?.[0] ?? context.matches.at(-1)!.next!.role;
}

/** The input of the gym to run now, whoever trains it. */
function gymInput(context: RunContext): ExternalGymInput {
  const last = context.matches.at(-1)!;
  const role = gymRole(context);
  const base = {
    runId: context.runId,
    role,
    from: role === 'DA' ? context.da! : context.ca!,
    afterMatch: last.index,
    seed: context.seed,
    gym: context.gyms.length + 1,
  };
  // IB-RL: the round's pool draw names the opponent and the joint rollouts.
  if (last.pool) return { ...base, ...ibRlGym(context, last, role) };
  return { ...base, opponent: role === 'DA' ? context.ca! : context.da!, matchId: last.matchId };
}

/** The context after a gym (builtin or external) returned `output`. */
function afterGym(context: RunContext, output: GymOutput): Partial<RunContext> {
  const last = context.matches.at(-1)!;
  const role = gymRole(context);
  const gym: GymSummary = {
    role,
    from: role === 'DA' ? context.da! : context.ca!,
    to: output.checkpoint,
    afterMatch: last.index,
    note: output.note,
    ...(output.llm ? { llm: output.llm } : {}),
    ...(last.pool
      ? { pool: { round: last.pool.round, pairing: last.pool.pairing, da: last.pool.da, ca: last.pool.ca, opponent: ibRlGym(context, last, role).opponent } }
      : {}),
  };
  const pendingGyms = (context.pendingGyms ?? [role]).slice(1);
  // An LLM came back: the role plays it from now on. Kept through a cancelled job (the same checkpoint); other weights end it.
  const current = context.llmCheckpoints ?? {};
  let llmCheckpoints = current;
  if (output.llm) llmCheckpoints = { ...current, [role]: { checkpoint: output.checkpoint, spec: output.llm } };
  else if (current[role] && current[role].checkpoint !== output.checkpoint) {
    const { [role]: _ended, ...rest } = current;
    llmCheckpoints = rest;
  }
  return {
    ...(role === 'DA' ? { da: output.checkpoint } : { ca: output.checkpoint }),
    ...(context.llmCheckpoints || output.llm ? { llmCheckpoints } : {}),
    gyms: [...context.gyms, gym],
    pendingGyms,
    resumeTo: pendingGyms.length > 0 ? ('gym' as const) : ('match' as const),
  };
}

/** Why a role played by an LLM (schedule.llm) never trains, in the words the run's verdicts carry. */
export function llmGymsSkipped(role: Role, name: string): string {
  return `${role} gyms skipped: the ${role} is an LLM (${name}) and no external trainer is attached`;
}

/**
 * The roles an LLM plays that no gym can train: the schedule's (schedule.llm), and a role whose
 * checkpoint is an LLM handed back by an external trainer while that role's trainer is the builtin
 * one (named `CHECKPOINT: SPEC`). An LLM checkpoint of a role whose trainer is external is not
 * here: its gyms are handed out again.
 */
export function untrainedLlmRoles(context: Pick<RunContext, 'schedule' | 'llmCheckpoints' | 'externalGyms'>): Schedule['llm'] {
  const out: NonNullable<Schedule['llm']> = { ...(context.schedule?.llm ?? {}) };
  for (const role of ['DA', 'CA'] as const) {
    const c = context.llmCheckpoints?.[role];
    const key = role === 'DA' ? 'da' : 'ca';
    if (c && !(context.externalGyms ?? []).includes(role) && out[key] === undefined) out[key] = `${c.checkpoint}: ${c.spec}`;
  }
  return out.da !== undefined || out.ca !== undefined ? out : undefined;
}

/** The schedule as the run plans with it: its LLM roles those no gym can train (untrainedLlmRoles). */
function planningSchedule(context: RunContext): Schedule | undefined {
  const llm = untrainedLlmRoles(context);
  if (!llm) return context.schedule;
  return { ...context.schedule, llm };
}

/** The schedule's LLM roles as sentences (empty when none). */
function llmNotes(schedule: Schedule | undefined): string[] {
  const llm = schedule?.llm;
  return [...(llm?.da ? [llmGymsSkipped('DA', llm.da)] : []), ...(llm?.ca ? [llmGymsSkipped('CA', llm.ca)] : [])];
}

/**
 * The stopping verdict under the schedule: with a fixed DA gym budget the run stops once it is
 * spent, whatever the stopping rule says (not with an LLM DA, which never trains: the rule
 * decides); a role played by an LLM is named in the verdict.
 */
export function budgetStop(rule: StopDecision, schedule: Schedule | undefined, daGymsDone: number): StopDecision {
  return withLlmNotes(fixedBudgetStop(rule, schedule?.llm?.da ? undefined : schedule, daGymsDone), schedule);
}

/** A verdict with the schedule's LLM roles named. */
function withLlmNotes(decided: StopDecision, schedule: Schedule | undefined): StopDecision {
  const notes = llmNotes(schedule);
  return notes.length ? { ...decided, explanation: `${decided.explanation} (${notes.join('; ')})` } : decided;
}

function fixedBudgetStop(rule: StopDecision, schedule: Schedule | undefined, daGymsDone: number): StopDecision {
  const budget = schedule?.daGyms;
  if (budget === undefined) return rule;
  const spent = daGymsDone >= budget;
  return {
    ...rule,
    stop: spent,
    reason: spent ? 'gym_budget' : null,
    explanation: spent
      ? `stop at match ${rule.t}: the DA gym budget (${budget}) is spent — the stopping rule is not consulted`
      : `continue after match ${rule.t}: DA gym ${daGymsDone + 1} of a fixed budget of ${budget}`,
  };
}

/** The gyms after a match that does not stop the run, by the schedule; a role an LLM plays has none. */
export function planGyms(next: WeakerAgent | null, schedule: Schedule | undefined, daGymsDone: number): { gyms: Role[]; note: string | null } {
  const llm = schedule?.llm;
  const plan = ruleGyms(next, llm?.da ? { ...schedule, daGyms: undefined } : schedule, daGymsDone);
  const skipped = [...new Set(plan.gyms)].flatMap((r) => {
    const name = r === 'DA' ? llm?.da : llm?.ca;
    return name ? [{ role: r, name }] : [];
  });
  if (skipped.length === 0) return plan;
  const roles = new Set(skipped.map((s) => s.role));
  return { gyms: plan.gyms.filter((r) => !roles.has(r)), note: [plan.note, ...skipped.map((s) => llmGymsSkipped(s.role, s.name))].filter((x) => x).join('; ') };
}

function ruleGyms(next: WeakerAgent | null, schedule: Schedule | undefined, daGymsDone: number): { gyms: Role[]; note: string | null } {
  if (!next) return { gyms: [], note: null };
  const frozen = (schedule?.daOpponent ?? 'co-evolving') !== 'co-evolving';
  const caGyms = (schedule?.caGyms ?? true) && !frozen;
  if (schedule?.daGyms !== undefined) {
    return daGymsDone < schedule.daGyms
      ? { gyms: ['DA'], note: `DA gym ${daGymsDone + 1} of ${schedule.daGyms} (fixed budget)` }
      : { gyms: [], note: 'DA gym budget spent' };
  }
  if (schedule?.isolation === 'both')
    return { gyms: caGyms ? ['DA', 'CA'] : ['DA'], note: caGyms ? 'both agents train (no isolation)' : 'both would train; CA gyms are off' };
  if (next.role === 'CA' && !caGyms)
    return { gyms: [], note: `the CA would train, but ${frozen ? `the opponent is frozen (${schedule?.daOpponent})` : 'CA gyms are off'}: no gym, next match` };
  return { gyms: [next.role], note: null };
}

/** A match's summary: the stopping decision and the gyms the schedule plans after it (IB-RL: the round's pool draw). */
function afterMatch(context: RunContext, matchOutput: MatchOutput): MatchSummary {
  // The thresholds in force when the match started (EAU knob writes to τ_DA, r_CA); absent: the run's.
  const { stopping: inForce, ...output } = matchOutput;
  const stopping = inForce ?? context.stopping;
  const wDas = [...context.matches.map((m) => m.wDa), output.wDa];
  const daGymsDone = context.gyms.filter((g) => g.role === 'DA').length;
  const rule = stoppingDecision(wDas, stopping);
  const ibRl = isIbRl(context.schedule);
  const schedule = planningSchedule(context);
  const stop = ibRl ? withLlmNotes(roundsStop(rule, context.schedule?.rounds), schedule) : budgetStop(rule, schedule, daGymsDone);
  const next = stop.stop ? null : weakerAgent(output.wDa, stopping);
  const base = { ...output, index: wDas.length, da: context.da!, ca: context.ca!, stop, next };
  if (ibRl) {
    if (stop.stop) return { ...base, gyms: [] };
    const pool = drawRound(context.seed, wDas.length, context.schedule, checkpointHistory(context));
    // A role an LLM plays that no gym can train sits the round out, and the note says so.
    const skipped = pool.trains.flatMap((r) => {
      const name = r === 'DA' ? schedule?.llm?.da : schedule?.llm?.ca;
      return name ? [llmGymsSkipped(r, name)] : [];
    });
    const gyms = skipped.length ? pool.trains.filter((r) => !(r === 'DA' ? schedule?.llm?.da : schedule?.llm?.ca)) : pool.trains;
    return { ...base, gyms, scheduleNote: [describeDraw(pool), ...skipped].join('; '), pool };
  }
  const plan = planGyms(next, schedule, daGymsDone);
  return { ...base, gyms: plan.gyms, ...(plan.note ? { scheduleNote: plan.note } : {}) };
}

/** Each role's checkpoints in the order the run made them, the current one last: IB-RL's pool. */
function checkpointHistory(context: RunContext): Record<Role, string[]> {
  const of = (role: Role) => {
    const first = role === 'DA' ? (context.matches[0]?.da ?? context.da!) : (context.matches[0]?.ca ?? context.ca!);
    return [...new Set([first, ...context.gyms.filter((g) => g.role === role).map((g) => g.to)])];
  };
  return { DA: of('DA'), CA: of('CA') };
}

/** IB-RL with a fixed number of rounds: stop once they are played (the stopping rule is not consulted); else the rule decides. */
export function roundsStop(rule: StopDecision, rounds: number | undefined): StopDecision {
  if (rounds === undefined) return rule;
  const played = roundsDone(rule.t);
  const stop = played >= rounds;
  return {
    ...rule,
    stop,
    reason: stop ? 'rounds' : null,
    explanation: stop
      ? `stop at match ${rule.t}: ${rounds} IB-RL round${rounds === 1 ? '' : 's'} played — the stopping rule is not consulted`
      : `continue after match ${rule.t}: IB-RL round ${played + 1} of ${rounds}`,
  };
}

/** The IB-RL part of a gym's input: the round's joint rollouts, the frozen opponent (the pairing's other member) and the role's rate. */
function ibRlGym(context: RunContext, last: MatchSummary, role: Role): Pick<GymInput, 'opponent' | 'matchId' | 'ibRl'> {
  const pool = last.pool!;
  const lr = role === 'DA' ? context.schedule?.stagger?.daLr : context.schedule?.stagger?.caLr;
  return {
    opponent: role === 'DA' ? pool.ca : pool.da,
    // Both current checkpoints: the arena match already is their joint rollouts.
    matchId: pool.pairing === 'both-current' ? last.matchId : `${context.runId}-J${pool.round}`,
    ibRl: { round: pool.round, pairing: pool.pairing, da: pool.da, ca: pool.ca, ...(lr !== undefined ? { lr } : {}) },
  };
}

const placeholder = <I, O>(name: string) =>
  fromPromise<O, I>(async () => {
    throw new Error(`run machine: the host did not provide the "${name}" actor`);
  });

export const runMachine = setup({
  types: {
    context: {} as RunContext,
    input: {} as RunInput,
    events: {} as RunEvent,
  },
  actors: {
    bootstrap: placeholder<{ runId: string; seed: number }, BootstrapOutput>('bootstrap'),
    playMatch: placeholder<MatchInput, MatchOutput>('playMatch'),
    gym: placeholder<GymInput, GymOutput>('gym'),
    externalGym: placeholder<ExternalGymInput, GymOutput>('externalGym'),
    evaluate: placeholder<EvaluateInput, unknown>('evaluate'),
  },
  guards: {
    pauseRequested: ({ context }) => context.pauseRequested,
    shouldStop: ({ context }) => context.matches.at(-1)?.stop.stop === true,
  },
  actions: {
    requestPause: assign({ pauseRequested: true }),
    recordError: assign({ error: ({ event }) => String((event as { error?: unknown }).error) }),
  },
}).createMachine({
  id: 'run',
  context: ({ input }) => ({
    ...input,
    da: null,
    ca: null,
    matches: [],
    gyms: [],
    pendingGyms: [],
    pauseRequested: false,
    resumeTo: null,
    evaluation: null,
    error: null,
  }),
  initial: 'bootstrap',
  on: {
    'user.pause': { actions: 'requestPause' },
    'user.stop': { target: '.stopped' },
  },
  states: {
    bootstrap: {
      invoke: {
        src: 'bootstrap',
        input: ({ context }) => ({ runId: context.runId, seed: context.seed }),
        onDone: {
          target: 'boundary',
          actions: assign({
            da: ({ event }) => event.output.da,
            // A frozen scripted opponent replaces CA0 in every match and DA gym.
            ca: ({ context, event }) => (context.schedule?.daOpponent === 'scripted' ? 'scripted' : event.output.ca),
            resumeTo: 'match',
          }),
        },
        onError: { target: 'failed', actions: 'recordError' },
      },
    },
    match: {
      invoke: {
        src: 'playMatch',
        input: ({ context }) => ({ runId: context.runId, index: context.matches.length + 1, da: context.da!, ca: context.ca!, seed: context.seed }),
        onDone: {
          target: 'decide',
          actions: assign({
            stopping: ({ context, event }) => event.output.stopping ?? context.stopping,
            matches: ({ context, event }) => [...context.matches, afterMatch(context, event.output)],
            pendingGyms: ({ context, event }) => afterMatch(context, event.output).gyms ?? [],
          }),
        },
        onError: { target: 'failed', actions: 'recordError' },
      },
    },
    decide: {
      always: [
        { guard: 'shouldStop', target: 'boundary', actions: assign({ resumeTo: 'evaluate' }) },
        // A schedule may plan no gym after a match (the CA's turn with CA gyms off): play again.
        { guard: ({ context }) => (context.pendingGyms ?? ['planned']).length === 0, target: 'boundary', actions: assign({ resumeTo: 'match' }) },
        { target: 'boundary', actions: assign({ resumeTo: 'gym' }) },
      ],
    },
    gym: {
      invoke: {
        src: 'gym',
        input: ({ context }) => {
          const { gym: _n, ...input } = gymInput(context);
          return input;
        },
        onDone: { target: 'boundary', actions: assign(({ context, event }) => afterGym(context, event.output)) },
        onError: { target: 'failed', actions: 'recordError' },
      },
    },
    /** An external trainer's gym: exported, a gym job recorded, and waited for (see the top). */
    'waiting-for-trainer': {
      on: { 'user.pause': { target: 'paused', actions: 'requestPause' } },
      invoke: {
        src: 'externalGym',
        input: ({ context }) => gymInput(context),
        onDone: { target: 'boundary', actions: assign(({ context, event }) => afterGym(context, event.output)) },
        onError: { target: 'failed', actions: 'recordError' },
      },
    },
    /** Between phases: where the host persists the snapshot, and where a pause takes effect. */
    boundary: {
      always: [
        { guard: 'pauseRequested', target: 'paused' },
        { guard: ({ context }) => context.resumeTo === 'gym' && (context.externalGyms ?? []).includes(gymRole(context)), target: 'waiting-for-trainer' },
        { guard: ({ context }) => context.resumeTo === 'gym', target: 'gym' },
        { guard: ({ context }) => context.resumeTo === 'evaluate', target: 'evaluate' },
        { target: 'match' },
      ],
    },
    paused: {
      on: { 'user.resume': { target: 'boundary', actions: assign({ pauseRequested: false }) } },
    },
    evaluate: {
      invoke: {
        src: 'evaluate',
        input: ({ context }) => ({
          runId: context.runId,
          seed: context.seed,
          ca: context.ca!,
          da: [...new Set([context.matches[0]?.da ?? context.da!, ...context.gyms.filter((g) => g.role === 'DA').map((g) => g.to)])],
        }),
        onDone: { target: 'done', actions: assign({ evaluation: ({ event }) => event.output }) },
        onError: { target: 'failed', actions: 'recordError' },
      },
    },
    done: { type: 'final' },
    stopped: { type: 'final' },
    failed: { type: 'final' },
  },
});
