/**
 * Checkpoints in the lab database: a model's weights, optimiser state and the JSON that rebuilds
 * it, with lineage — the parent it was trained from, its generation, how it was made (`source`:
 * 'sft', 'gym', 'import', …) and what data it was trained on.
 *
 * Names are what a policy SPEC names (`DA0`, `DA1`, `CA0`, …): unique, and a save never
 * overwrites, so `DA2` means the same weights for as long as the lab keeps it (the store has no
 * delete). A save is one transaction: it stores everything or nothing. A checkpoint's id is its
 * name.
 */
import { faultPoint } from './fault-injection';
import { textTooLong, TEXT_BOUNDS } from './text-bounds';
import { createHash } from 'node:crypto';
import type { Database } from 'better-sqlite3';
import type { CheckpointInfo } from '../../core/contract/contract';
import type { ModelSnapshot, PolicyModel } from '../../core/rl/ports';
import type { CheckpointMetaRow, CheckpointRow } from './rows';

export type CheckpointRole = 'DA' | 'CA';
export const CHECKPOINT_ROLES: readonly CheckpointRole[] = ['DA', 'CA'];

/** One thing a checkpoint was trained on. */
export interface TrainingDataRef {
  /** 'match' (its transcripts), 'episode', 'corpus_import' (SFT demonstrations), 'demos', … */
  kind: string;
  id: string;
}

/**
 * What an LLM checkpoint plays (migration 21): a model spec of the lab — a saved endpoint, a saved
 * GGUF model or `gguf:FILE` — and what it named when it was registered (an endpoint's base URL and
 * model id, a GGUF file's path and SHA-256), so a spec that names something else later is caught.
 */
export type LlmCheckpointSpec =
  { kind: 'endpoint'; spec: string; baseUrl: string; model: string } | { kind: 'gguf'; spec: string; path: string; sha256: string };

/** The model_json of an LLM checkpoint (its weights are empty). */
export const LLM_MODEL_JSON = '{"kind":"llm"}';

/** An LLM checkpoint's spec in words: what lineage, `sparring run` and the report show. */
export function describeLlm(l: LlmCheckpointSpec): string {
  return l.kind === 'endpoint' ? `LLM ${l.spec}: endpoint ${l.baseUrl}, model ${l.model}` : `LLM ${l.spec}: GGUF ${l.path}, sha256 ${l.sha256.slice(0, 12)}…`;
}

/** A checkpoint without its blobs: what lists and lineage show. */
export interface CheckpointMeta extends Omit<CheckpointInfo, 'humanEpisodes' | 'llm'> {
  /** The row's id: what a match records beside the SPEC that resolved to it (equal to the name in this store). */
  id: string;
  /** Optimiser steps behind these weights. */
  step: number;
  /** Final metrics of the training that produced it (registry keys), or null. */
  metrics: Record<string, number> | null;
  trainingData: TrainingDataRef[];
  /** Why the training that made it ended early (a gym's trust-region stop or divergence), or null. */
  note: string | null;
  /** The execution provider it trained on, or null (not recorded). */
  provider: string | null;
  /** The model's architecture and feature encoding (see ModelSnapshot.modelJson); LLM_MODEL_JSON for an LLM. */
  modelJson: string;
  /** An LLM checkpoint's model spec (migration 21); null: builtin weights. */
  llm: LlmCheckpointSpec | null;
  weightBytes: number;
  /** null for an inference-only checkpoint. */
  optimiserBytes: number | null;
}

export interface Checkpoint extends CheckpointMeta {
  snapshot: ModelSnapshot;
}

export interface NewCheckpoint {
  role: CheckpointRole;
  /** Default: the role's next free name (`nextName`). */
  name?: string;
  /** The checkpoint these weights were trained from (same role), or none. */
  parent?: string | null;
  /** Default: the parent's generation + 1, or 0 without a parent. */
  generation?: number;
  /** Optimiser steps so far (default 0). */
  step?: number;
  /** How it was made: 'sft', 'gym', 'import', … */
  source: string;
  runId?: string | null;
  /** The weights; exactly one of `snapshot` and `llm`. */
  snapshot?: ModelSnapshot;
  /** An LLM checkpoint: the model spec it plays (no weights). */
  llm?: LlmCheckpointSpec;
  metrics?: Record<string, number> | null;
  trainingData?: readonly TrainingDataRef[];
  /** Why the training ended early, if it did (default null). */
  note?: string | null;
  /** The execution provider the model trained on ('cpu', 'webgpu', …); default null (not recorded). */
  provider?: string | null;
  /** Default: now. */
  createdAt?: string;
}

export interface CheckpointStore {
  /** The next free `<role><n>` name: one past the highest n the role has used (DA0 first). */
  nextName(role: CheckpointRole): string;
  /** Stores a new checkpoint; throws (writing nothing) on a taken name, a bad snapshot or a missing parent. */
  save(c: NewCheckpoint): CheckpointMeta;
  get(name: string): Checkpoint | null;
  /** The checkpoint without its blobs (cheap: what a caller needs to tell an LLM checkpoint from weights), or null. */
  meta(name: string): CheckpointMeta | null;
  /** The newest checkpoint of the role, or null when it has none. */
  latest(role: CheckpointRole): Checkpoint | null;
  /** `latest` or a name, checked against the role; throws naming what is available. */
  resolve(spec: string, role: CheckpointRole): Checkpoint;
  /** Oldest first; one role or all. */
  list(role?: CheckpointRole): CheckpointMeta[];
  /** The checkpoint, its parent, its parent's parent, … back to the root. */
  lineage(name: string): CheckpointMeta[];
  /** Human-played episodes this checkpoint's weights saw in training: its own and its ancestors'. */
  humanEpisodesSeen(name: string): string[];
  /**
   * Loads a checkpoint's snapshot into `model`. A snapshot the model cannot take (another
   * architecture or shape) fails with an error that names the checkpoint.
   */
  restoreInto(name: string, model: Pick<PolicyModel<unknown, unknown>, 'restore'>): Promise<CheckpointMeta>;
}

/** Stores bytes in checkpoint_blobs once by content (sha256, hex); returns their hash. */
function blobWriter(db: Database): (bytes: Uint8Array) => string {
  const insert = db.prepare('INSERT OR IGNORE INTO checkpoint_blobs (hash, bytes) VALUES (?, ?)');
  return (bytes) => {
    const b = blob(bytes);
    const hash = createHash('sha256').update(b).digest('hex');
    insert.run(hash, b);
    return hash;
  };
}

export interface CompactResult {
  /** Checkpoints whose inline bytes moved into checkpoint_blobs. */
  checkpoints: number;
  /** The bytes those checkpoints held inline (weights and optimiser state). */
  inlineBytes: number;
  /** The lab file's size before and after (after VACUUM, when asked for; in bytes; null for an in-memory lab). */
  fileBytes: { before: number | null; after: number | null };
}

/**
 * Moves the weights and optimiser state that checkpoints saved before migration 23 hold inline
 * into checkpoint_blobs, so copies share their bytes as later checkpoints do: one checkpoint per
 * transaction (an interrupted compaction leaves every checkpoint whole, moved or not, and a second
 * one goes on). The file shrinks only when `vacuum` rewrites it (VACUUM needs free disk about the
 * size of the lab). `sparring checkpoints compact`.
 */
export function compactCheckpoints(db: Database, opts: { vacuum?: boolean; onProgress?: (done: number, total: number) => void } = {}): CompactResult {
  const fileSize = (): number | null => {
    const pages = db.pragma('page_count', { simple: true }) as number;
    return db.memory ? null : pages * (db.pragma('page_size', { simple: true }) as number);
  };
  const before = fileSize();
  const names = db.prepare('SELECT name FROM checkpoints WHERE weights_hash IS NULL AND length(weights) > 0 ORDER BY rowid').pluck().all() as string[];
  const read = db.prepare('SELECT weights, optimiser FROM checkpoints WHERE name = ? AND weights_hash IS NULL');
  const update = db.prepare("UPDATE checkpoints SET weights = x'', optimiser = NULL, weights_hash = ?, optimiser_hash = ? WHERE name = ?");
  const putBlob = blobWriter(db);
  let inlineBytes = 0;
  let moved = 0;
  const move = db.transaction((name: string) => {
    const row = read.get(name) as { weights: Buffer; optimiser: Buffer | null } | undefined;
    if (!row) return; // moved by another process since the list was read
    update.run(putBlob(row.weights), row.optimiser === null ? null : putBlob(row.optimiser), name);
    inlineBytes += row.weights.byteLength + (row.optimiser?.byteLength ?? 0);
    moved++;
  });
  names.forEach((name, i) => {
    move(name);
    opts.onProgress?.(i + 1, names.length);
  });
  if (opts.vacuum) db.exec('VACUUM');
  return { checkpoints: moved, inlineBytes, fileBytes: { before, after: fileSize() } };
}

/** A bad request to the checkpoint store (the message says what and which checkpoint). */
export class CheckpointError extends Error {
  override name = 'CheckpointError';
}

/** The training-data kind of a human-played episode mixed into a gym (RunConfig gym.humanEpisodes). */
export const HUMAN_EPISODE = 'human_episode';

/** Words a policy SPEC already means, so no checkpoint may take them. */
const RESERVED = new Set(['latest', 'scripted']);
const NAME = /^[A-Za-z][A-Za-z0-9_.-]{0,63}$/;
const ROLE_NAME = /^(DA|CA)(\d+)$/;

/** The checkpoint store of an open lab database (e.g. `openSqliteStore(path).db`). */
export function checkpointStore(db: Database): CheckpointStore {
  // Weights and optimiser state live in checkpoint_blobs by content (migration 23); checkpoints
  // saved before it hold theirs inline (NULL hashes).
  const from = `FROM checkpoints c LEFT JOIN checkpoint_blobs w ON w.hash = c.weights_hash LEFT JOIN checkpoint_blobs o ON o.hash = c.optimiser_hash`;
  const cols = `c.id, c.name, c.role, c.created_at, c.run_id, c.parent_id, c.generation, c.step, c.source, c.model_json, c.metrics_json,
                c.training_data_json, c.note, c.provider, c.llm_json,
                CASE WHEN c.weights_hash IS NULL THEN length(c.weights) ELSE length(w.bytes) END AS weight_bytes,
                CASE WHEN c.optimiser_hash IS NULL THEN length(c.optimiser) ELSE length(o.bytes) END AS optimiser_bytes`;
  const blobs = `CASE WHEN c.weights_hash IS NULL THEN c.weights ELSE w.bytes END AS weights,
                 CASE WHEN c.optimiser_hash IS NULL THEN c.optimiser ELSE o.bytes END AS optimiser, c.weights_hash, c.optimiser_hash`;
  const insert = db.prepare(`
    INSERT INTO checkpoints (id, name, role, created_at, run_id, parent_id, generation, step, source,
                             model_json, weights, optimiser, weights_hash, optimiser_hash, metrics_json, training_data_json, note, provider, llm_json)
    VALUES (@name, @name, @role, @createdAt, @runId, @parent, @generation, @step, @source,
            @modelJson, x'', NULL, @weightsHash, @optimiserHash, @metricsJson, @trainingDataJson, @note, @provider, @llmJson)`);
  const putBlob = blobWriter(db);
  const byName = db.prepare<[string], CheckpointRow>(`SELECT ${cols}, ${blobs} ${from} WHERE c.name = ?`);
  const metaByName = db.prepare<[string], CheckpointMetaRow>(`SELECT ${cols} ${from} WHERE c.name = ?`);
  const namesOfRole = db.prepare<[string], string>('SELECT name FROM checkpoints WHERE role = ?').pluck();
  // rowid breaks ties between checkpoints saved in the same millisecond.
  const latestOfRole = db.prepare<[string], string>(`SELECT name FROM checkpoints WHERE role = ? ORDER BY created_at DESC, rowid DESC LIMIT 1`).pluck();
  const listAll = db.prepare<[], CheckpointMetaRow>(`SELECT ${cols} ${from} ORDER BY c.created_at, c.rowid`);
  const listRole = db.prepare<[string], CheckpointMetaRow>(`SELECT ${cols} ${from} WHERE c.role = ? ORDER BY c.created_at, c.rowid`);
  const runExists = db.prepare('SELECT 1 FROM runs WHERE id = ?').pluck();

  function nextName(role: CheckpointRole): string {
    checkRole(role);
    let max = -1;
    for (const name of namesOfRole.all(role)) {
      const m = ROLE_NAME.exec(name);
      if (m && m[1] === role) max = Math.max(max, Number(m[2]));
    }
    return `${role}${max + 1}`;
  }

  function get(name: string): Checkpoint | null {
    const row = byName.get(name);
    return row ? checkpoint(row) : null;
  }

  const write = db.transaction((c: NewCheckpoint): CheckpointMeta => {
    const name = c.name ?? nextName(c.role);
    const what = `checkpoint ${name}`;
    checkName(name, c.role);
    const taken = metaByName.get(name);
    if (taken) {
      throw new CheckpointError(
        `${what} already exists (a ${String(taken.role)} checkpoint saved ${String(taken.created_at)}); checkpoints are never ` +
          `overwritten — save under another name, or leave the name out to get ${c.role === taken.role ? nextName(c.role) : `the next ${c.role} name`}`,
      );
    }
    let parentGeneration = -1;
    if (c.parent != null) {
      const p = metaByName.get(c.parent);
      if (!p) throw new CheckpointError(`${what}: parent checkpoint ${c.parent} does not exist in this lab`);
      if (p.role !== c.role) throw new CheckpointError(`${what}: parent ${c.parent} is a ${String(p.role)} checkpoint, not a ${c.role} one`);
      parentGeneration = p.generation;
    }
    if (c.runId != null && runExists.get(c.runId) === undefined) throw new CheckpointError(`${what}: run ${c.runId} does not exist in this lab`);
    const generation = c.generation ?? parentGeneration + 1;
    const step = c.step ?? 0;
    for (const [field, v] of [
      ['generation', generation],
      ['step', step],
    ] as const) {
      if (!Number.isSafeInteger(v) || v < 0) throw new CheckpointError(`${what}: ${field} must be a non-negative integer, got ${v}`);
    }
    if (typeof c.source !== 'string' || c.source.trim() === '')
      throw new CheckpointError(`${what}: source must name how it was made (e.g. 'sft', 'gym', 'import')`);
    if ((c.snapshot === undefined) === (c.llm === undefined))
      throw new CheckpointError(`${what}: give either weights (snapshot) or an LLM spec (llm), ${c.snapshot ? 'not both' : 'got neither'}`);
    if (c.snapshot) checkSnapshot(c.snapshot, what);
    else checkLlm(c.llm!, what);
    if (c.note != null && typeof c.note !== 'string') throw new CheckpointError(`${what}: note must be a string or null, got ${typeof c.note}`);
    const longNote = textTooLong(`${what}: note`, c.note, TEXT_BOUNDS.note);
    if (longNote) throw new CheckpointError(longNote);
    const metricsJson = c.metrics == null ? null : JSON.stringify(checkMetrics(c.metrics, what));
    const trainingData = (c.trainingData ?? []).map((d, i) => {
      if (typeof d?.kind !== 'string' || d.kind === '' || typeof d.id !== 'string' || d.id === '') {
        throw new CheckpointError(`${what}: training data entry ${i} needs a non-empty kind and id, got ${JSON.stringify(d)}`);
      }
      return { kind: d.kind, id: d.id };
    });
    insert.run({
      name,
      role: c.role,
      createdAt: c.createdAt ?? new Date().toISOString(),
      runId: c.runId ?? null,
      parent: c.parent ?? null,
      generation,
      step,
      source: c.source,
      modelJson: c.snapshot ? c.snapshot.modelJson : LLM_MODEL_JSON,
      weightsHash: c.snapshot ? putBlob(c.snapshot.weights) : null,
      optimiserHash: c.snapshot?.optimiser ? putBlob(c.snapshot.optimiser) : null,
      llmJson: c.llm ? JSON.stringify(c.llm) : null,
      metricsJson,
      trainingDataJson: JSON.stringify(trainingData),
      note: c.note ?? null,
      provider: c.provider ?? null,
    });
    faultPoint('checkpoint');
    return meta(metaByName.get(name)!);
  });

  function lineage(name: string): CheckpointMeta[] {
    const out: CheckpointMeta[] = [];
    const seen = new Set<string>();
    for (let n: string | null = name; n !== null;) {
      if (seen.has(n)) throw new CheckpointError(`checkpoint ${name}: its lineage loops back to ${n}`);
      seen.add(n);
      const row = metaByName.get(n);
      if (!row) {
        if (n === name) throw new CheckpointError(`checkpoint ${name} does not exist in this lab`);
        break; // a parent deleted since (parent_id is SET NULL on delete, so this is not expected)
      }
      const m = meta(row);
      out.push(m);
      n = m.parent;
    }
    return out;
  }

  function latest(role: CheckpointRole): Checkpoint | null {
    checkRole(role);
    const name = latestOfRole.get(role);
    return name === undefined ? null : get(name);
  }

  function available(role: CheckpointRole): string {
    const names = namesOfRole.all(role).sort(byNumber);
    return names.length ? `${role} checkpoints in this lab: ${names.join(', ')}` : `this lab holds no ${role} checkpoints yet`;
  }

  return {
    nextName,
    save(c) {
      checkRole(c.role);
      // IMMEDIATE: take the write lock before choosing a name, so two processes cannot pick the same one.
      return write.immediate(c);
    },
    get,
    meta(name) {
      const row = metaByName.get(name);
      return row ? meta(row) : null;
    },
    latest,
    resolve(spec, role) {
      checkRole(role);
      const c = spec === 'latest' ? latest(role) : get(spec);
      if (!c) throw new CheckpointError(`no ${role} checkpoint ${spec === 'latest' ? '(latest)' : spec}: ${available(role)}`);
      if (c.role !== role) throw new CheckpointError(`checkpoint ${spec} is a ${c.role} checkpoint, not a ${role} one`);
      return c;
    },
    list(role) {
      if (role !== undefined) checkRole(role);
      return (role === undefined ? listAll.all() : listRole.all(role)).map(meta);
    },
    lineage,
    humanEpisodesSeen(name) {
      const ids = lineage(name).flatMap((c) => c.trainingData.filter((d) => d.kind === HUMAN_EPISODE).map((d) => d.id));
      return [...new Set(ids)];
    },
    async restoreInto(name, model) {
      const c = get(name);
      if (!c) throw new CheckpointError(`checkpoint ${name} does not exist in this lab`);
      assertBuiltin(c);
      try {
        await model.restore(c.snapshot);
      } catch (e) {
        throw new CheckpointError(`checkpoint ${name} (${c.role}, ${c.source}, generation ${c.generation}) does not fit this model: ${(e as Error).message}`, {
          cause: e,
        });
      }
      const { snapshot: _s, ...m } = c;
      return m;
    },
  };
}

function checkRole(role: string): asserts role is CheckpointRole {
  if (!(CHECKPOINT_ROLES as readonly string[]).includes(role)) throw new CheckpointError(`role must be 'DA' or 'CA', got '${role}'`);
}

function checkName(name: string, role: CheckpointRole): void {
  if (!NAME.test(name)) {
    throw new CheckpointError(`checkpoint name '${name}' is not valid: use a letter then letters, digits, '_', '.' or '-' (at most 64)`);
  }
  if (RESERVED.has(name.toLowerCase())) throw new CheckpointError(`checkpoint name '${name}' is reserved: as a policy SPEC it already means something else`);
  const m = ROLE_NAME.exec(name);
  if (m && m[1] !== role) throw new CheckpointError(`checkpoint name '${name}' says ${m[1]}, but the checkpoint is a ${role} one`);
}

function checkSnapshot(s: ModelSnapshot, what: string): void {
  try {
    JSON.parse(s.modelJson);
  } catch (e) {
    throw new CheckpointError(`${what}: modelJson is not valid JSON (${(e as Error).message})`);
  }
  if (!(s.weights instanceof Uint8Array) || s.weights.byteLength === 0 || s.weights.byteLength % 4 !== 0) {
    throw new CheckpointError(`${what}: weights must be a non-empty array of float32 bytes, got ${s.weights?.byteLength ?? 'none'} bytes`);
  }
  if (s.optimiser !== null && (!(s.optimiser instanceof Uint8Array) || s.optimiser.byteLength % 4 !== 0)) {
    throw new CheckpointError(`${what}: optimiser state must be float32 bytes or null, got ${s.optimiser?.byteLength ?? 'none'} bytes`);
  }
}

function checkLlm(l: LlmCheckpointSpec, what: string): void {
  const text = (v: unknown) => typeof v === 'string' && v.trim() !== '';
  const ok = text(l.spec) && (l.kind === 'endpoint' ? text(l.baseUrl) && text(l.model) : l.kind === 'gguf' && text(l.path) && /^[0-9a-f]{64}$/.test(l.sha256));
  if (!ok)
    throw new CheckpointError(
      `${what}: llm must name a spec and what it names (an endpoint's baseUrl and model, a GGUF file's path and sha256), got ${JSON.stringify(l)}`,
    );
}

/**
 * Throws unless the checkpoint holds builtin weights: an LLM checkpoint (migration 21) is played
 * through its model spec, never loaded into a builtin model.
 */
export function assertBuiltin(c: Pick<CheckpointMeta, 'name' | 'role' | 'llm'>): void {
  if (c.llm)
    throw new CheckpointError(
      `checkpoint ${c.name} is an LLM ${c.role} (${describeLlm(c.llm)}), not builtin weights: it plays through its endpoint or GGUF file, and cannot be loaded, trained in process or exported as a builtin model`,
    );
}

function checkMetrics(m: Record<string, number>, what: string): Record<string, number> {
  for (const [k, v] of Object.entries(m)) {
    if (typeof v !== 'number' || !Number.isFinite(v)) throw new CheckpointError(`${what}: metric ${k} is ${v}, not a finite number`);
  }
  return m;
}

function blob(u: Uint8Array): Buffer {
  return Buffer.from(u.buffer, u.byteOffset, u.byteLength);
}

function meta(r: CheckpointMetaRow): CheckpointMeta {
  return {
    id: r.id,
    name: r.name,
    role: r.role,
    createdAt: r.created_at,
    runId: r.run_id,
    parent: r.parent_id,
    generation: r.generation,
    source: r.source,
    step: r.step,
    metrics: r.metrics_json === null ? null : (JSON.parse(r.metrics_json) as Record<string, number>),
    trainingData: JSON.parse(r.training_data_json) as TrainingDataRef[],
    note: r.note,
    provider: r.provider,
    modelJson: r.model_json,
    llm: r.llm_json === null ? null : (JSON.parse(r.llm_json) as LlmCheckpointSpec),
    weightBytes: r.weight_bytes,
    optimiserBytes: r.optimiser_bytes,
  };
}

function checkpoint(r: CheckpointRow): Checkpoint {
  // Bytes stored by content are checked against their hash on every load: a lab file altered on
  // disk (a few KiB of a blob overwritten) must not quietly play or train a different model.
  for (const [what, bytes, stored] of [
    ['weights', r.weights, r.weights_hash],
    ['optimiser state', r.optimiser, r.optimiser_hash],
  ] as const) {
    if (stored === null || bytes === null) continue;
    const actual = createHash('sha256').update(bytes).digest('hex');
    if (actual !== stored)
      throw new CheckpointError(
        `checkpoint ${r.name}: its ${what} do not match their sha256 (stored ${stored}, read ${actual}); the lab file was altered after they were saved, so they are refused`,
      );
  }
  // Copies into fresh, aligned buffers, so Float32Array views over them work.
  const weights = new Uint8Array(r.weights);
  const optimiser = r.optimiser === null ? null : new Uint8Array(r.optimiser);
  return { ...meta(r), snapshot: { modelJson: r.model_json, weights, optimiser } };
}

function byNumber(a: string, b: string): number {
  const na = Number(ROLE_NAME.exec(a)?.[2] ?? NaN);
  const nb = Number(ROLE_NAME.exec(b)?.[2] ?? NaN);
  return Number.isNaN(na) || Number.isNaN(nb) ? a.localeCompare(b) : na - nb;
}
