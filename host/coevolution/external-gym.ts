/**
 * Gyms handed to an external trainer (run config gym.da.trainer / gym.ca.trainer 'external';
 * issue 15 item 3). When the run machine reaches such a gym (its 'waiting-for-trainer' state),
 * its actor `externalGym` (external-gym-actor.ts) exports the gym — the decision points of
 * `sparring gym export` (the match's transcripts mixed failure:success, the sliding-window
 * slicer), the frozen opponent, the rewards' config and the mix — to a folder beside the lab,
 * records a gym job (migration 15) and polls the lab until the job ends:
 * - `sparring checkpoints add … --run R --gym N` (`registerTrainerResult`) stores the trained
 *   checkpoint, child of the gym's `from`, and marks the job done: the run goes on with it;
 * - `sparring gym cancel J` (`cancelGymJob`): the run goes on with `from`, unchanged, and says so
 *   in the gym's note.
 * Both are writes to the lab file, from any process; the waiting run sees them at its next poll,
 * and a run resumed after kill -9 finds the job (and its export) where it left them.
 */
import { closeSync, existsSync, openSync, readFileSync, readSync, statSync } from 'node:fs';
import path from 'node:path';
import type { Database } from 'better-sqlite3';
import { handedOut } from '../../core/coevolution/run-config';
import type { RunConfig } from '../../core/coevolution/run-config';
import type { GymJobInfo } from '../../core/contract/contract';
import { readCheckpointOnnx } from '../../models/export';
import type { ModelSnapshot } from '../../core/rl/ports';
import { ggufConfigOf } from '../../models/llm/gguf-backend';
import type { EndpointConfig } from '../../models/llm/openai-backend';
import { probeRole } from '../llm/test-endpoint';
import { GGUF_SPEC } from '../policies/policies';
import { checkpointStore, describeLlm } from '../store/checkpoint-store';
import type { CheckpointMeta, LlmCheckpointSpec } from '../store/checkpoint-store';
import { llmStore } from '../store/llm-store';
import { labDomain } from '../store/scenario-store';
import { gymJobStore, GymJobError } from '../store/gym-job-store';
import type { SqliteRunStore } from '../store/sqlite-store';

/** The training data kind that links a checkpoint to the gym job it came back for. */
export const GYM_JOB = 'gym_job';

/** The folder a run's gym N is exported to: beside the lab file, under gym-jobs/. */
export function gymJobFolder(dbPath: string, runId: string, gym: number): string {
  return path.join(path.dirname(path.resolve(dbPath)), 'gym-jobs', `${runId}-gym${gym}`);
}

/** The script in trainers/ that trains a role (docs/llms.md, "Train LLM roles at scale"). */
const TRAIN_SCRIPT = { DA: 'trainers/train_da.py', CA: 'trainers/train_ca.py' } as const;

/**
 * What to run for a waiting job, in order: serve the gym's world, train on the export (the
 * TRL command of docs/llms.md), register the result. `--model` is the trained model: an `.onnx` written
 * by `sparring export-model` for the builtin policies, or an LLM saved in the lab (an endpoint
 * serving the new adapter, a GGUF model, `gguf:FILE`) — the only thing that can follow a gym
 * whose start is an LLM (`fromLlm`).
 */
export function trainerCommands(
  job: Pick<GymJobInfo, 'runId' | 'gym' | 'role' | 'from' | 'opponent' | 'exportPath'>,
  dbPath: string,
  fromLlm = false,
): string[] {
  const db = `--db ${dbPath}`;
  const out = path.join(job.exportPath, `${job.role.toLowerCase()}-trained`);
  return [
    `npx sparring env serve --role ${job.role} --opponent ${job.opponent} --run ${job.runId} ${db}`,
    // env serve prints the URL to use: it carries the server's token (required on loopback too).
    `SPARRING_ENV_URL=URL python ${TRAIN_SCRIPT[job.role]} --data ${path.join(job.exportPath, 'gym.jsonl')} --out ${out}   # URL: the one env serve printed`,
    `npx sparring checkpoints add --role ${job.role} --model ${fromLlm ? 'ENDPOINT' : 'MODEL.onnx'} --parent ${job.from} --run ${job.runId} --gym ${job.gym} ${db}`,
  ];
}

/** `sparring checkpoints add`: what an external trainer hands back for a waiting gym job. */
export interface TrainerResult {
  runId: string;
  gym: number;
  role: 'DA' | 'CA';
  /**
   * What the trainer made: for the builtin policies an `.onnx` written by `sparring export-model`
   * (weights and model JSON); for an LLM a model spec of the lab — a saved endpoint (e.g. a vLLM
   * server with the new LoRA adapter loaded), a saved GGUF model, or `gguf:FILE`.
   */
  model: string;
  parent: string;
}

/** A file's first four bytes, as text (GGUF files start with "GGUF"; they are gigabytes, so only those are read). */
function magic(file: string): string {
  const fd = openSync(file, 'r');
  try {
    const b = Buffer.alloc(4);
    return b.subarray(0, readSync(fd, b, 0, 4, 0)).toString('latin1');
  } finally {
    closeSync(fd);
  }
}

/**
 * The LLM a `--model` SPEC names in the lab, with what it names now (recorded with the checkpoint);
 * undefined when it names none (then it is a file).
 */
async function llmSpecOf(db: Database, spec: string): Promise<{ llm: LlmCheckpointSpec; endpoint?: EndpointConfig } | undefined> {
  const file = GGUF_SPEC.exec(spec)?.[1];
  if (file !== undefined) {
    if (!existsSync(file)) throw new GymJobError(`--model ${spec}: no such GGUF file ${file}`);
    let cfg;
    try {
      cfg = await ggufConfigOf(file, { name: spec });
    } catch (e) {
      throw new GymJobError(`--model ${spec}: ${(e as Error).message}`);
    }
    if (magic(cfg.path) !== 'GGUF') throw new GymJobError(`--model ${spec}: ${cfg.path} is not a GGUF file (no GGUF magic)`);
    // The absolute path: the run that plays it may run from another folder.
    return { llm: { kind: 'gguf', spec: `gguf:${cfg.path}`, path: cfg.path, sha256: cfg.sha256 } };
  }
  const llms = llmStore(db);
  const endpoint = llms.getEndpoint(spec);
  if (endpoint) return { llm: { kind: 'endpoint', spec, baseUrl: endpoint.baseUrl, model: endpoint.model }, endpoint };
  const gguf = llms.getGguf(spec);
  if (gguf) {
    if (!existsSync(gguf.path))
      throw new GymJobError(`--model ${spec}: the saved GGUF model's file ${gguf.path} is gone (sparring models add ${spec} --gguf FILE)`);
    return { llm: { kind: 'gguf', spec, path: gguf.path, sha256: gguf.sha256 } };
  }
  return undefined;
}

/**
 * Registers a trainer's result: checks the run, its waiting job for the gym, the role and the
 * parent, reads the model, then stores the checkpoint and ends the job in one transaction.
 * `--model` is an `.onnx` of a builtin policy (its role and architecture checked against the
 * parent) or an LLM spec of the lab: an endpoint must answer one turn of the role (`probeRole`;
 * a server that cannot play it — `serve-model` of the other role — is refused), a GGUF file is
 * hashed. An LLM checkpoint records its spec; from then on the run plays that role with the LLM.
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
  const checkpoints = checkpointStore(db);
  const parent = checkpoints.resolve(job.from, job.role);
  const file = r.model;
  const llm = await llmSpecOf(db, file);
  let snapshot: ModelSnapshot | undefined;
  if (llm) {
    if (llm.endpoint) {
      try {
        await probeRole(llm.endpoint, r.role, labDomain(db));
      } catch (e) {
        throw new GymJobError(
          `--model ${file}: the endpoint ${llm.endpoint.baseUrl} (model ${llm.endpoint.model}) did not answer a ${r.role} turn, so it cannot play the ${r.role}: ${(e as Error).message}`,
        );
      }
    }
  } else {
    if (!existsSync(file)) {
      throw new GymJobError(
        /\.(onnx|gguf|bin|safetensors)$/i.test(file) || file.includes('/')
          ? `--model ${file}: no such file${/\.gguf$/i.test(file) ? ` (a GGUF file is given as gguf:${file})` : ''}`
          : `--model ${file}: no LLM endpoint or GGUF model of that name in this lab (save it first: sparring models add ${file} --base-url URL --model M, or --gguf FILE), and no such file`,
      );
    }
    if (/\.gguf$/i.test(file))
      throw new GymJobError(`--model ${file}: a GGUF file is given as gguf:${file} (or saved by name: sparring models add NAME --gguf ${file})`);
    if (parent.llm)
      throw new GymJobError(
        `--model ${file}: gym job ${job.id} trains from ${job.from}, an LLM (${describeLlm(parent.llm)}); what comes back for it is an LLM too (a saved endpoint, a saved GGUF model or gguf:FILE), not builtin weights`,
      );
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
    snapshot = read.snapshot;
  }
  return db
    .transaction(() => {
      const checkpoint = checkpoints.save({
        role: r.role,
        source: 'external',
        runId: r.runId,
        parent: job.from,
        ...(llm ? { llm: llm.llm } : { snapshot: snapshot! }),
        note: `trained by an external trainer (gym job ${job.id}; ${llm ? describeLlm(llm.llm) : path.basename(file)})`,
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
  return jobs.map((j) => (j.status === 'waiting' ? { ...j, commands: trainerCommands(j, store.path, fromLlm(store.db, j.from)) } : j));
}

/** Whether a gym's start checkpoint is an LLM (then only an LLM can come back for it). */
export function fromLlm(db: Database, from: string): boolean {
  return Boolean(checkpointStore(db).meta(from)?.llm);
}

/** The run config's trainer per role: the roles an external trainer trains. */
export function externalRoles(c: RunConfig): ('DA' | 'CA')[] {
  return (['DA', 'CA'] as const).filter((r) => handedOut(r === 'DA' ? c.gym.da.trainer : c.gym.ca.trainer));
}
