/**
 * The run machine's `externalGym` actor (external-gym.ts describes the flow): exports the gym to
 * its folder and records its job (once), lets the managed trainer train it when the run config
 * names one (managed-trainer.ts), then polls the lab until the job ends.
 */
import { mkdirSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { ExternalGymInput, GymOutput } from '../../core/coevolution/run.machine';
import { sparringConfigOf } from '../../core/coevolution/run-config';
import type { GymJobInfo } from '../../core/contract/contract';
import type { Domain } from '../../core/domain/types';
import { describeLlm } from '../store/checkpoint-store';
import { gymJobStore } from '../store/gym-job-store';
import { fromLlm, gymJobFolder, trainerCommands } from './external-gym';
import { exportGym } from './gym-export';
import type { LabContext } from './lab-context';
import { runManagedTrainer } from './managed-trainer';

/** How often a waiting run reads its job from the lab (ms). */
export const TRAINER_POLL_MS = 1000;

/** Writes a file whole or not at all (a temporary file renamed into place). */
function writeWhole(file: string, text: string): void {
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, text);
  renameSync(tmp, file);
}

/**
 * Exports gym `input.gym` of the run and records its job; a job already recorded for that gym (a
 * run restarted while waiting) is returned as it is, its export untouched.
 */
export async function exportGymJob(
  ctx: Pick<LabContext, 'runId' | 'store' | 'domain' | 'config'>,
  baseDomain: Domain,
  input: ExternalGymInput,
): Promise<GymJobInfo> {
  const jobs = gymJobStore(ctx.store.db);
  const found = jobs.forGym(input.runId, input.gym);
  if (found) return found;
  const ex = await exportGym(ctx.store, baseDomain, input.runId, input.gym);
  if (ex.role !== input.role || ex.from !== input.from || ex.matchId !== input.matchId) {
    throw new Error(
      `external gym ${input.gym} of ${input.runId}: the lab's copy of the run says ${ex.role} ${ex.from} after ${ex.matchId}, ` +
        `the run machine ${input.role} ${input.from} after ${input.matchId}`,
    );
  }
  const folder = gymJobFolder(ctx.store.path, input.runId, input.gym);
  mkdirSync(folder, { recursive: true });
  const sparring = sparringConfigOf(ctx.config);
  writeWhole(path.join(folder, 'gym.jsonl'), ex.points.map((p) => JSON.stringify(p)).join('\n') + (ex.points.length ? '\n' : ''));
  const manifest = {
    run: input.runId,
    gym: input.gym,
    role: input.role,
    from: input.from,
    frozen_opponent: input.opponent,
    match_id: input.matchId,
    seed: input.seed,
    decision_points: ex.points.length,
    data: 'gym.jsonl',
    /** The gym's episodes: failures and successes of the training role (RL-ADA §3.5's mix), human ones. */
    episodes: ex.episodes,
    failure_share: ctx.config.gym.failureShare,
    rewards: { da: sparring.daReward, ca: sparring.caReward },
    budget: input.role === 'DA' ? ctx.config.gym.da : ctx.config.gym.ca,
    adversities: ctx.config.adversities ?? false,
    serve: ex.serve,
    commands: trainerCommands({ ...input, exportPath: folder }, ctx.store.path, fromLlm(ctx.store.db, input.from)),
  };
  writeWhole(path.join(folder, 'job.json'), JSON.stringify(manifest, null, 2) + '\n');
  return jobs.create({
    runId: input.runId,
    gym: input.gym,
    role: input.role,
    from: input.from,
    opponent: input.opponent,
    matchId: input.matchId,
    exportPath: folder,
  });
}

/**
 * The run machine's `externalGym` actor: export and record the job (once), then wait for it to
 * end. `signal` ends the wait when the machine leaves the state (a pause, a stop).
 */
export async function externalGym(
  ctx: LabContext,
  baseDomain: Domain,
  input: ExternalGymInput,
  opts: { signal?: AbortSignal; pollMs?: number; onJob?: (job: GymJobInfo) => void } = {},
): Promise<GymOutput> {
  // The service persists the phase's snapshot after this actor starts: let it, so the export
  // reads the run (its latest match) from the lab as the machine has it.
  await new Promise((r) => setImmediate(r));
  let job = await exportGymJob(ctx, baseDomain, input);
  opts.onJob?.(job);
  const jobs = gymJobStore(ctx.store.db);
  const trainer = input.role === 'DA' ? ctx.config.gym.da.trainer : ctx.config.gym.ca.trainer;
  if (typeof trainer === 'object' && trainer.kind === 'trl' && job.status === 'waiting') {
    // The managed trainer trains the gym and registers the result, which ends the job.
    await runManagedTrainer(ctx, job, trainer, opts.signal ? { signal: opts.signal } : {});
    job = jobs.get(job.id)!;
  }
  while (job.status === 'waiting') {
    if (ctx.stopped() || opts.signal?.aborted) throw new Error('run stopped');
    await new Promise((r) => setTimeout(r, opts.pollMs ?? TRAINER_POLL_MS));
    job = jobs.get(job.id)!;
  }
  if (job.status === 'done' && job.checkpoint) {
    // An LLM came back: from now on the run plays this role with it (RunContext.llmCheckpoints).
    const llm = ctx.checkpoints.meta(job.checkpoint)?.llm;
    return {
      checkpoint: job.checkpoint,
      note: `trained by ${typeof trainer === 'object' ? `the managed ${trainer.kind.toUpperCase()} trainer` : 'an external trainer'} (gym job ${job.id})${llm ? `: ${describeLlm(llm)}` : ''}`,
      ...(llm ? { llm: llm.spec } : {}),
    };
  }
  return { checkpoint: input.from, note: `gym job ${job.id} ${job.status}${job.note ? ` (${job.note})` : ''}: ${input.from} kept unchanged` };
}
