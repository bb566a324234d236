/**
 * Gyms handed to an external trainer (run config gym.da.trainer / gym.ca.trainer 'external';
 * issue 15 item 3). When the run machine reaches such a gym (its 'waiting-for-trainer' state),
 * `externalGym` exports the gym — the decision points of `sparring gym export` (the match's
 * transcripts mixed failure:success, the sliding-window slicer), the frozen opponent, the
 * rewards' config and the mix — to a folder beside the lab, records a gym job (migration 15) and
 * polls the lab until the job ends:
 * - `sparring checkpoints add … --run R --gym N` (`registerTrainerResult`) stores the trained
 *   checkpoint, child of the gym's `from`, and marks the job done: the run goes on with it;
 * - `sparring gym cancel J` (`cancelGymJob`): the run goes on with `from`, unchanged, and says so
 *   in the gym's note.
 * Both are writes to the lab file, from any process; the waiting run sees them at its next poll,
 * and a run resumed after kill -9 finds the job (and its export) where it left them.
 */
import { existsSync, mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Database } from 'better-sqlite3';
import type { ExternalGymInput, GymOutput } from '../../core/coevolution/run.machine';
import { sparringConfigOf } from '../../core/coevolution/run-config';
import type { RunConfig } from '../../core/coevolution/run-config';
import type { GymJobInfo } from '../../core/contract/contract';
import type { Domain } from '../../core/domain/types';
import { readCheckpointOnnx } from '../../models/export';
import { checkpointStore } from '../store/checkpoint-store';
import type { CheckpointMeta } from '../store/checkpoint-store';
import { gymJobStore, GymJobError } from '../store/gym-job-store';
import type { SqliteRunStore } from '../store/sqlite-store';
import type { LabContext } from './actors';
import { exportGym } from './gym-export';

/** How often a waiting run reads its job from the lab (ms). */
export const TRAINER_POLL_MS = 1000;

/** The training data kind that links a checkpoint to the gym job it came back for. */
export const GYM_JOB = 'gym_job';

/** The folder a run's gym N is exported to: beside the lab file, under gym-jobs/. */
export function gymJobFolder(dbPath: string, runId: string, gym: number): string {
  return path.join(path.dirname(path.resolve(dbPath)), 'gym-jobs', `${runId}-gym${gym}`);
}

/** The script in trainers/ that trains a role (trainers/README: the README's "Train LLM roles at scale"). */
const TRAIN_SCRIPT = { DA: 'trainers/train_da.py', CA: 'trainers/train_ca.py' } as const;

/**
 * What to run for a waiting job, in order: serve the gym's world, train on the export (the
 * README's TRL command), register the result. `--model` is the trained model: an `.onnx` written
 * by `sparring export-model` for the builtin policies.
 */
export function trainerCommands(job: Pick<GymJobInfo, 'runId' | 'gym' | 'role' | 'from' | 'opponent' | 'exportPath'>, dbPath: string): string[] {
  const db = `--db ${dbPath}`;
  const out = path.join(job.exportPath, `${job.role.toLowerCase()}-trained`);
  return [
    `npx sparring env serve --role ${job.role} --opponent ${job.opponent} --run ${job.runId} ${db}`,
    `SPARRING_ENV_URL=http://127.0.0.1:7318 python ${TRAIN_SCRIPT[job.role]} --data ${path.join(job.exportPath, 'gym.jsonl')} --out ${out}`,
    `npx sparring checkpoints add --role ${job.role} --model MODEL.onnx --parent ${job.from} --run ${job.runId} --gym ${job.gym} ${db}`,
  ];
}

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
    commands: trainerCommands({ ...input, exportPath: folder }, ctx.store.path),
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
  while (job.status === 'waiting') {
    if (ctx.stopped() || opts.signal?.aborted) throw new Error('run stopped');
    await new Promise((r) => setTimeout(r, opts.pollMs ?? TRAINER_POLL_MS));
    job = jobs.get(job.id)!;
  }
  if (job.status === 'done' && job.checkpoint) return { checkpoint: job.checkpoint, note: `trained by an external trainer (gym job ${job.id})` };
  return { checkpoint: input.from, note: `gym job ${job.id} ${job.status}${job.note ? ` (${job.note})` : ''}: ${input.from} kept unchanged` };
}

/** `sparring checkpoints add`: what an external trainer hands back for a waiting gym job. */
export interface TrainerResult {
  runId: string;
  gym: number;
  role: 'DA' | 'CA';
  /** For the builtin policies: an `.onnx` written by `sparring export-model` (weights and model JSON). */
  model: string;
  parent: string;
}

/**
 * Registers a trainer's result: checks the run, its waiting job for the gym, the role and the
 * parent, reads the model, then stores the checkpoint and ends the job in one transaction.
 * Every refusal names what was wrong; nothing is written then.
 */
export async function registerTrainerResult(db: Database, r: TrainerResult): Promise<{ checkpoint: CheckpointMeta; job: GymJobInfo }> {
  if (db.prepare('SELECT 1 FROM runs WHERE id = ?').pluck().get(r.runId) === undefined) throw new GymJobError(`no run ${r.runId} in this lab`);
  const jobs = gymJobStore(db);
  const job = jobs.forGym(r.runId, r.gym);
  if (!job) {
    const listed = jobs.list(r.runId).map((j) => `gym ${j.gym} (${j.id}, ${j.status})`);
    throw new GymJobError(
      `run ${r.runId} has no gym job for gym ${r.gym}${listed.length ? `; its jobs: ${listed.join(', ')}` : '; it has none (its gyms are trained by the builtin trainer, or it has not reached an external one)'}`,
    );
  }
  if (job.status !== 'waiting')
    throw new GymJobError(
      `gym job ${job.id} (run ${r.runId}, gym ${r.gym}) is ${job.status}${job.checkpoint ? ` (${job.checkpoint})` : ''}, not waiting for a trainer`,
    );
  if (job.role !== r.role) throw new GymJobError(`gym job ${job.id} trains the ${job.role}, not the ${r.role} (--role ${r.role})`);
  if (job.from !== r.parent) throw new GymJobError(`gym job ${job.id} trains from ${job.from}, not ${r.parent} (--parent ${r.parent})`);
  const file = r.model;
  if (!existsSync(file)) {
    throw new GymJobError(
      /\.(onnx|gguf|bin|safetensors)$/i.test(file) || file.includes('/')
        ? `--model ${file}: no such file`
        : `--model ${file}: run ${r.runId}'s ${r.role} is a builtin policy, so --model must be an .onnx file written by \`sparring export-model\` (an LLM endpoint or GGUF model cannot join a run of builtin policies)`,
    );
  }
  let bytes: Uint8Array;
  try {
    if (!statSync(file).isFile()) throw new Error('not a file');
    bytes = readFileSync(file);
  } catch (e) {
    throw new GymJobError(`--model ${file}: cannot read (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`);
  }
  let read: Awaited<ReturnType<typeof readCheckpointOnnx>>;
  try {
    read = await readCheckpointOnnx(bytes, `--model ${file}`);
  } catch (e) {
    throw new GymJobError((e as Error).message);
  }
  if (read.role !== r.role) throw new GymJobError(`--model ${file} holds a ${read.role} policy, not a ${r.role} one`);
  const checkpoints = checkpointStore(db);
  const parent = checkpoints.resolve(job.from, job.role);
  if (parent.modelJson !== read.snapshot.modelJson) {
    // The same architecture and features as the gym's start: the run's next match loads it beside the others.
    try {
      const a = JSON.parse(parent.modelJson) as Record<string, unknown>;
      const b = JSON.parse(read.snapshot.modelJson) as Record<string, unknown>;
      const differ = Object.keys({ ...a, ...b }).filter((k) => JSON.stringify(a[k]) !== JSON.stringify(b[k]));
      if (differ.length) throw new GymJobError(`--model ${file} is not the architecture of ${job.from} (differs in ${differ.join(', ')})`);
    } catch (e) {
      if (e instanceof GymJobError) throw e;
    }
  }
  return db
    .transaction(() => {
      const checkpoint = checkpoints.save({
        role: r.role,
        source: 'external',
        runId: r.runId,
        parent: job.from,
        snapshot: read.snapshot,
        note: `trained by an external trainer (gym job ${job.id}; ${path.basename(file)})`,
        trainingData: [
          { kind: 'match', id: job.matchId },
          { kind: GYM_JOB, id: job.id },
        ],
      });
      const done = jobs.finish(job.id, 'done', { checkpoint: checkpoint.name });
      return { checkpoint, job: done };
    })
    .immediate();
}

/** `sparring gym cancel JOB`: ends a waiting job; the run goes on with the gym's `from` unchanged. */
export function cancelGymJob(db: Database, id: string, why = 'cancelled by the user'): GymJobInfo {
  return gymJobStore(db).finish(id, 'cancelled', { note: why });
}

/** A run's gym jobs with, for the one waiting, the commands to run (what `runs/get` shows). */
export function gymJobsOf(store: Pick<SqliteRunStore, 'db' | 'path'>, runId: string): GymJobInfo[] {
  const jobs = gymJobStore(store.db).list(runId);
  return jobs.map((j) => (j.status === 'waiting' ? { ...j, commands: trainerCommands(j, store.path) } : j));
}

/** The run config's trainer per role: the roles an external trainer trains. */
export function externalRoles(c: RunConfig): ('DA' | 'CA')[] {
  return (['DA', 'CA'] as const).filter((r) => (r === 'DA' ? c.gym.da.trainer : c.gym.ca.trainer) === 'external');
}
