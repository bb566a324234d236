/**
 * The managed trainer (run config gym.<role>.trainer `{"kind": "trl", …}`): a gym handed out as an
 * external one (exported, its job recorded, the run in 'waiting-for-trainer'), which the run then
 * trains itself, as a person would by the job's commands:
 * 1. `sparring env serve --role R --opponent <frozen> --run RUN` as a child process (the run's world);
 * 2. `python trainers/train_{da,ca}.py --data gym.jsonl --job job.json --model <start> --gguf
 *    <folder>/<role>-trained.gguf` (TRL GRPO with LoRA, trainers/grpo_run.py), its JSON progress
 *    lines streamed into the gym's metric series (`gym:<next checkpoint>`: gym/reward_mean,
 *    gym/reward_std, gym/kl, gym/loss) and the progress line with an ETA;
 * 3. in the same process, the merged model saved to `<out>/merged` and written as GGUF
 *    (trainers/write_gguf.py; played in process by node-llama-cpp in the trained form);
 * 4. the GGUF registered as the role's next checkpoint (`registerTrainerResult`, as `checkpoints
 *    add` does), which ends the job; the run goes on.
 * The role's first gym starts from `trainer.model`; a later one from the merged model of the gym
 * that made its start checkpoint (beside that checkpoint's GGUF). A trainer that fails fails the
 * gym with its last log lines; the job stays waiting and nothing stored is lost, so `run --resume`
 * (after a crash or a kill -9) trains the gym again from the start.
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { appendFileSync, existsSync } from 'node:fs';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import type { ManagedTrainer } from '../../core/coevolution/run-config';
import type { GymJobInfo } from '../../core/contract/contract';
import type { LabContext } from './lab-context';
import { registerTrainerResult } from './external-gym';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
/** Log lines of a child kept for the error when it fails. */
const TAIL = 20;

/** One `{"event": "log"}` line of trainers/grpo_run.py. */
export interface TrainerLog {
  step: number;
  max_steps: number;
  loss?: number | null;
  reward?: number | null;
  reward_std?: number | null;
  kl?: number | null;
  steps_per_s?: number | null;
  elapsed_s?: number | null;
}

/**
 * Where a managed gym's files go: the trained adapter and merged model, the GGUF, and the
 * trainer's log (every line the trainer and the GGUF writer print, each attempt after a header:
 * its `{"event": "rewards"}` lines name each rollout's stored episode and the reward TRL got).
 */
export function managedPaths(job: Pick<GymJobInfo, 'exportPath' | 'role'>) {
  const out = path.join(job.exportPath, `${job.role.toLowerCase()}-trained`);
  return { out, merged: path.join(out, 'merged'), gguf: `${out}.gguf`, log: path.join(job.exportPath, 'trainer.log') };
}

/** The model a gym starts from: the merged model behind its start checkpoint's GGUF, else the config's. */
export function startModel(ctx: Pick<LabContext, 'checkpoints'>, from: string, trainer: ManagedTrainer): string {
  const llm = ctx.checkpoints.meta(from)?.llm;
  if (llm?.kind === 'gguf' && llm.path.endsWith('.gguf')) {
    const merged = path.join(llm.path.slice(0, -'.gguf'.length), 'merged');
    if (existsSync(path.join(merged, 'config.json'))) return merged;
  }
  return trainer.model;
}

class Child {
  readonly tail: string[] = [];
  readonly done: Promise<number | null>;
  constructor(
    readonly what: string,
    readonly proc: ChildProcess,
    onLine: (line: string) => void = () => {},
    log?: (line: string) => void,
  ) {
    const keep = (line: string) => {
      this.tail.push(line);
      if (this.tail.length > TAIL) this.tail.shift();
      log?.(line);
    };
    createInterface({ input: proc.stdout! }).on('line', (l) => (keep(l), onLine(l)));
    createInterface({ input: proc.stderr! }).on('line', keep);
    this.done = new Promise((resolve, reject) => {
      proc.once('error', reject);
      proc.once('exit', (code) => resolve(code));
    });
  }
  async check(): Promise<void> {
    const code = await this.done;
    if (code !== 0) throw new Error(`${this.what} failed (exit ${code ?? 'by a signal'}); its last lines:\n${this.tail.join('\n')}`);
  }
  kill(): void {
    if (this.proc.exitCode === null && this.proc.signalCode === null) this.proc.kill('SIGTERM');
  }
}

function run(what: string, cmd: string, args: string[], onLine?: (line: string) => void, log?: (line: string) => void): Child {
  return new Child(
    what,
    spawn(cmd, args, {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, TRL_EXPERIMENTAL_SILENCE: '1', SPARRING_PARENT_PID: String(process.pid) },
    }),
    onLine,
    log,
  );
}

/** Trains a waiting job's gym with the managed trainer and registers the result (see the module's doc). */
export async function runManagedTrainer(
  ctx: Pick<LabContext, 'runId' | 'store' | 'checkpoints' | 'progress' | 'metric' | 'stopped'>,
  job: GymJobInfo,
  trainer: ManagedTrainer,
  opts: { signal?: AbortSignal } = {},
): Promise<void> {
  const next = ctx.checkpoints.nextName(job.role);
  const label = `${job.role} gym ${job.gym} (TRL)`;
  const { out, merged, gguf, log: logFile } = managedPaths(job);
  appendFileSync(logFile, `# ${label} attempt, ${new Date().toISOString()}\n`);
  const log = (line: string) => appendFileSync(logFile, `${line}\n`);
  const children: Child[] = [];
  const abort = () => children.forEach((c) => c.kill());
  opts.signal?.addEventListener('abort', abort);
  try {
    // 1. The gym's world.
    const server = run('env serve', process.execPath, [
      path.join(ROOT, 'bin', 'sparring.js'),
      'env',
      'serve',
      '--role',
      job.role,
      '--opponent',
      job.opponent,
      '--run',
      job.runId,
      '--db',
      ctx.store.path,
      '--port',
      '0',
      '--parent-pid',
      String(process.pid),
      '--json',
    ]);
    children.push(server);
    const url = await new Promise<string>((resolve, reject) => {
      server.proc.stdout!.once('data', (b: Buffer) => {
        try {
          resolve((JSON.parse(b.toString().split('\n')[0]!) as { url: string }).url);
        } catch (e) {
          reject(new Error(`env serve: no address on its first line (${(e as Error).message})`));
        }
      });
      server.done.then((code) => reject(new Error(`env serve exited (${code}) before listening: ${server.tail.join('\n')}`)), reject);
    });

    // 2. TRL.
    const started = Date.now();
    const args = [
      path.join(ROOT, 'trainers', job.role === 'DA' ? 'train_da.py' : 'train_ca.py'),
      '--data',
      path.join(job.exportPath, 'gym.jsonl'),
      '--job',
      path.join(job.exportPath, 'job.json'),
      '--model',
      startModel(ctx, job.from, trainer),
      '--out',
      out,
      '--gguf',
      gguf,
      '--gguf-type',
      trainer.gguf ?? 'f32',
      '--gguf-name',
      next,
      '--url',
      url,
      '--model-name',
      `${next}-trl`,
      '--vllm',
      trainer.grpo?.vllm ?? 'auto',
      ...(trainer.grpo?.maxCompletionLength ? ['--max-completion-length', String(trainer.grpo.maxCompletionLength)] : []),
      ...(trainer.lora?.r ? ['--lora-r', String(trainer.lora.r)] : []),
      ...(trainer.lora?.alpha ? ['--lora-alpha', String(trainer.lora.alpha)] : []),
      ...(trainer.lora?.dropout !== undefined ? ['--lora-dropout', String(trainer.lora.dropout)] : []),
    ];
    const trl = run(
      `the TRL trainer (${trainer.python})`,
      trainer.python,
      args,
      (line) => {
        if (!line.startsWith('{')) return;
        let e: { event?: string } & Partial<TrainerLog>;
        try {
          e = JSON.parse(line) as typeof e;
        } catch {
          return;
        }
        if (e.event !== 'log' || typeof e.step !== 'number') return;
        const step = e.step - 1;
        const put = (key: string, v: number | null | undefined) => {
          if (typeof v === 'number' && Number.isFinite(v)) ctx.metric(`gym:${next}`, key, step, v);
        };
        put('gym/reward_mean', e.reward);
        put('gym/reward_std', e.reward_std);
        put('gym/kl', e.kl);
        put('gym/loss', e.loss);
        const total = e.max_steps ?? e.step;
        const elapsed = (Date.now() - started) / 1000;
        ctx.progress({
          phase: 'waiting-for-trainer',
          label: `${label} step ${e.step}/${total}`,
          done: e.step,
          total,
          etaSeconds: (elapsed / e.step) * (total - e.step),
        });
      },
      log,
    );
    children.push(trl);
    await trl.check();
    server.kill();

    // 3. The merged model as GGUF (written by the trainer), 4. registered as the role's next checkpoint.
    if (!existsSync(path.join(merged, 'config.json')) || !existsSync(gguf))
      throw new Error(
        `the TRL trainer ended without writing ${existsSync(gguf) ? path.join(merged, 'config.json') : gguf}; its last lines:\n${trl.tail.join('\n')}`,
      );
    if (ctx.stopped() || opts.signal?.aborted) throw new Error('run stopped');
    await registerTrainerResult(ctx.store.db, { runId: job.runId, gym: job.gym, role: job.role, model: `gguf:${gguf}`, parent: job.from });
  } finally {
    opts.signal?.removeEventListener('abort', abort);
    abort();
  }
}
