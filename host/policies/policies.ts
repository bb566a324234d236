/**
 * Turns a policy SPEC into a policy (DESIGN.md §7), for the CLI and the engine alike: `scripted`;
 * `latest` or a checkpoint name (`DA2`, `CA1`) from the lab; for the DA also `sft`, a builtin DA
 * trained by SFT right away with the seed and kept in the lab as `DA-sft-<seed>`. A builtin policy
 * carries the checkpoint its SPEC resolved to (`policy.checkpoint`), which matches record.
 *
 * An LLM endpoint saved in the lab (`sparring models add NAME`) is a SPEC too, for either role, and
 * so is a local GGUF file: saved by name (`models add NAME --gguf FILE`) or named directly as
 * `gguf:FILE` (loaded with `gpu: 'auto'`; `SPARRING_GGUF_GPU`, `SPARRING_GGUF_THREADS` and
 * `SPARRING_GGUF_SEQUENCES` override where it runs, how many CPU threads it uses and how many calls
 * it runs at once).
 *
 * Problems are `PolicyError`s that name the role and SPEC; the CLI words them as its options
 * (host/cli/policies.ts), the engine passes them on as they are.
 */
import { existsSync } from 'node:fs';
import { ScriptedCa } from '../../core/agents/scripted-ca';
import { ScriptedDa } from '../../core/agents/scripted-da';
import type { CaPolicy, CheckpointRef, DaPolicy } from '../../core/agents/policy';
import type { Domain, UtteranceBank } from '../../core/domain/types';
import type { CaTacticBounds } from '../../core/agents/ca-choices';
import { corpusRoutingItems } from '../../core/rl/demos';
import { BuiltinCa } from '../../models/builtin-ca';
import { BuiltinDa } from '../../models/builtin-da';
import { CaModel } from '../../models/ca-model';
import { DaModel } from '../../models/da-model';
import type { CallLedger, ChatBackend, ChatResult } from '../../models/llm/chat-backend';
import { ChatBackendError } from '../../models/llm/chat-backend';
import { DA_GRAMMAR_MAX_TOKENS } from '../../models/llm/da-messages';
import { CA_GRAMMAR_MAX_TOKENS } from '../../models/llm/ca-messages';
import { GGUF_DEFAULTS, GGUF_GPUS, GGUF_MAX_SEQUENCES, GgufBackend, ggufConfigOf } from '../../models/llm/gguf-backend';
import type { GgufConfig, GgufGpu } from '../../models/llm/gguf-backend';
import { PendingLedger } from '../../models/llm/ledger';
import { LlmCa } from '../../models/llm/llm-ca';
import { LlmDa } from '../../models/llm/llm-da';
import { LlmJudge } from '../../models/llm/llm-judge';
import { RULE_JUDGE_SPEC, ruleJudge } from '../../core/judge/port';
import type { Judge } from '../../core/judge/port';
import { OpenAiBackend } from '../../models/llm/openai-backend';
import type { SessionSettings } from '../../models/session';
import { trainSftDa } from '../routing-eval';
import { assertBuiltin, CheckpointError, checkpointStore, describeLlm } from '../store/checkpoint-store';
import type { Checkpoint, CheckpointMeta, CheckpointRole } from '../store/checkpoint-store';
import { corpusUtterances, listCorpusImports } from '../store/corpus-store';
import { llmStore } from '../store/llm-store';
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
  /** The same progress in words, for the app (Play against `sft` says a DA is being trained). */
  onTraining?: (p: { label: string; done: number; total: number }) => void;
  /** false: LLM calls skip the lab's response cache (new answers are still stored). Default true. */
  cache?: boolean;
  /**
   * Where an LLM policy's calls are recorded instead of the lab's shared ledger (`playLedger`): a
   * play session's own, written with its episode, so no match writes or clears them meanwhile.
   */
  ledger?: PendingLedger;
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
      hooks: {
        onStep: (p) => {
          ctx.onSftStep?.(p.step, p.totalSteps);
          ctx.onTraining?.({
            label: `training ${name}: supervised fine-tuning on the bank's expert episodes (once per lab)`,
            done: p.step,
            total: p.totalSteps,
          });
        },
      },
    });
    const last = trained.sft.epochs.at(-1)?.metrics ?? {};
    const saved = checkpoints.save({
      role: 'DA',
      name,
      source: 'sft',
      step: trained.sft.steps,
      snapshot: await trained.model.snapshot(),
      metrics: last,
      trainingData: [{ kind: 'demos', id: `bank-train-slice:seed=${seed}` }, ...imports.map((i) => ({ kind: 'corpus_import', id: String(i.id) }))],
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
  const other =
    (role === 'DA' ? 'Other choices: "sft" (train one now) or "scripted" (the keyword router)' : 'Other choice: "scripted"') +
    ', or an LLM endpoint saved with "sparring models add".';
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

/** Refuses an LLM checkpoint where builtin weights are needed, as a PolicyError. */
function builtinOnly(c: Checkpoint, spec: string): void {
  try {
    assertBuiltin(c);
  } catch (e) {
    if (e instanceof CheckpointError) throw new PolicyError(c.role, spec, e.message);
    throw e;
  }
}

/** The builtin DA a SPEC names (`sft`, `latest`, or a checkpoint name), and the checkpoint it resolved to. */
export async function loadDaModel(spec: string, domain: Domain, ctx: PolicyContext): Promise<Loaded<DaModel>> {
  if (spec === 'sft') return sftModel(domain, ctx);
  const c = storedCheckpoint(spec, 'DA', ctx.db);
  builtinOnly(c, spec);
  return { model: await DaModel.fromSnapshot(c.snapshot, ctx.session ?? {}), checkpoint: refOf(c) };
}

// ------------------------------------------------------------------------- LLM endpoints

/**
 * The LLM calls this process made against each lab, not yet written: a command that stores what
 * they produced (a match) writes them in the same transaction, so a failed command leaves the lab
 * unchanged. One backend per endpoint and lab, so a DA and a CA on the same endpoint share its
 * concurrency limit.
 */
const labLlm = new Map<
  string,
  { answers: Map<string, ChatResult>; ledger: PendingLedger; backends: Map<string, OpenAiBackend>; gguf: Map<string, Promise<GgufBackend>> }
>();

function llmOf(ctx: PolicyContext) {
  let lab = labLlm.get(ctx.db);
  if (!lab) {
    const answers = new Map<string, ChatResult>();
    lab = { answers, ledger: new PendingLedger((key) => answers.get(key)), backends: new Map(), gguf: new Map() };
    labLlm.set(ctx.db, lab);
  }
  return lab;
}

/**
 * Drop the backends and cached answers held for this lab's endpoints, after one was removed or
 * saved anew under its name: the next resolution reads the lab again (answers are loaded per
 * endpoint with its backend, so both go together). A match in flight keeps the backend it has.
 */
export function forgetEndpoints(db: string): void {
  const lab = labLlm.get(db);
  if (!lab) return;
  lab.backends.clear();
  lab.answers.clear();
}

/**
 * The ledger a policy resolved in `ctx` calls through: the lab's, or with `cache: false` (`--no-cache`)
 * one that answers nothing from the cache but records into the lab's all the same. Per context, not
 * per lab: one process can resolve the same endpoint with and without the cache.
 */
function ledgerFor(lab: { ledger: PendingLedger }, ctx: PolicyContext): CallLedger {
  const into = ctx.ledger ?? lab.ledger;
  return ctx.cache === false ? { cached: () => undefined, record: (rec, result) => into.record(rec, result) } : into;
}

/**
 * A ledger of its own for one play session against an LLM: it answers from the lab's cache as the
 * shared ledger does, and holds the session's call records until its episode is stored.
 */
export function playLedger(db: string): PendingLedger {
  const lab = llmOf({ db, seed: 1 });
  return new PendingLedger(
    (key) => lab.ledger.cached(key),
    true,
    (key, answer) => lab.answers.set(key, answer),
  );
}

/** The ledger of pending LLM calls for this lab, if any LLM policy was resolved against it. */
export function pendingLlmCalls(db: string): PendingLedger | undefined {
  return labLlm.get(db)?.ledger;
}

/** The LLM endpoint a SPEC names in the lab, with a backend and the endpoint's cached answers; undefined when none. */
function endpointPolicy(spec: string, ctx: PolicyContext) {
  if (spec === 'scripted' || spec === 'sft' || spec === 'latest' || (ctx.db !== ':memory:' && !existsSync(ctx.db))) return undefined;
  const store = openSqliteStore(ctx.db);
  try {
    const cfg = llmStore(store.db).getEndpoint(spec);
    if (!cfg) return undefined;
    const lab = llmOf(ctx);
    let backend = lab.backends.get(spec);
    if (!backend) {
      lab.backends.set(spec, (backend = new OpenAiBackend(cfg)));
      for (const r of store.db.prepare('SELECT request_key, result_json FROM llm_cache WHERE endpoint = ?').all(spec) as {
        request_key: string;
        result_json: string;
      }[]) {
        lab.answers.set(r.request_key, JSON.parse(r.result_json) as ChatResult);
      }
    }
    return { cfg, backend, ledger: ledgerFor(lab, ctx) };
  } finally {
    store.close();
  }
}

/** The SPEC of a GGUF file not saved in the lab: `gguf:FILE`. */
export const GGUF_SPEC = /^gguf:(.+)$/;

/** Where a `gguf:FILE` SPEC runs, its CPU threads and context sequences: the defaults, or the environment's override. */
export function ggufSpecSettings(env: NodeJS.ProcessEnv = process.env): Pick<GgufConfig, 'gpu' | 'threads' | 'sequences'> {
  const gpu = env.SPARRING_GGUF_GPU ?? GGUF_DEFAULTS.gpu;
  if (!(GGUF_GPUS as readonly string[]).includes(gpu)) throw new Error(`SPARRING_GGUF_GPU must be one of ${GGUF_GPUS.join(', ')}, got "${gpu}"`);
  const threads = env.SPARRING_GGUF_THREADS === undefined ? GGUF_DEFAULTS.threads : Number(env.SPARRING_GGUF_THREADS);
  if (!Number.isInteger(threads) || threads < 0)
    throw new Error(`SPARRING_GGUF_THREADS must be a whole number (0: all cores), got "${env.SPARRING_GGUF_THREADS}"`);
  const sequences = env.SPARRING_GGUF_SEQUENCES === undefined ? GGUF_DEFAULTS.sequences : Number(env.SPARRING_GGUF_SEQUENCES);
  if (!Number.isInteger(sequences) || sequences < 1 || sequences > GGUF_MAX_SEQUENCES)
    throw new Error(`SPARRING_GGUF_SEQUENCES must be a whole number from 1 to ${GGUF_MAX_SEQUENCES}, got "${env.SPARRING_GGUF_SEQUENCES}"`);
  return { gpu: gpu as GgufGpu, threads, sequences };
}

/**
 * The local GGUF model a SPEC names (`gguf:FILE`, or a name saved with `models add NAME --gguf`),
 * loaded once per lab and file hash; undefined when the SPEC names none. The lab's cached answers
 * for it are read in, as for an endpoint.
 */
async function ggufPolicy(spec: string, role: CheckpointRole, ctx: PolicyContext): Promise<{ backend: GgufBackend; ledger: CallLedger } | undefined> {
  const file = GGUF_SPEC.exec(spec)?.[1];
  let cfg: GgufConfig | undefined;
  const labExists = ctx.db === ':memory:' || existsSync(ctx.db);
  if (file === undefined) {
    if (!labExists || spec === 'scripted' || spec === 'sft' || spec === 'latest') return undefined;
    const store = openSqliteStore(ctx.db);
    try {
      cfg = llmStore(store.db).getGguf(spec);
    } finally {
      store.close();
    }
    if (!cfg) return undefined;
  } else {
    try {
      cfg = await ggufConfigOf(file, { name: spec, ...ggufSpecSettings() });
    } catch (e) {
      throw new PolicyError(role, spec, (e as Error).message);
    }
  }
  const lab = llmOf(ctx);
  // A name saved again with other settings (or a gguf:FILE under other SPARRING_GGUF_*) loads anew.
  const key = [cfg.name, cfg.sha256, cfg.gpu, cfg.contextSize, cfg.threads, cfg.sequences].join('\0');
  let loading = lab.gguf.get(key);
  if (!loading) {
    lab.gguf.set(key, (loading = GgufBackend.load(cfg)));
    loading.catch(() => lab.gguf.delete(key));
    if (labExists) {
      const store = openSqliteStore(ctx.db);
      try {
        for (const r of store.db.prepare('SELECT request_key, result_json FROM llm_cache WHERE endpoint = ?').all(cfg.name) as {
          request_key: string;
          result_json: string;
        }[]) {
          lab.answers.set(r.request_key, JSON.parse(r.result_json) as ChatResult);
        }
      } finally {
        store.close();
      }
    }
  }
  try {
    const backend = await loading;
    ctx.log?.(`${spec}: ${backend.model} on ${backend.gpu}`);
    return { backend, ledger: ledgerFor(lab, ctx) };
  } catch (e) {
    if (e instanceof ChatBackendError) throw new PolicyError(role, spec, e.message);
    throw e;
  }
}

/** Release the local GGUF models this process loaded (their native memory), e.g. before it exits. */
export async function disposeGgufModels(): Promise<void> {
  for (const lab of labLlm.values()) {
    const loaded = [...lab.gguf.values()];
    lab.gguf.clear();
    for (const p of loaded)
      await p.then(
        (b) => b.dispose(),
        () => undefined,
      );
  }
}

/** Episodes a match keeps in flight: an LLM policy's endpoint limit (the smaller of two), else `fallback`. */
export function matchConcurrency(da: DaPolicy, ca: CaPolicy, fallback: number): number {
  const backends: ChatBackend[] = [...(da instanceof LlmDa ? [da.backend] : []), ...(ca instanceof LlmCa ? [ca.backend] : [])];
  // A DA and a CA on the same local model share its one sequence: one episode at a time.
  const limits = backends.map((b) => b.maxConcurrency);
  return limits.length ? Math.min(...limits) : fallback;
}

/** How an LLM policy is labelled: by default its SPEC; an LLM checkpoint's name and ref, so matches record the checkpoint. */
interface LlmLabel {
  name: string;
  checkpoint?: CheckpointRef;
}

/** The LLM DA a SPEC names, when it names an endpoint saved in the lab; undefined otherwise. */
export function resolveLlmDa(spec: string, ctx: PolicyContext, as: LlmLabel = { name: spec }): LlmDa | undefined {
  const llm = endpointPolicy(spec, ctx);
  return llm && new LlmDa(llm.backend, llm.cfg.toolCalls, { ...as, ledger: llm.ledger });
}

/** The LLM CA a SPEC names, when it names an endpoint saved in the lab; undefined otherwise. */
export function resolveLlmCa(spec: string, ctx: PolicyContext, as: LlmLabel = { name: spec }): LlmCa | undefined {
  const llm = endpointPolicy(spec, ctx);
  return llm && new LlmCa(llm.backend, { ...as, ledger: llm.ledger, mode: llm.cfg.toolCalls });
}

/** The LLM DA a SPEC names: a saved endpoint, a saved GGUF model or `gguf:FILE`; undefined when it names none. */
async function llmSpecDa(spec: string, ctx: PolicyContext, as: LlmLabel = { name: spec }): Promise<LlmDa | undefined> {
  const llm = resolveLlmDa(spec, ctx, as);
  if (llm) return llm;
  const gguf = await ggufPolicy(spec, 'DA', ctx);
  // A file with a chat template plays the trained form (native: its template, its call under the
  // call grammar), one without the text form under the wire grammar; max tokens bound what either
  // grammar can produce, so every turn ends and parses.
  return gguf && new LlmDa(gguf.backend, gguf.backend.hasChatTemplate ? 'native' : 'text', { ...as, ledger: gguf.ledger, maxTokens: DA_GRAMMAR_MAX_TOKENS });
}

/** The LLM CA a SPEC names: a saved endpoint, a saved GGUF model or `gguf:FILE`; undefined when it names none. */
async function llmSpecCa(spec: string, ctx: PolicyContext, as: LlmLabel = { name: spec }): Promise<LlmCa | undefined> {
  const llm = resolveLlmCa(spec, ctx, as);
  if (llm) return llm;
  const gguf = await ggufPolicy(spec, 'CA', ctx);
  // As the DA: a file with a chat template plays the trained form (`say` under the call grammar,
  // its max tokens bounding what the grammar can produce), one without free text.
  return (
    gguf &&
    new LlmCa(
      gguf.backend,
      gguf.backend.hasChatTemplate ? { ...as, ledger: gguf.ledger, mode: 'native', maxTokens: CA_GRAMMAR_MAX_TOKENS } : { ...as, ledger: gguf.ledger },
    )
  );
}

/**
 * The policy of an LLM checkpoint (one an external trainer handed back: `sparring checkpoints add
 * --model SPEC`), labelled with the checkpoint's name: its spec resolved in the lab, checked
 * against what it named when registered (the endpoint's model id, the GGUF file's hash), so a
 * spec saved anew over another model is refused rather than played as this checkpoint.
 */
export async function llmCheckpointPolicy(c: Pick<CheckpointMeta, 'name' | 'id' | 'role' | 'llm'> & { role: 'DA' }, ctx: PolicyContext): Promise<LlmDa>;
export async function llmCheckpointPolicy(c: Pick<CheckpointMeta, 'name' | 'id' | 'role' | 'llm'> & { role: 'CA' }, ctx: PolicyContext): Promise<LlmCa>;
export async function llmCheckpointPolicy(c: Pick<CheckpointMeta, 'name' | 'id' | 'role' | 'llm'>, ctx: PolicyContext): Promise<LlmDa | LlmCa> {
  const l = c.llm;
  if (!l) throw new PolicyError(c.role, c.name, 'not an LLM checkpoint');
  const as = { name: c.name, checkpoint: refOf(c) };
  const policy = c.role === 'DA' ? await llmSpecDa(l.spec, ctx, as) : await llmSpecCa(l.spec, ctx, as);
  const what = `checkpoint ${c.name} is the ${describeLlm(l)}`;
  if (!policy)
    throw new PolicyError(
      c.role,
      c.name,
      `${what}, but the lab ${ctx.db} has no model "${l.spec}" now (${l.kind === 'endpoint' ? `sparring models add ${l.spec} --base-url ${l.baseUrl} --model ${l.model}` : `sparring models add ${l.spec} --gguf ${l.path}`})`,
    );
  const model = policy.backend.model;
  if (l.kind === 'endpoint' && model !== l.model) throw new PolicyError(c.role, c.name, `${what}, but the lab's "${l.spec}" now serves model ${model}`);
  if (l.kind === 'gguf' && !model.endsWith(`@sha256:${l.sha256.slice(0, 16)}`))
    throw new PolicyError(c.role, c.name, `${what}, but "${l.spec}" is now ${model} (another file)`);
  return policy;
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
      lab.ledger.written();
    } finally {
      store.close();
    }
  }
}

// ------------------------------------------------------------------------------ resolution

/** The DA a SPEC names; a builtin one carries the checkpoint the SPEC resolved to (`policy.checkpoint`). */
export async function resolveDa(spec: string, domain: Domain, ctx: PolicyContext): Promise<DaPolicy> {
  if (spec === 'scripted') return new ScriptedDa();
  const llm = await llmSpecDa(spec, ctx);
  if (llm) return llm;
  if (spec !== 'sft') {
    const c = storedCheckpoint(spec, 'DA', ctx.db);
    if (c.llm) return llmCheckpointPolicy({ ...c, role: 'DA' }, ctx);
  }
  const { model, checkpoint } = await loadDaModel(spec, domain, ctx);
  return new BuiltinDa(model, { name: spec, checkpoint });
}

/**
 * The CA a SPEC names. A builtin or scripted CA speaks `domain`'s bank, or `speak.bank` (a run's
 * train slice, as in its own matches) within `speak.tactics`; an LLM CA writes its own words.
 */
export async function resolveCa(
  spec: string,
  domain: Domain,
  ctx: PolicyContext,
  speak?: { bank: UtteranceBank; tactics?: CaTacticBounds },
): Promise<CaPolicy> {
  const bank = speak?.bank ?? domain.bank;
  if (spec === 'scripted') return new ScriptedCa(bank === domain.bank ? domain : { ...domain, bank });
  const llm = await llmSpecCa(spec, ctx);
  if (llm) return llm;
  const c = storedCheckpoint(spec, 'CA', ctx.db);
  if (c.llm) return llmCheckpointPolicy({ ...c, role: 'CA' }, ctx);
  const model = await CaModel.fromSnapshot(c.snapshot, ctx.session ? { session: ctx.session } : {});
  return new BuiltinCa(model, bank, { name: spec, checkpoint: refOf(c), ...(speak?.tactics ? { tactics: speak.tactics } : {}) });
}

/**
 * The judge a SPEC names: `rule` (the builtin rule judge, the default) or an LLM endpoint saved in
 * the lab (`sparring models add`), prompted with assets/prompts/judge-system.v1.txt.
 */
/** The chat backend of an LLM endpoint saved in the lab (e.g. EAU's meta-agent); undefined when the lab has no endpoint of that name. */
export function resolveChatBackend(spec: string, ctx: PolicyContext): ChatBackend | undefined {
  return endpointPolicy(spec, ctx)?.backend;
}

export function resolveJudge(spec: string, ctx: PolicyContext): Judge {
  if (spec === RULE_JUDGE_SPEC) return ruleJudge;
  const llm = endpointPolicy(spec, ctx);
  if (llm) return new LlmJudge(llm.backend, { name: spec, ledger: llm.ledger });
  throw new JudgeSpecError(spec, `not "${RULE_JUDGE_SPEC}" and no LLM endpoint of that name in the lab ${ctx.db} (sparring models list)`);
}

export class JudgeSpecError extends Error {
  override name = 'JudgeSpecError';
  constructor(
    readonly spec: string,
    readonly detail: string,
  ) {
    super(`judge "${spec}": ${detail}`);
  }
}
