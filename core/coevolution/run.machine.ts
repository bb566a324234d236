/**
 * The co-evolution run (RL-ADA §3, DESIGN.md §1) as an xstate v5 machine:
 *
 *   bootstrap → match → decide ─stop─→ evaluate → done
 *                 ↑        │
 *                 └─ gym ←─┘ (the weaker agent trains against the frozen other one)
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
import type { TacticSummary } from './tactics';

export interface RunInput {
  runId: string;
  seed: number;
  stopping: StoppingConfig;
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
  /** Who trains next (null when the run stops after this match). */
  next: WeakerAgent | null;
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
  context: ({ input }) => ({ ...input, da: null, ca: null, matches: [], gyms: [], pauseRequested: false, resumeTo: null, evaluation: null, error: null }),
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
        onDone: { target: 'boundary', actions: assign({ da: ({ event }) => event.output.da, ca: ({ event }) => event.output.ca, resumeTo: 'match' }) },
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
            matches: ({ context, event }) => {
              const wDas = [...context.matches.map((m) => m.wDa), event.output.wDa];
              const stop = stoppingDecision(wDas, context.stopping);
              const summary: MatchSummary = {
                ...event.output, index: wDas.length, da: context.da!, ca: context.ca!, stop,
                next: stop.stop ? null : weakerAgent(event.output.wDa, context.stopping),
              };
              return [...context.matches, summary];
            },
          }),
        },
        onError: { target: 'failed', actions: 'recordError' },
      },
    },
    decide: {
      always: [
        { guard: 'shouldStop', target: 'boundary', actions: assign({ resumeTo: 'evaluate' }) },
        { target: 'boundary', actions: assign({ resumeTo: 'gym' }) },
      ],
    },
    gym: {
      invoke: {
        src: 'gym',
        input: ({ context }) => {
          const last = context.matches.at(-1)!;
          const role = last.next!.role;
          return {
            runId: context.runId, role, from: role === 'DA' ? context.da! : context.ca!, opponent: role === 'DA' ? context.ca! : context.da!,
            matchId: last.matchId, afterMatch: last.index, seed: context.seed,
          };
        },
        onDone: {
          target: 'boundary',
          actions: assign(({ context, event }) => {
            const last = context.matches.at(-1)!;
            const role = last.next!.role;
            const gym: GymSummary = { role, from: role === 'DA' ? context.da! : context.ca!, to: event.output.checkpoint, afterMatch: last.index, note: event.output.note };
            return { ...(role === 'DA' ? { da: event.output.checkpoint } : { ca: event.output.checkpoint }), gyms: [...context.gyms, gym], resumeTo: 'match' as const };
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
