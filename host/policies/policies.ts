/**
 * Turns a policy SPEC into a policy (DESIGN.md §7), for the CLI and the engine alike: `scripted`;
 * `latest` or a checkpoint name (`DA2`, `CA1`) from the lab; for the DA also `sft`, a builtin DA
 * trained by SFT right away with the seed and kept in the lab as `DA-sft-<seed>`. A builtin policy
 * carries the checkpoint its SPEC resolved to (`policy.checkpoint`), which matches record.
 *
 * Problems are `PolicyError`s that name the role and SPEC; the CLI words them as its options
 * (host/cli/policies.ts), the engine passes them on as they are.
 */
import { existsSync } from 'node:fs';
import { ScriptedCa } from '../../core/agents/scripted-ca';
import { ScriptedDa } from '../../core/agents/scripted-da';
import type { CaPolicy, CheckpointRef, DaPolicy } from '../../core/agents/policy';
import type { Domain } from '../../core/domain/types';
import { corpusRoutingItems } from '../../core/rl/demos';
import { BuiltinCa } from '../../models/builtin-ca';
import { BuiltinDa } from '../../models/builtin-da';
import { CaModel } from '../../models/ca-model';
import { DaModel } from '../../models/da-model';
import type { SessionSettings } from '../../models/session';
import { trainSftDa } from '../routing-eval';
import { CheckpointError, checkpointStore } from '../store/checkpoint-store';
import type { Checkpoint, CheckpointRole } from '../store/checkpoint-store';
import { corpusUtterances, listCorpusImports } from '../store/corpus-store';
import { openSqliteStore } from '../store/sqlite-store';

/** Where and how a SPEC is resolved. */
export interface PolicyContext {
  /** The lab file. */
  db: string;
  /** The seed of an `sft` DA (its name is `DA-sft-<seed>`). */
  seed: number;
  session?: SessionSettings;
  /** SFT epochs when `sft` trains a new DA. */
  epochs?: number;
  /** A line about what `sft` does (trains, reuses, stored). */
  log?: (line: string) => void;
  /** SFT progress while `sft` trains. */
  onSftStep?: (step: number, totalSteps: number) => void;
}

/** A SPEC that names no policy of its role here: `detail` says why and what there is. */
export class PolicyError extends Error {
  override name = 'PolicyError';
  constructor(
    readonly role: CheckpointRole,
    readonly spec: string,
    readonly detail: string,
  ) {
    super(`${role} policy "${spec}": ${detail}`);
  }
}

/** A loaded model and the stored checkpoint it came from. */
export interface Loaded<M> {
  model: M;
  checkpoint: CheckpointRef;
}

const refOf = (c: { name: string; id: string }): CheckpointRef => ({ name: c.name, id: c.id });

/** The SFT DA of this seed: the lab's `DA-sft-<seed>` if it has one, else trained now and stored under that name. */
async function sftModel(domain: Domain, ctx: PolicyContext): Promise<Loaded<DaModel>> {
  const { db, seed, epochs } = ctx;
  const session = ctx.session ?? {};
  const log = ctx.log ?? (() => {});
  const store = openSqliteStore(db);
  try {
    const checkpoints = checkpointStore(store.db);
    const name = `DA-sft-${seed}`;
    const existing = checkpoints.get(name);
    if (existing) {
      log(`sft: using checkpoint ${name} from ${db}${epochs !== undefined ? ' (--epochs applies only when a new DA is trained)' : ''}`);
      return { model: await DaModel.fromSnapshot(existing.snapshot, session), checkpoint: refOf(existing) };
    }
    const imports = listCorpusImports(store.db);
    const corpus = corpusRoutingItems(domain, corpusUtterances(store.db));
    log(`sft: training ${name} by SFT on the bank's train slice${corpus.length ? ` and ${corpus.length} imported corpus rows` : ''}`);
    const trained = await trainSftDa(domain, {
      seed,
      session,
      extraRouting: corpus,
      ...(epochs !== undefined ? { sft: { epochs } } : {}),
      hooks: { onStep: (p) => ctx.onSftStep?.(p.step, p.totalSteps) },
    });
    const last = trained.sft.epochs.at(-1)?.metrics ?? {};
    const saved = checkpoints.save({
      role: 'DA',
      name,
      source: 'sft',
      step: trained.sft.steps,
      snapshot: await trained.model.snapshot(),
      metrics: last,
      trainingData: [
        { kind: 'demos', id: `bank-train-slice:seed=${seed}` },
        ...imports.map((i) => ({ kind: 'corpus_import', id: String(i.id) })),
      ],
    });
    log(
      `sft: stored ${name} in ${db} (${trained.demonstrations} demonstrations, ${trained.sft.steps} steps, ` +
        `final loss ${(last['sft/loss'] ?? NaN).toFixed(3)}, accuracy ${(last['sft/accuracy'] ?? NaN).toFixed(3)})`,
    );
    return { model: trained.model, checkpoint: refOf(saved) };
  } finally {
    store.close();
  }
}

/** A stored checkpoint: `latest` or a name, of the given role. */
function storedCheckpoint(spec: string, role: CheckpointRole, db: string): Checkpoint {
  const other = role === 'DA' ? 'Other choices: "sft" (train one now) or "scripted" (the keyword router).' : 'Other choice: "scripted".';
  if (db !== ':memory:' && !existsSync(db)) {
    throw new PolicyError(role, spec, `no such policy; the lab ${db} does not exist yet, so it holds no ${role} checkpoints. ${other}`);
  }
  const store = openSqliteStore(db);
  try {
    return checkpointStore(store.db).resolve(spec, role);
  } catch (e) {
    if (e instanceof CheckpointError) throw new PolicyError(role, spec, `${e.message}. ${other}`);
    throw e;
  } finally {
    store.close();
  }
}

/** The builtin DA a SPEC names (`sft`, `latest`, or a checkpoint name), and the checkpoint it resolved to. */
export async function loadDaModel(spec: string, domain: Domain, ctx: PolicyContext): Promise<Loaded<DaModel>> {
  if (spec === 'sft') return sftModel(domain, ctx);
  const c = storedCheckpoint(spec, 'DA', ctx.db);
  return { model: await DaModel.fromSnapshot(c.snapshot, ctx.session ?? {}), checkpoint: refOf(c) };
}

/** The DA a SPEC names; a builtin one carries the checkpoint the SPEC resolved to (`policy.checkpoint`). */
export async function resolveDa(spec: string, domain: Domain, ctx: PolicyContext): Promise<DaPolicy> {
  if (spec === 'scripted') return new ScriptedDa();
  const { model, checkpoint } = await loadDaModel(spec, domain, ctx);
  return new BuiltinDa(model, { name: spec, checkpoint });
}

export async function resolveCa(spec: string, domain: Domain, ctx: PolicyContext): Promise<CaPolicy> {
  if (spec === 'scripted') return new ScriptedCa(domain);
  const c = storedCheckpoint(spec, 'CA', ctx.db);
  const model = await CaModel.fromSnapshot(c.snapshot, ctx.session ? { session: ctx.session } : {});
  return new BuiltinCa(model, domain.bank, { name: spec, checkpoint: refOf(c) });
}
