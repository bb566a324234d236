import { describe, expect, it } from 'vitest';
import { createActor, fromPromise, toPromise } from 'xstate';
import type { AnyActorRef, Snapshot } from 'xstate';
import { DEFAULT_CONFIG } from '../config';
import type { TacticSummary } from './tactics';
import { runMachine } from './run.machine';
import type { BootstrapOutput, EvaluateInput, ExternalGymInput, GymInput, GymOutput, MatchInput, MatchOutput } from './run.machine';

const tactics: TacticSummary = { n: 0, meanTokens: 0, meanEntityDensity: 0, meanEntities: 0, decoyRate: 0, hedgeRate: 0 };

/** A fake lab: idempotent by id, like the real host actors must be. */
function fakeLab(trajectory: number[]) {
  const matches = new Map<string, MatchOutput>();
  const checkpoints = new Set<string>(['DA0', 'CA0']);
  const calls = { match: 0, gym: 0 };
  const gymFn = async (input: GymInput): Promise<GymOutput> => {
    const n = Number(input.from.slice(2)) + 1;
    const name = `${input.role}${n}`;
    if (!checkpoints.has(name)) {
      calls.gym++;
      checkpoints.add(name);
    }
    return { checkpoint: name, note: null };
  };
  const actors = {
    bootstrap: fromPromise<BootstrapOutput, { runId: string; seed: number }>(async () => ({ da: 'DA0', ca: 'CA0' })),
    playMatch: fromPromise<MatchOutput, MatchInput>(async ({ input }) => {
      const id = `${input.runId}-M${input.index}`;
      if (!matches.has(id)) {
        calls.match++;
        matches.set(id, { matchId: id, wDa: trajectory[input.index - 1]!, fraudRate: 1, tactics });
      }
      return matches.get(id)!;
    }),
    gym: fromPromise<GymOutput, GymInput>(async ({ input }) => gymFn(input)),
    evaluate: fromPromise<unknown, EvaluateInput>(async ({ input }) => ({ evaluated: input.da })),
  };
  return { actors, matches, checkpoints, calls, gymFn };
}

const input = { runId: 'R1', seed: 1, stopping: DEFAULT_CONFIG.stopping };
const table3 = [0.45, 0.63, 0.55, 0.68, 0.66];

async function finish(actor: AnyActorRef) {
  await toPromise(actor);
  return actor.getSnapshot() as Snapshot<unknown> & { value: string; context: Record<string, unknown> };
}

/**
 * For each of the first `boundaries` phase boundaries: run until it (the host persists at every
 * change of state value), "kill -9", restore the last persisted snapshot into the same idempotent
 * actors and continue; the run must end as an uninterrupted one did, playing and training nothing twice.
 */
async function killAtEveryBoundary(runInput: typeof input & { schedule?: object }, boundaries: number, check?: (lab: ReturnType<typeof fakeLab>) => void) {
  const reference = await finish(createActor(runMachine.provide({ actors: fakeLab(table3).actors }), { input: runInput }).start());
  for (let stopAfter = 1; stopAfter <= boundaries; stopAfter++) {
    const lab = fakeLab(table3);
    const first = createActor(runMachine.provide({ actors: lab.actors }), { input: runInput });
    let persisted: unknown = null;
    let seen = 0;
    let last = '';
    first.subscribe((snap) => {
      if (snap.value !== last && seen < stopAfter) {
        last = snap.value;
        seen++;
        persisted = JSON.parse(JSON.stringify(first.getPersistedSnapshot()));
      }
    });
    first.start();
    await finish(first);
    const before = { ...lab.calls };
    // xstate types `input` as required; a restored actor takes its context from the snapshot.
    const s = await finish(createActor(runMachine.provide({ actors: lab.actors }), { snapshot: persisted as never, input: runInput }).start());
    expect(s.value).toBe('done');
    expect(s.context).toEqual(reference.context);
    expect(lab.calls).toEqual(before); // idempotent actors: nothing played or trained twice
    check?.(lab);
  }
}

describe('run machine', () => {
  it('runs bootstrap → matches ↔ gyms → evaluate, training the weaker agent, and stops by the rule', async () => {
    const lab = fakeLab(table3);
    const actor = createActor(runMachine.provide({ actors: lab.actors }), { input }).start();
    const s = await finish(actor);
    expect(s.value).toBe('done');
    const ctx = s.context as {
      matches: { wDa: number; next: { role: string } | null; da: string; ca: string }[];
      gyms: { role: string; to: string }[];
      evaluation: unknown;
    };
    expect(ctx.matches.map((m) => m.wDa)).toEqual(table3);
    // W_DA 0.45 → DA trains; 0.63 → CA (W_CA 0.37 vs floor 0.35: −0.02 beats DA's −0.03); …
    expect(ctx.gyms.map((g) => g.to)).toEqual(['DA1', 'CA1', 'DA2', 'CA2']);
    expect(ctx.matches.map((m) => `${m.da}/${m.ca}`)).toEqual(['DA0/CA0', 'DA1/CA0', 'DA1/CA1', 'DA2/CA1', 'DA2/CA2']);
    expect(ctx.matches.at(-1)!.next).toBeNull();
    expect(ctx.evaluation).toEqual({ evaluated: ['DA0', 'DA1', 'DA2'] });
    expect(lab.calls).toEqual({ match: 5, gym: 4 });
  });

  it('save → restore → continue: a run killed at any phase resumes without duplicating work and ends the same', async () => {
    await killAtEveryBoundary(input, 8, (lab) => expect(lab.matches.size).toBe(5));
  });

  it('pauses at the next phase boundary, resumes, and stops on request', async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const lab = fakeLab(table3);
    const slowMatch = fromPromise<MatchOutput, MatchInput>(async ({ input: m }) => {
      if (m.index === 2) await gate;
      return { matchId: `${m.runId}-M${m.index}`, wDa: table3[m.index - 1]!, fraudRate: 1, tactics };
    });
    const actor = createActor(runMachine.provide({ actors: { ...lab.actors, playMatch: slowMatch } }), { input }).start();
    await new Promise((r) => setTimeout(r, 10));
    actor.send({ type: 'user.pause' });
    release();
    await new Promise((r) => setTimeout(r, 10));
    expect(actor.getSnapshot().value).toBe('paused');
    actor.send({ type: 'user.resume' });
    expect((await finish(actor)).value).toBe('done');

    const stopper = createActor(runMachine.provide({ actors: fakeLab(table3).actors }), { input }).start();
    stopper.send({ type: 'user.stop' });
    expect(stopper.getSnapshot().value).toBe('stopped');
  });

  it("an external trainer's role waits in waiting-for-trainer (persisted, pausable at once), the other role trains in process", async () => {
    const lab = fakeLab(table3);
    const asked: ExternalGymInput[] = [];
    let answer!: (o: GymOutput) => void;
    let later = false; // the run's later external gyms: answered at once with a new checkpoint
    const externalGym = fromPromise<GymOutput, ExternalGymInput>(({ input: g }) => {
      asked.push(g);
      if (later) return Promise.resolve({ checkpoint: `DA-ext${g.gym}`, note: null });
      return new Promise<GymOutput>((r) => (answer = r));
    });
    const runInput = { ...input, externalGyms: ['DA' as const] };
    const actor = createActor(runMachine.provide({ actors: { ...lab.actors, externalGym } }), { input: runInput }).start();
    await new Promise((r) => setTimeout(r, 10));
    // table3 starts with W_DA 0.45 < τ_DA: the DA trains first, externally: gym 1, from DA0 against CA0.
    expect(actor.getSnapshot().value).toBe('waiting-for-trainer');
    expect(asked).toEqual([{ runId: 'R1', role: 'DA', from: 'DA0', opponent: 'CA0', matchId: 'R1-M1', afterMatch: 1, seed: 1, gym: 1 }]);
    expect(lab.calls.gym).toBe(0);
    // A pause takes effect at once (nothing of the gym runs in this process), and resuming waits again.
    const persisted = JSON.parse(JSON.stringify(actor.getPersistedSnapshot())) as { value: string };
    expect(persisted.value).toBe('waiting-for-trainer');
    actor.send({ type: 'user.pause' });
    expect(actor.getSnapshot().value).toBe('paused');
    actor.send({ type: 'user.resume' });
    await new Promise((r) => setTimeout(r, 10));
    expect(actor.getSnapshot().value).toBe('waiting-for-trainer');
    expect(asked).toHaveLength(2);
    answer({ checkpoint: 'DA1', note: 'trained by an external trainer' });
    await new Promise((r) => setTimeout(r, 10));
    actor.stop();

    // Restored from the persisted wait (kill -9), it waits again and goes on with what comes back;
    // a cancelled job leaves the role's checkpoint unchanged.
    const restored = createActor(runMachine.provide({ actors: { ...lab.actors, externalGym } }), { snapshot: persisted as never, input: runInput }).start();
    await new Promise((r) => setTimeout(r, 10));
    expect(restored.getSnapshot().value).toBe('waiting-for-trainer');
    later = true;
    answer({ checkpoint: 'DA0', note: 'gym job J1 cancelled: DA0 kept unchanged' });
    const done = await finish(restored);
    expect(done.value).toBe('done');
    const ctx = done.context as { gyms: { role: string; from: string; to: string; note: string | null }[]; matches: { da: string }[] };
    expect(ctx.gyms[0]).toEqual({ role: 'DA', from: 'DA0', to: 'DA0', afterMatch: 1, note: 'gym job J1 cancelled: DA0 kept unchanged' });
    expect(ctx.matches[1]!.da).toBe('DA0');
    // Later DA gyms are numbered by their place among all the run's gyms, and their checkpoints play on.
    const daGyms = ctx.gyms
      .map((g, i) => ({ ...g, n: i + 1 }))
      .filter((g) => g.role === 'DA')
      .slice(1);
    expect(daGyms.length).toBeGreaterThan(0);
    for (const g of daGyms) expect(g.to).toBe(`DA-ext${g.n}`);
    // CA gyms stayed in process.
    expect(ctx.gyms.filter((g) => g.role === 'CA').length).toBe(lab.calls.gym);
    expect(lab.calls.gym).toBeGreaterThan(0);
  });

  it('an LLM handed back by the external trainer plays the role on; its next gym is handed out again, or skipped and said when the trainer is builtin', async () => {
    const lab = fakeLab(table3);
    const asked: ExternalGymInput[] = [];
    // The external trainer hands back LLMs: DA1 = q1, then DA-ext<n> = q<n>.
    const externalGym = fromPromise<GymOutput, ExternalGymInput>(async ({ input: g }) => {
      asked.push(g);
      const name = g.gym === 1 ? 'DA1' : `DA-ext${g.gym}`;
      return { checkpoint: name, note: `trained by an external trainer: LLM q${g.gym}`, llm: `q${g.gym}` };
    });
    const runInput = { ...input, externalGyms: ['DA' as const] };
    const actors = { ...lab.actors, externalGym };
    type Ctx = {
      gyms: { role: string; from: string; to: string; llm?: string }[];
      matches: { da: string; gyms?: string[]; scheduleNote?: string; stop: { explanation: string } }[];
      llmCheckpoints?: Record<string, { checkpoint: string; spec: string }>;
    };
    const done = await finish(createActor(runMachine.provide({ actors }), { input: runInput }).start());
    expect(done.value).toBe('done');
    const ctx = done.context as unknown as Ctx;
    const daGyms = ctx.gyms.filter((g) => g.role === 'DA');
    expect(daGyms.length).toBeGreaterThan(1); // the LLM role's gyms were handed out again
    expect(daGyms[0]).toMatchObject({ from: 'DA0', to: 'DA1', llm: 'q1' });
    expect(daGyms[1]).toMatchObject({ from: 'DA1', llm: `q${asked[1]!.gym}` });
    expect(asked[1]!.from).toBe('DA1');
    expect(ctx.llmCheckpoints!.DA).toEqual({ checkpoint: daGyms.at(-1)!.to, spec: daGyms.at(-1)!.llm });
    expect(lab.calls.gym).toBe(ctx.gyms.filter((g) => g.role === 'CA').length); // no builtin DA gym

    // A run whose DA became an LLM while its DA trainer is the builtin one (its snapshot without the
    // external trainer): the DA's gyms are skipped and every verdict says so; nothing tries to train it.
    const first = createActor(runMachine.provide({ actors }), { input: runInput });
    let persisted: { context: Record<string, unknown> } | null = null;
    first.subscribe((snap) => {
      const c = snap.context as unknown as Ctx;
      if (!persisted && c.llmCheckpoints?.DA) persisted = JSON.parse(JSON.stringify(first.getPersistedSnapshot())) as { context: Record<string, unknown> };
    });
    first.start();
    await finish(first);
    expect(persisted).not.toBeNull();
    delete persisted!.context.externalGyms;
    const gymsBefore = lab.calls.gym;
    const builtinDa = fromPromise<GymOutput, GymInput>(async ({ input: g }) => {
      if (g.role === 'DA') throw new Error(`a builtin DA gym ran from ${g.from}`);
      return lab.gymFn(g);
    });
    const restored = await finish(
      createActor(runMachine.provide({ actors: { ...actors, gym: builtinDa } }), { snapshot: persisted as never, input: { ...input } }).start(),
    );
    expect(restored.value).toBe('done');
    const r = restored.context as unknown as Ctx;
    const SKIPPED = 'DA gyms skipped: the DA is an LLM (DA1: q1) and no external trainer is attached';
    const after = r.matches.slice(1);
    expect(after.length).toBeGreaterThan(0);
    for (const m of after) {
      expect(m.da).toBe('DA1');
      expect(m.stop.explanation).toContain(SKIPPED);
      expect(m.gyms ?? []).not.toContain('DA');
    }
    expect(after.some((m) => m.scheduleNote?.includes(SKIPPED))).toBe(true);
    expect(lab.calls.gym).toBeGreaterThanOrEqual(gymsBefore);
  });

  it('records a failing actor as a failed run with the reason', async () => {
    const lab = fakeLab(table3);
    const broken = fromPromise<GymOutput, GymInput>(async () => {
      throw new Error('gym diverged: NaN loss');
    });
    const s = await finish(createActor(runMachine.provide({ actors: { ...lab.actors, gym: broken } }), { input }).start());
    expect(s.value).toBe('failed');
    expect(String((s.context as { error: string }).error)).toMatch(/NaN loss/);
  });

  describe('schedules (the ablations a study compares with RL-ADA)', () => {
    type Ctx = { matches: { da: string; ca: string; gyms?: string[]; stop: { reason: string | null } }[]; gyms: { role: string; to: string }[] };
    const run = async (schedule: object, trajectory = table3) => {
      const lab = fakeLab(trajectory);
      const s = await finish(createActor(runMachine.provide({ actors: lab.actors }), { input: { ...input, schedule } }).start());
      expect(s.value).toBe('done');
      return s.context as unknown as Ctx;
    };

    it("'both': the DA and then the CA train after every match that does not stop the run", async () => {
      const ctx = await run({ isolation: 'both' });
      expect(ctx.gyms.map((g) => g.to)).toEqual(['DA1', 'CA1', 'DA2', 'CA2', 'DA3', 'CA3', 'DA4', 'CA4']);
      expect(ctx.matches.map((m) => m.gyms)).toEqual([['DA', 'CA'], ['DA', 'CA'], ['DA', 'CA'], ['DA', 'CA'], []]);
    });

    it("CA gyms off: the CA's turns train nobody, and the CA stays CA0", async () => {
      const ctx = await run({ caGyms: false });
      expect(ctx.gyms.map((g) => g.to)).toEqual(['DA1', 'DA2']);
      expect(new Set(ctx.matches.map((m) => m.ca))).toEqual(new Set(['CA0']));
    });

    it('a frozen scripted opponent replaces CA0, and a fixed DA gym budget decides the length', async () => {
      const ctx = await run({ daOpponent: 'scripted', daGyms: 3 }, [0.9, 0.9, 0.9, 0.9, 0.9]);
      expect(ctx.gyms.map((g) => g.to)).toEqual(['DA1', 'DA2', 'DA3']);
      expect(ctx.matches.map((m) => `${m.da}/${m.ca}`)).toEqual(['DA0/scripted', 'DA1/scripted', 'DA2/scripted', 'DA3/scripted']);
      expect(ctx.matches.at(-1)!.stop.reason).toBe('gym_budget');
    });

    it('a DA gym budget of 0 evaluates DA0 after one match', async () => {
      const ctx = await run({ daOpponent: 'CA0', daGyms: 0 });
      expect(ctx.gyms).toEqual([]);
      expect(ctx.matches).toHaveLength(1);
    });

    it('save → restore → continue holds with a queue of two gyms', async () => {
      await killAtEveryBoundary({ ...input, schedule: { isolation: 'both' as const } }, 12);
    });
  });

  describe('IB-RL schedule (../shared/seeds/003)', () => {
    type PoolCtx = {
      matches: {
        index: number;
        da: string;
        ca: string;
        gyms?: string[];
        stop: { stop: boolean; reason: string | null };
        pool?: { pairing: string; da: string; ca: string; trains: string[] };
        scheduleNote?: string;
      }[];
      gyms: { role: string; from: string; to: string; pool?: { round: number; pairing: string; da: string; ca: string; opponent: string } }[];
    };
    const run = async (schedule: object, trajectory = table3) => {
      const lab = fakeLab(trajectory);
      const inputs: GymInput[] = [];
      const gym = fromPromise<GymOutput, GymInput>(async ({ input: i }) => {
        inputs.push(i);
        return lab.gymFn(i);
      });
      const s = await finish(createActor(runMachine.provide({ actors: { ...lab.actors, gym } }), { input: { ...input, schedule } }).start());
      expect(s.value).toBe('done');
      return { ctx: s.context as unknown as PoolCtx, inputs };
    };

    it('both current every round: the DA trains each round, the CA every second (stagger), both on the arena match, for a fixed number of rounds', async () => {
      const { ctx, inputs } = await run({ kind: 'ib-rl', pool: { pBoth: 1, pDa: 0, pCa: 0 }, stagger: { daEvery: 1, caEvery: 2, caLr: 3e-4 }, rounds: 4 });
      expect(ctx.matches).toHaveLength(5); // 4 rounds, each after an arena match, and the last arena
      expect(ctx.matches.map((m) => m.gyms)).toEqual([['DA'], ['DA', 'CA'], ['DA'], ['DA', 'CA'], []]);
      expect(ctx.matches.at(-1)!.stop.reason).toBe('rounds');
      expect(ctx.gyms.map((g) => g.to)).toEqual(['DA1', 'DA2', 'CA1', 'DA3', 'DA4', 'CA2']);
      // Round 2: the DA and the CA update from the same trajectories (the arena match), each against the other's round-start checkpoint.
      const round2 = inputs.filter((i) => i.afterMatch === 2);
      expect(round2.map((i) => [i.role, i.from, i.opponent, i.matchId, i.ibRl?.lr])).toEqual([
        ['DA', 'DA1', 'CA0', 'R1-M2', undefined],
        ['CA', 'CA0', 'DA1', 'R1-M2', 3e-4],
      ]);
      expect(ctx.gyms[2]!.pool).toEqual({ round: 2, pairing: 'both-current', da: 'DA1', ca: 'CA0', opponent: 'DA1' });
    });

    it('current DA vs a historical CA: only the DA trains, on joint rollouts against the historical CA (RUN-J<round>)', async () => {
      const { ctx, inputs } = await run({ kind: 'ib-rl', pool: { pBoth: 0, pDa: 1, pCa: 0 }, stagger: { daEvery: 1, caEvery: 1 }, rounds: 3 });
      expect(ctx.gyms.every((g) => g.role === 'DA')).toBe(true);
      // No CA but CA0 ever exists, so there is no history: the current CA plays, and the note says so.
      expect(ctx.matches[0]!.scheduleNote).toMatch(/no historical CA yet/);
      expect(inputs.map((i) => [i.matchId, i.opponent, i.ibRl?.pairing])).toEqual([
        ['R1-J1', 'CA0', 'historical-ca'],
        ['R1-J2', 'CA0', 'historical-ca'],
        ['R1-J3', 'CA0', 'historical-ca'],
      ]);
    });

    it('a historical DA vs the current CA: the CA trains against an earlier DA of the run', async () => {
      // Only the CA ever trains, so DA0 is the only DA: it plays as the "historical" one (noHistory) and stays the opponent.
      const { ctx, inputs } = await run({ kind: 'ib-rl', pool: { pBoth: 0, pDa: 0, pCa: 1 }, stagger: { daEvery: 1, caEvery: 1 }, rounds: 2 });
      expect(ctx.gyms.map((g) => g.role)).toEqual(['CA', 'CA']);
      expect(inputs.map((i) => i.opponent)).toEqual(['DA0', 'DA0']); // the only DA there is
      expect(ctx.matches.map((m) => m.pool?.trains ?? [])).toEqual([['CA'], ['CA'], []]);
    });

    it('a role an LLM plays (schedule.llm) sits out the rounds that would train it, and the notes say so', async () => {
      const { ctx, inputs } = await run({
        kind: 'ib-rl',
        pool: { pBoth: 1, pDa: 0, pCa: 0 },
        stagger: { daEvery: 1, caEvery: 1 },
        rounds: 2,
        llm: { ca: 'cust' },
      });
      const SKIPPED = 'CA gyms skipped: the CA is an LLM (cust) and no external trainer is attached';
      expect(ctx.matches.map((m) => m.gyms)).toEqual([['DA'], ['DA'], []]);
      expect(ctx.matches.map((m) => m.pool?.trains ?? [])).toEqual([['DA', 'CA'], ['DA', 'CA'], []]);
      for (const m of ctx.matches.slice(0, 2)) {
        expect(m.scheduleNote!.startsWith(`IB-RL round ${m.index}: `)).toBe(true);
        expect(m.scheduleNote!.endsWith(`; ${SKIPPED}`)).toBe(true);
      }
      expect(inputs.every((i) => i.role === 'DA')).toBe(true);
    });

    it("without rounds, RL-ADA's stopping rule decides", async () => {
      const { ctx } = await run({ kind: 'ib-rl' });
      expect(ctx.matches.at(-1)!.stop.reason).not.toBe('rounds');
      expect(ctx.matches.at(-1)!.stop.stop).toBe(true);
      expect(ctx.matches.slice(0, -1).every((m) => m.pool !== undefined)).toBe(true);
    });

    it('save → restore → continue: an IB-RL run killed at any phase resumes and ends the same', async () => {
      await killAtEveryBoundary({ ...input, schedule: { kind: 'ib-rl' as const, rounds: 4 } }, 12);
    });
  });
});
