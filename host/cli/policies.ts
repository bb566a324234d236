/**
 * Turns a policy SPEC from the command line into a policy (DESIGN.md §7): `scripted`; `latest`
 * or a checkpoint name (`DA2`, `CA1`) from the lab; for the DA also `sft`, a builtin DA trained
 * by SFT right away with --seed and kept in the lab as `DA-sft-<seed>`; or the name of an LLM
 * endpoint saved in the lab (`sparring models add`), for either role.
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
import { UsageError } from './options';
import { LlmCa } from '../../models/llm/llm-ca';
import { LlmDa } from '../../models/llm/llm-da';
import { PendingLedger } from '../../models/llm/ledger';
import { OpenAiBackend } from '../../models/llm/openai-backend';
import type { ChatResult } from '../../models/llm/chat-backend';
import { llmStore } from '../store/llm-store';
import { progressBar } from './progress';
import type { GlobalOptions } from './main';

export interface ModelOptions {
  session?: SessionSettings;
  /** SFT epochs when `sft` trains a new DA. */
  epochs?: number;
  /** Steps of a DA being trained for `sft` (the app shows them while a Play session starts). */
  onTraining?: (p: { label: string; done: number; total: number }) => void;
}

/** A loaded model and the stored checkpoint it came from. */
interface Loaded<M> {
  model: M;
  checkpoint: CheckpointRef;
}

const refOf = (c: { name: string; id: string }): CheckpointRef => ({ name: c.name, id: c.id });

/** The SFT DA of this seed: the lab's `DA-sft-<seed>` if it has one, else trained now and stored under that name. */
async function sftModel(domain: Domain, db: string, seed: number, epochs: number | undefined, session: SessionSettings, onTraining?: ModelOptions['onTraining']): Promise<Loaded<DaModel>> {
  const store = openSqliteStore(db);
  try {
    const checkpoints = checkpointStore(store.db);
    const name = `DA-sft-${seed}`;
    const existing = checkpoints.get(name);
    if (existing) {
      process.stderr.write(`sft: using checkpoint ${name} from ${db}${epochs !== undefined ? ' (--epochs applies only when a new DA is trained)' : ''}\n`);
      return { model: await DaModel.fromSnapshot(existing.snapshot, session), checkpoint: refOf(existing) };
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
    process.stderr.write(
      `sft: stored ${name} in ${db} (${trained.demonstrations} demonstrations, ${trained.sft.steps} steps, ` +
        `final loss ${(last['sft/loss'] ?? NaN).toFixed(3)}, accuracy ${(last['sft/accuracy'] ?? NaN).toFixed(3)})\n`,
    );
    return { model: trained.model, checkpoint: refOf(saved) };
  } finally {
    store.close();
  }
}

/** A stored checkpoint: `latest` or a name, of the given role. */
function storedCheckpoint(spec: string, role: CheckpointRole, db: string): Checkpoint {
  const other =
    (role === 'DA' ? 'Other choices: "sft" (train one now) or "scripted" (the keyword router)' : 'Other choice: "scripted"') +
    ', or an LLM endpoint saved with "sparring models add".';
  if (db !== ':memory:' && !existsSync(db)) {
    throw new UsageError(`--${role.toLowerCase()} "${spec}": no such policy; the lab ${db} does not exist yet, so it holds no ${role} checkpoints. ${other}`);
  }
  const store = openSqliteStore(db);
  try {
    return checkpointStore(store.db).resolve(spec, role);
  } catch (e) {
    if (e instanceof CheckpointError) throw new UsageError(`--${role.toLowerCase()} "${spec}": ${e.message}. ${other}`);
    throw e;
  } finally {
    store.close();
  }
}

/**
 * The LLM calls this process made against each lab, not yet written: a command that stores what
 * they produced (a match) writes them in the same transaction (`commitLlmCalls`), so a failed
 * command leaves the lab unchanged. One backend per endpoint and lab, so a DA and a CA on the same
 * endpoint share its concurrency limit.
 */
const labLlm = new Map<string, { answers: Map<string, ChatResult>; ledger: PendingLedger; backends: Map<string, OpenAiBackend> }>();

function llmOf(g: GlobalOptions) {
  let lab = labLlm.get(g.db);
  if (!lab) {
    const answers = new Map<string, ChatResult>();
    lab = { answers, ledger: new PendingLedger((key) => answers.get(key), g.cache !== false), backends: new Map() };
    labLlm.set(g.db, lab);
  }
  return lab;
}

/** The ledger of pending LLM calls for this lab, if any LLM policy was resolved against it. */
export function pendingLlmCalls(db: string): PendingLedger | undefined {
  return labLlm.get(db)?.ledger;
}

/** The LLM endpoint a SPEC names in the lab, with a backend and the endpoint's cached answers; undefined when none. */
function endpointPolicy(spec: string, g: GlobalOptions) {
  if (spec === 'scripted' || spec === 'sft' || spec === 'latest' || (g.db !== ':memory:' && !existsSync(g.db))) return undefined;
  const store = openSqliteStore(g.db);
  try {
    const llm = llmStore(store.db);
    const cfg = llm.getEndpoint(spec);
    if (!cfg) return undefined;
    const lab = llmOf(g);
    let backend = lab.backends.get(spec);
    if (!backend) {
      lab.backends.set(spec, (backend = new OpenAiBackend(cfg)));
      for (const r of store.db.prepare('SELECT request_key, result_json FROM llm_cache WHERE endpoint = ?').all(spec) as { request_key: string; result_json: string }[]) {
        lab.answers.set(r.request_key, JSON.parse(r.result_json) as ChatResult);
      }
    }
    return { cfg, backend, ledger: lab.ledger };
  } finally {
    store.close();
  }
}

/** Episodes a match keeps in flight: an LLM policy's endpoint limit (the smaller of two), else `fallback`. */
export function matchConcurrency(da: DaPolicy, ca: CaPolicy, fallback: number): number {
  const limits = [da instanceof LlmDa ? da.backend.maxConcurrency : null, ca instanceof LlmCa ? ca.backend.maxConcurrency : null].filter((x): x is number => x !== null);
  return limits.length ? Math.min(...limits) : fallback;
}


/** The builtin DA a SPEC names (`sft`, `latest`, or a checkpoint name), and the checkpoint it resolved to. */
export async function loadDaModel(spec: string, domain: Domain, g: GlobalOptions, opts: ModelOptions = {}): Promise<Loaded<DaModel>> {
  const session = opts.session ?? {};
  if (spec === 'sft') return sftModel(domain, g.db, g.seed, opts.epochs, session, opts.onTraining);
  const c = storedCheckpoint(spec, 'DA', g.db);
  return { model: await DaModel.fromSnapshot(c.snapshot, session), checkpoint: refOf(c) };
}

/** The builtin DA model a SPEC names (`sft`, `latest`, or a checkpoint name). */
export async function daModelFor(spec: string, domain: Domain, g: GlobalOptions, opts: ModelOptions = {}): Promise<DaModel> {
  return (await loadDaModel(spec, domain, g, opts)).model;
}

/** The LLM DA a SPEC names, when it names an endpoint saved in the lab; undefined otherwise. */
export function resolveLlmDa(spec: string, g: GlobalOptions): LlmDa | undefined {
  const llm = endpointPolicy(spec, g);
  return llm && new LlmDa(llm.backend, llm.cfg.toolCalls, { name: spec, ledger: llm.ledger });
}

/**
 * Write the LLM calls still pending for each lab (their records and new cached answers). The CLI
 * calls it once a command has succeeded; a match writes its own in its transaction first.
 */
export function flushPendingLlmCalls(): void {
  for (const [db, lab] of labLlm) {
    if (lab.ledger.records.length === 0) continue;
    const store = openSqliteStore(db);
    try {
      store.db.transaction(() => llmStore(store.db).writeLedger(lab.ledger))();
      lab.ledger.clear();
    } finally {
      store.close();
    }
  }
}

/** The DA a SPEC names; a builtin one carries the checkpoint the SPEC resolved to (`policy.checkpoint`). */
export async function resolveDa(spec: string, domain: Domain, g: GlobalOptions, opts: ModelOptions = {}): Promise<DaPolicy> {
  if (spec === 'scripted') return new ScriptedDa();
  const llm = resolveLlmDa(spec, g);
  if (llm) return llm;
  const { model, checkpoint } = await loadDaModel(spec, domain, g, opts);
  return new BuiltinDa(model, { name: spec, checkpoint });
}

export async function resolveCa(spec: string, domain: Domain, g: GlobalOptions, opts: ModelOptions = {}): Promise<CaPolicy> {
  if (spec === 'scripted') return new ScriptedCa(domain);
  const llm = endpointPolicy(spec, g);
  if (llm) return new LlmCa(llm.backend, { name: spec, ledger: llm.ledger });
  const c = storedCheckpoint(spec, 'CA', g.db);
  const model = await CaModel.fromSnapshot(c.snapshot, opts.session ? { session: opts.session } : {});
  return new BuiltinCa(model, domain.bank, { name: spec, checkpoint: refOf(c) });
}

