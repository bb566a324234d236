/**
 * Reusing a bootstrap: DA0 (SFT + GRPO warm-up) and CA0 (reward pressure against DA0) are a
 * function of what they are trained from, so a run whose bootstrap inputs equal an earlier run's
 * copies that run's two checkpoints (and their bootstrap metrics) instead of training them again.
 * The arms of a study differ in schedule, gym and stopping only, so every arm of a seed shares the
 * first arm's bootstrap: in the paper study it was about 14 of each run's 22 seconds. Only runs of
 * one scope share (a study's: RunServiceOptions.bootstrapScope), since a lab outlives releases
 * and a later release's run must not take an earlier release's DA0.
 *
 * The key is a hash of the scope and of everything `bootstrap` reads: the seed, the run config's
 * `bootstrap` block and the CA's tactic set, the reward and arena settings (not the stopping rule:
 * no bootstrap phase reads it), the judge, the domain (taxonomy, bank, scenarios, with any
 * adversity profile applied), the execution provider and thread count and where matches play
 * (`device.play`). A run whose bootstrap calls an LLM (an LLM role or judge) is never keyed: its
 * calls are part of what the run records.
 */
import { createHash } from 'node:crypto';
import type { CheckpointMeta } from '../store/checkpoint-store';
import type { LabContext } from './lab-context';

/** The hash of a run's bootstrap inputs (see the module comment). */
export function bootstrapKey(ctx: Pick<LabContext, 'seed' | 'config' | 'sparring' | 'domain' | 'session' | 'judge' | 'bootstrapScope'>): string {
  const inputs = {
    v: 1,
    scope: ctx.bootstrapScope ?? null,
    seed: ctx.seed,
    bootstrap: ctx.config.bootstrap,
    tactics: ctx.config.ca?.tactics ?? null,
    daReward: ctx.sparring.daReward,
    caReward: ctx.sparring.caReward,
    arena: ctx.sparring.arena,
    judge: ctx.judge?.name ?? null,
    domain: ctx.domain,
    provider: ctx.session?.provider ?? 'cpu',
    threads: ctx.session?.intraOpNumThreads ?? null,
    // The frozen DA of CA0's pressure plays through the policy cache, on the CPU with device.play 'cpu'.
    play: ctx.config.device?.play ?? 'provider',
  };
  return createHash('sha256').update(JSON.stringify(inputs)).digest('hex');
}

interface BootstrapRow {
  run_id: string;
  da: string;
  ca: string;
}

/** The bootstrap stored under `key`, if its two checkpoints are still in the lab. */
export function findBootstrap(ctx: Pick<LabContext, 'store' | 'checkpoints'>, key: string): BootstrapRow | null {
  const row = ctx.store.db.prepare<[string], BootstrapRow>('SELECT run_id, da, ca FROM bootstraps WHERE key = ?').get(key);
  if (!row || !ctx.checkpoints.meta(row.da) || !ctx.checkpoints.meta(row.ca)) return null;
  return row;
}

/** Records a run's freshly trained bootstrap under its key (the first one stays). */
export function recordBootstrap(ctx: Pick<LabContext, 'store' | 'runId'>, key: string, da: string, ca: string): void {
  ctx.store.db
    .prepare('INSERT OR IGNORE INTO bootstraps (key, run_id, da, ca, created_at) VALUES (?, ?, ?, ?, ?)')
    .run(key, ctx.runId, da, ca, new Date().toISOString());
}

/**
 * Copies the bootstrap `from` into this run: new DA0 and CA0 checkpoints of this run with the same
 * weights, and the bootstrap phases' metrics, so its dashboard shows the curves that made them.
 * One transaction: a run killed while copying finds all of it or none when it resumes. Returns the
 * new checkpoints' names.
 */
export function copyBootstrap(ctx: Pick<LabContext, 'store' | 'checkpoints' | 'runId' | 'metric'>, from: BootstrapRow): { da: string; ca: string } {
  // IMMEDIATE: take the write lock first (another worker may be writing), not upgrade to it midway.
  return ctx.store.db.transaction(() => copyAll(ctx, from)).immediate();
}

function copyAll(ctx: Pick<LabContext, 'store' | 'checkpoints' | 'runId' | 'metric'>, from: BootstrapRow): { da: string; ca: string } {
  const copy = (name: string, trainingData?: CheckpointMeta['trainingData']): string => {
    const c = ctx.checkpoints.get(name)!;
    return ctx.checkpoints.save({
      role: c.role,
      source: 'bootstrap',
      runId: ctx.runId,
      parent: null,
      generation: 0,
      step: c.step,
      snapshot: c.snapshot,
      provider: c.provider,
      metrics: c.metrics,
      trainingData: trainingData ?? c.trainingData,
      note: `the bootstrap of run ${from.run_id} (${name}), reused: same seed and bootstrap inputs`,
    }).name;
  };
  // The metrics first: a resumed run keeps the points written before its last checkpoint (host/coevolution/service.ts).
  const rows = ctx.store.db
    .prepare<[string], { phase: string; key: string; step: number; value: number }>(
      "SELECT phase, key, step, value FROM run_metrics WHERE run_id = ? AND phase LIKE 'bootstrap:%' ORDER BY step, phase, key",
    )
    .all(from.run_id);
  for (const r of rows) ctx.metric(r.phase, r.key, r.step, r.value);
  const da = copy(from.da);
  const ca = copy(from.ca, [{ kind: 'checkpoint', id: da }]);
  return { da, ca };
}
