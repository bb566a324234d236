/**
 * A stand-in for an external trainer, for the builtin policies (TRL and verl train LLMs, which a
 * run of builtin policies cannot load): reads a gym job's folder (job.json, written when a run
 * with gym.da.trainer or gym.ca.trainer "external" reached the gym), trains the gym's checkpoint
 * with Sparring's own GRPO gym on the same decision points (the job's match, 70:30 mix and seed:
 * what gym.jsonl lists) in a copy of the lab, and writes the result as the `.onnx` that
 * `sparring checkpoints add` takes. The lab itself is only read.
 *
 *   npx tsx scripts/builtin-trainer.ts --job <lab dir>/gym-jobs/R1-gym1 --db lab.db --out da-trained.onnx
 */
import { readFileSync, rmSync, mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseRunConfig, sparringConfigOf } from '../core/coevolution/run-config';
import { withAdversityProfile } from '../core/world/adversities';
import { exportCheckpointOnnx } from '../models/export';
import { PolicyCache, gym } from '../host/coevolution/actors';
import type { LabContext } from '../host/coevolution/lab-context';
import { checkpointStore } from '../host/store/checkpoint-store';
import { labDomain } from '../host/store/scenario-store';
import { openSqliteStore } from '../host/store/sqlite-store';

process.env.ORT_DISABLE_TELEMETRY ??= '1';
const arg = (name: string): string => {
  const i = process.argv.indexOf(name);
  if (i < 0 || !process.argv[i + 1]) throw new Error(`usage: npx tsx scripts/builtin-trainer.ts --job DIR --db LAB --out FILE.onnx (missing ${name})`);
  return process.argv[i + 1]!;
};
const jobDir = arg('--job');
const labPath = arg('--db');
const out = arg('--out');

interface JobManifest {
  run: string;
  gym: number;
  role: 'DA' | 'CA';
  from: string;
  frozen_opponent: string;
  match_id: string;
  seed: number;
  decision_points: number;
}
const job = JSON.parse(readFileSync(path.join(jobDir, 'job.json'), 'utf8')) as JobManifest;

// A copy of the lab: the gym saves its checkpoint there, not in the lab the run waits on.
const tmp = mkdtempSync(path.join(os.tmpdir(), 'sparring-builtin-trainer-'));
const copy = path.join(tmp, 'lab.db');
const source = openSqliteStore(labPath);
await source.db.backup(copy);
source.close();

const store = openSqliteStore(copy);
const checkpoints = checkpointStore(store.db);
let cache: PolicyCache | null = null;
try {
  const row = store.db.prepare('SELECT config_json FROM runs WHERE id = ?').get(job.run) as { config_json: string } | undefined;
  if (!row) throw new Error(`${labPath}: no run ${job.run}`);
  const config = parseRunConfig(row.config_json, `run ${job.run} config`);
  const base = labDomain(store.db);
  const domain = config.adversities ? withAdversityProfile(base) : base;
  let last = '';
  const ctx: LabContext = {
    runId: job.run,
    seed: job.seed,
    domain,
    config,
    sparring: sparringConfigOf(config),
    store,
    checkpoints,
    progress: (p) => {
      if (p.done === p.total || p.label !== last) process.stderr.write(`${p.label}: ${p.done}/${p.total}\n`);
      last = p.label;
    },
    metric: () => {},
    stopped: () => false,
  };
  const started = Date.now();
  cache = new PolicyCache({ checkpoints, domain, dbPath: store.path });
  const result = await gym(ctx, cache, {
    runId: job.run,
    role: job.role,
    from: job.from,
    opponent: job.frozen_opponent,
    matchId: job.match_id,
    seed: job.seed,
  });
  const trained = checkpoints.resolve(result.checkpoint, job.role);
  writeFileSync(
    out,
    await exportCheckpointOnnx(trained.snapshot, {
      name: `${job.role}-${job.run}-gym${job.gym}`,
      role: job.role,
      source: 'builtin-trainer',
      generation: trained.generation,
    }),
  );
  process.stderr.write(
    `trained ${job.role} ${job.from} on gym ${job.gym} of ${job.run} (${job.decision_points} decision points, against frozen ${job.frozen_opponent}) in ${((Date.now() - started) / 1000).toFixed(1)} s` +
      `${result.note ? ` — ${result.note}` : ''}; wrote ${out}\n` +
      `register it: npx sparring checkpoints add --role ${job.role} --model ${out} --parent ${job.from} --run ${job.run} --gym ${job.gym} --db ${labPath}\n`,
  );
} finally {
  await cache?.dispose();
  store.close();
  rmSync(tmp, { recursive: true, force: true });
}
