/**
 * Turns a policy SPEC from the command line into a policy (DESIGN.md §7): `scripted`; `latest`
 * or a checkpoint name (`DA2`, `CA1`) from the lab; for the DA also `sft`, a builtin DA trained
 * by SFT right away with --seed and kept in the lab as `DA-sft-<seed>`.
 */
import { existsSync } from 'node:fs';
import { ScriptedCa } from '../../core/agents/scripted-ca';
import { ScriptedDa } from '../../core/agents/scripted-da';
import type { CaPolicy, DaPolicy } from '../../core/agents/policy';
import type { Domain } from '../../core/domain/types';
import { corpusRoutingItems } from '../../core/rl/demos';
import { BuiltinCa } from '../../models/builtin-ca';
import { BuiltinDa } from '../../models/builtin-da';
import { CaModel } from '../../models/ca-model';
import { DaModel } from '../../models/da-model';
import type { SessionSettings } from '../../models/session';
import { trainSftDa } from '../routing-eval';
import { CheckpointError, checkpointStore } from '../store/checkpoint-store';
import type { CheckpointRole } from '../store/checkpoint-store';
import { corpusUtterances, listCorpusImports } from '../store/corpus-store';
import { openSqliteStore } from '../store/sqlite-store';
import { UsageError } from './options';
import { progressBar } from './progress';
import type { GlobalOptions } from './main';

export interface ModelOptions {
  session?: SessionSettings;
  /** SFT epochs when `sft` trains a new DA. */
  epochs?: number;
  /** Steps of a DA being trained for `sft` (the app shows them while a Play session starts). */
  onTraining?: (p: { label: string; done: number; total: number }) => void;
}

/** The SFT DA of this seed: the lab's `DA-sft-<seed>` if it has one, else trained now and stored under that name. */
async function sftModel(domain: Domain, db: string, seed: number, epochs: number | undefined, session: SessionSettings, onTraining?: ModelOptions['onTraining']): Promise<DaModel> {
  const store = openSqliteStore(db);
  try {
    const checkpoints = checkpointStore(store.db);
    const name = `DA-sft-${seed}`;
    const existing = checkpoints.get(name);
    if (existing) {
      process.stderr.write(`sft: using checkpoint ${name} from ${db}${epochs !== undefined ? ' (--epochs applies only when a new DA is trained)' : ''}\n`);
      return await DaModel.fromSnapshot(existing.snapshot, session);
    }
    const imports = listCorpusImports(store.db);
    const corpus = corpusRoutingItems(domain, corpusUtterances(store.db));
    process.stderr.write(`sft: training ${name} by SFT on the bank's train slice${corpus.length ? ` and ${corpus.length} imported corpus rows` : ''}\n`);
    const bar = progressBar(`sft ${name}`);
    const trained = await trainSftDa(domain, {
      seed,
      session,
      extraRouting: corpus,
      ...(epochs !== undefined ? { sft: { epochs } } : {}),
      hooks: {
        onStep: (p) => {
          bar.update(p.step, p.totalSteps);
          onTraining?.({ label: `training ${name}: supervised fine-tuning on the bank's expert episodes (once per lab)`, done: p.step, total: p.totalSteps });
        },
      },
    });
    bar.stop();
    const last = trained.sft.epochs.at(-1)?.metrics ?? {};
    checkpoints.save({
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
    process.stderr.write(
      `sft: stored ${name} in ${db} (${trained.demonstrations} demonstrations, ${trained.sft.steps} steps, ` +
        `final loss ${(last['sft/loss'] ?? NaN).toFixed(3)}, accuracy ${(last['sft/accuracy'] ?? NaN).toFixed(3)})\n`,
    );
    return trained.model;
  } finally {
    store.close();
  }
}

/** A stored checkpoint's snapshot: `latest` or a name, of the given role. */
function storedSnapshot(spec: string, role: CheckpointRole, db: string) {
  const other = role === 'DA' ? 'Other choices: "sft" (train one now) or "scripted" (the keyword router).' : 'Other choice: "scripted".';
  if (db !== ':memory:' && !existsSync(db)) {
    throw new UsageError(`--${role.toLowerCase()} "${spec}": no such policy; the lab ${db} does not exist yet, so it holds no ${role} checkpoints. ${other}`);
  }
  const store = openSqliteStore(db);
  try {
    return checkpointStore(store.db).resolve(spec, role).snapshot;
  } catch (e) {
    if (e instanceof CheckpointError) throw new UsageError(`--${role.toLowerCase()} "${spec}": ${e.message}. ${other}`);
    throw e;
  } finally {
    store.close();
  }
}

/** The builtin DA model a SPEC names (`sft`, `latest`, or a checkpoint name). */
export async function daModelFor(spec: string, domain: Domain, g: GlobalOptions, opts: ModelOptions = {}): Promise<DaModel> {
  const session = opts.session ?? {};
  if (spec === 'sft') return sftModel(domain, g.db, g.seed, opts.epochs, session, opts.onTraining);
  return DaModel.fromSnapshot(storedSnapshot(spec, 'DA', g.db), session);
}

export async function resolveDa(spec: string, domain: Domain, g: GlobalOptions, opts: ModelOptions = {}): Promise<DaPolicy> {
  if (spec === 'scripted') return new ScriptedDa();
  return new BuiltinDa(await daModelFor(spec, domain, g, opts), { name: spec });
}

export async function resolveCa(spec: string, domain: Domain, g: GlobalOptions, opts: ModelOptions = {}): Promise<CaPolicy> {
  if (spec === 'scripted') return new ScriptedCa(domain);
  const model = await CaModel.fromSnapshot(storedSnapshot(spec, 'CA', g.db), opts.session ? { session: opts.session } : {});
  return new BuiltinCa(model, domain.bank, { name: spec });
}

