/**
 * The co-evolution run (RL-ADA §3, DESIGN.md §1) as an xstate v5 machine:
 *
 *   bootstrap → match → decide ─stop─→ evaluate → done
 *                 ↑        │
 *                 └─ gym ←─┘ (the weaker agent trains against the frozen other one)
 *
 * Who trains after a match follows the run's schedule (RunConfig.schedule): RL-ADA's isolation
 * by default; the ablations a study compares it with (both agents, no CA gyms, a frozen
 * opponent, a fixed DA gym budget) change only the queue of gyms planned after each match.
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

export interface RunInput {
  runId: string;
  seed: number;
  stopping: StoppingConfig;
  /** Who trains after a match (absent: RL-ADA's isolation gym). */
  schedule?: Schedule;
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
}

export interface GymSummary {
  role: Role;
  from: string;
  to: string;
  /** After this match. */
  afterMatch: number;
  /** Why the gym ended early or restored a checkpoint, when it did. */
  note: string | null;
}

export interface RunContext extends RunInput {
  da: string | null;
  ca: string | null;
  matches: MatchSummary[];
  gyms: GymSummary[];
  pauseRequested: boolean;
  /** Gyms still to run after the latest match, in order (absent in snapshots stored before schedules). */
  pendingGyms?: Role[];
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
}
export interface GymOutput {
  checkpoint: string;
  note: string | null;
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

/** Why a role played by an LLM (schedule.llm) never trains, in the words the run's verdicts carry. */
export function llmGymsSkipped(role: Role, name: string): string {
  return `${role} gyms skipped: the ${role} is an LLM (${name}) and no external trainer is attached`;
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
  const notes = llmNotes(schedule);
  const decided = fixedBudgetStop(rule, schedule?.llm?.da ? undefined : schedule, daGymsDone);
  return notes.length ? { ...decided, explanation: `${decided.explanation} (${notes.join('; ')})` } : decided;
}

function fixedBudgetStop(rule: StopDecision, schedule: Schedule | undefined, daGymsDone: number): StopDecision {
  const budget = schedule?.daGyms;
  if (budget === undefined) return rule;
  const spent = daGymsDone >= budget;
  return {
    ...rule, stop: spent, reason: spent ? 'gym_budget' : null,
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
    return daGymsDone < schedule.daGyms ? { gyms: ['DA'], note: `DA gym ${daGymsDone + 1} of ${schedule.daGyms} (fixed budget)` } : { gyms: [], note: 'DA gym budget spent' };
  }
  if (schedule?.isolation === 'both') return { gyms: caGyms ? ['DA', 'CA'] : ['DA'], note: caGyms ? 'both agents train (no isolation)' : 'both would train; CA gyms are off' };
  if (next.role === 'CA' && !caGyms) return { gyms: [], note: `the CA would train, but ${frozen ? `the opponent is frozen (${schedule?.daOpponent})` : 'CA gyms are off'}: no gym, next match` };
  return { gyms: [next.role], note: null };
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
  context: ({ input }) => ({ ...input, da: null, ca: null, matches: [], gyms: [], pendingGyms: [], pauseRequested: false, resumeTo: null, evaluation: null, error: null }),
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
            matches: ({ context, event }) => {
              const wDas = [...context.matches.map((m) => m.wDa), event.output.wDa];
              const daGymsDone = context.gyms.filter((g) => g.role === 'DA').length;
              const stopping = event.output.stopping ?? context.stopping;
              const stop = budgetStop(stoppingDecision(wDas, stopping), context.schedule, daGymsDone);
              const next = stop.stop ? null : weakerAgent(event.output.wDa, stopping);
              const { stopping: _, ...output } = event.output;
              const plan = planGyms(next, context.schedule, daGymsDone);
              const summary: MatchSummary = {
                ...output, index: wDas.length, da: context.da!, ca: context.ca!, stop, next, gyms: plan.gyms,
                ...(plan.note ? { scheduleNote: plan.note } : {}),
              };
              return [...context.matches, summary];
            },
            pendingGyms: ({ context, event }) => {
              const daGymsDone = context.gyms.filter((g) => g.role === 'DA').length;
              const wDas = [...context.matches.map((m) => m.wDa), event.output.wDa];
              const stopping = event.output.stopping ?? context.stopping;
              const stop = budgetStop(stoppingDecision(wDas, stopping), context.schedule, daGymsDone);
              return planGyms(stop.stop ? null : weakerAgent(event.output.wDa, stopping), context.schedule, daGymsDone).gyms;
            },
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
          const last = context.matches.at(-1)!;
          const role = gymRole(context);
          return {
            runId: context.runId, role, from: role === 'DA' ? context.da! : context.ca!, opponent: role === 'DA' ? context.ca! : context.da!,
            matchId: last.matchId, afterMatch: last.index, seed: context.seed,
          };
        },
        onDone: {
          target: 'boundary',
          actions: assign(({ context, event }) => {
            const last = context.matches.at(-1)!;
            const role = gymRole(context);
            const gym: GymSummary = { role, from: role === 'DA' ? context.da! : context.ca!, to: event.output.checkpoint, afterMatch: last.index, note: event.output.note };
            const pendingGyms = (context.pendingGyms ?? [role]).slice(1);
            return {
              ...(role === 'DA' ? { da: event.output.checkpoint } : { ca: event.output.checkpoint }), gyms: [...context.gyms, gym], pendingGyms,
              resumeTo: pendingGyms.length > 0 ? ('gym' as const) : ('match' as const),
            };
          }),
        },
        onError: { target: 'failed', actions: 'recordError' },
      },
    },
    /** Between phases: where the host persists the snapshot, and where a pause takes effect. */
    boundary: {
      always: [
        { guard: 'pauseRequested', target: 'paused' },
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
          runId: context.runId, seed: context.seed, ca: context.ca!,
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
