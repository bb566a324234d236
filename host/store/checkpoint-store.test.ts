import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import type { ModelSnapshot } from '../../core/rl/ports';
import { DaModel } from '../../models/da-model';
import { bankingDomain } from '../domain-files';
import { CheckpointError, checkpointStore, compactCheckpoints, describeLlm, LLM_MODEL_JSON } from './checkpoint-store';
import { applyMigrations } from './migrations';
import { openSqliteStore } from './sqlite-store';

const root = mkdtempSync(join(tmpdir(), 'sparring-ckpt-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
let files = 0;
const fresh = () => {
  const lab = openSqliteStore(join(root, `lab-${++files}.sqlite`));
  return { lab, store: checkpointStore(lab.db) };
};

function snap(values: number[], shape = [values.length], optimiser = true): ModelSnapshot {
  const w = Float32Array.from(values);
  return {
    modelJson: JSON.stringify({ kind: 'toy', shape }),
    weights: new Uint8Array(w.buffer),
    optimiser: optimiser ? new Uint8Array(Float32Array.from([...values, ...values, 3]).buffer) : null,
  };
}

/** A model that accepts only snapshots of its own shape, as the builtin models do. */
class ToyModel {
  weights: Float32Array = new Float32Array(0);
  constructor(readonly shape: number[]) {}
  async restore(s: ModelSnapshot): Promise<void> {
    const got = (JSON.parse(s.modelJson) as { shape: number[] }).shape;
    if (got.join() !== this.shape.join()) throw new Error(`shape [${got.join()}] does not match this model's [${this.shape.join()}]`);
    this.weights = new Float32Array(s.weights.buffer, s.weights.byteOffset, s.weights.byteLength / 4);
  }
}

describe('checkpoint store', () => {
  it('checks weights and optimiser state against their sha256 on load, refusing an altered blob with the name and both hashes (issue 51)', async () => {
    const { lab, store } = fresh();
    store.save({ role: 'DA', source: 'sft', snapshot: snap([1, 2, 3, 4]) });
    const hash = lab.db.prepare("SELECT weights_hash FROM checkpoints WHERE name = 'DA0'").pluck().get() as string;
    expect(store.get('DA0')!.snapshot.weights.byteLength).toBe(16);
    // Overwrite part of the blob in place, as a disk error or an edit of the file would.
    lab.db.prepare('UPDATE checkpoint_blobs SET bytes = ? WHERE hash = ?').run(Buffer.from(new Float32Array([1, 2, 3, 5]).buffer), hash);
    expect(() => store.get('DA0')).toThrow(new RegExp(`checkpoint DA0: its weights do not match their sha256 \\(stored ${hash}, read [0-9a-f]{64}\\)`));
    await expect(store.restoreInto('DA0', new ToyModel([4]))).rejects.toThrow(/checkpoint DA0: its weights do not match their sha256/);
    expect(() => store.resolve('latest', 'DA')).toThrow(/checkpoint DA0: its weights do not match/);
    lab.close();
  });

  it("stores an LLM checkpoint (an external trainer's result) by its model spec, in the lineage, never as weights", async () => {
    const { lab, store } = fresh();
    store.save({ role: 'DA', source: 'sft', snapshot: snap([1, 2]) });
    const llm = { kind: 'endpoint' as const, spec: 'qwen-da', baseUrl: 'http://127.0.0.1:8000/v1', model: 'da-lora-2' };
    const saved = store.save({ role: 'DA', source: 'external', parent: 'DA0', llm });
    expect(saved).toMatchObject({ name: 'DA1', parent: 'DA0', generation: 1, llm, modelJson: LLM_MODEL_JSON, weightBytes: 0, optimiserBytes: null });
    expect(store.meta('DA1')!.llm).toEqual(llm);
    expect(store.lineage('DA1').map((c) => [c.name, c.llm?.spec ?? null])).toEqual([
      ['DA1', 'qwen-da'],
      ['DA0', null],
    ]);
    expect(store.meta('DA0')!.llm).toBeNull();
    expect(describeLlm(llm)).toBe('LLM qwen-da: endpoint http://127.0.0.1:8000/v1, model da-lora-2');
    await expect(store.restoreInto('DA1', new ToyModel([2]))).rejects.toThrow(
      'checkpoint DA1 is an LLM DA (LLM qwen-da: endpoint http://127.0.0.1:8000/v1, model da-lora-2), not builtin weights',
    );
    expect(() => store.save({ role: 'DA', source: 'external', llm, snapshot: snap([1]) })).toThrow(
      'give either weights (snapshot) or an LLM spec (llm), not both',
    );
    expect(() => store.save({ role: 'DA', source: 'external' })).toThrow('give either weights (snapshot) or an LLM spec (llm), got neither');
    expect(() => store.save({ role: 'DA', source: 'external', llm: { kind: 'gguf', spec: 'gguf:/m.gguf', path: '/m.gguf', sha256: 'abc' } })).toThrow(
      /llm must name a spec and what it names/,
    );
    expect(store.list('DA').map((c) => c.name)).toEqual(['DA0', 'DA1']);
    lab.close();
  });

  it('round-trips weights, optimiser state, metrics and training data', async () => {
    const { lab, store } = fresh();
    const saved = store.save({
      role: 'DA',
      source: 'sft',
      snapshot: snap([0.5, -1.25, 3]),
      step: 120,
      metrics: { 'sft/loss': 0.31, 'sft/accuracy': 0.9 },
      trainingData: [
        { kind: 'corpus_import', id: '1' },
        { kind: 'demos', id: 'expert-da' },
      ],
      note: 'stopped after step 41 of 60 (trust region)',
    });
    expect(saved).toMatchObject({
      name: 'DA0',
      role: 'DA',
      parent: null,
      generation: 0,
      step: 120,
      source: 'sft',
      weightBytes: 12,
      optimiserBytes: 28,
      runId: null,
    });
    const got = store.get('DA0')!;
    expect(Array.from(new Float32Array(got.snapshot.weights.buffer))).toEqual([0.5, -1.25, 3]);
    expect(Array.from(new Float32Array(got.snapshot.optimiser!.buffer))).toEqual([0.5, -1.25, 3, 0.5, -1.25, 3, 3]);
    expect(got.snapshot.modelJson).toBe(snap([0]).modelJson.replace('[1]', '[3]'));
    expect(got.metrics).toEqual({ 'sft/loss': 0.31, 'sft/accuracy': 0.9 });
    expect(got.trainingData).toEqual([
      { kind: 'corpus_import', id: '1' },
      { kind: 'demos', id: 'expert-da' },
    ]);
    expect(got.note).toBe('stopped after step 41 of 60 (trust region)');
    const model = new ToyModel([3]);
    const meta = await store.restoreInto('DA0', model);
    expect(meta.name).toBe('DA0');
    expect(Array.from(model.weights)).toEqual([0.5, -1.25, 3]);

    // Inference-only snapshots have no optimiser state.
    expect(store.save({ role: 'CA', source: 'import', snapshot: snap([1], [1], false) }).optimiserBytes).toBeNull();
    expect(store.get('CA0')!.snapshot.optimiser).toBeNull();
    expect(store.get('CA0')!.note).toBeNull();
    lab.close();
  });

  it('names DA0, DA1, … per role, never reuses a name and never overwrites', () => {
    const { lab, store } = fresh();
    expect(store.nextName('DA')).toBe('DA0');
    store.save({ role: 'DA', source: 'sft', snapshot: snap([1]) });
    store.save({ role: 'CA', source: 'gym', snapshot: snap([2]) });
    store.save({ role: 'DA', source: 'gym', parent: 'DA0', snapshot: snap([3]) });
    expect(store.nextName('DA')).toBe('DA2');
    expect(store.nextName('CA')).toBe('CA1');
    store.save({ role: 'DA', name: 'DA7', source: 'import', snapshot: snap([4]) });
    expect(store.nextName('DA')).toBe('DA8');

    const before = lab.db.prepare('SELECT count(*) FROM checkpoints').pluck().get();
    expect(() => store.save({ role: 'DA', name: 'DA1', source: 'gym', snapshot: snap([9]) })).toThrow(/checkpoint DA1 already exists.*never overwritten.*DA8/);
    expect(Array.from(new Float32Array(store.get('DA1')!.snapshot.weights.buffer))).toEqual([3]);
    expect(lab.db.prepare('SELECT count(*) FROM checkpoints').pluck().get()).toBe(before);
    lab.close();
  });

  it('a failed save writes nothing', () => {
    const { lab, store } = fresh();
    store.save({ role: 'DA', source: 'sft', snapshot: snap([1]) });
    const count = () => lab.db.prepare('SELECT count(*) FROM checkpoints').pluck().get();
    const bad: [string, () => unknown, RegExp][] = [
      ['missing parent', () => store.save({ role: 'DA', source: 'gym', parent: 'DA9', snapshot: snap([1]) }), /parent checkpoint DA9 does not exist/],
      [
        'parent of the other role',
        () => store.save({ role: 'CA', source: 'gym', parent: 'DA0', snapshot: snap([1]) }),
        /parent DA0 is a DA checkpoint, not a CA one/,
      ],
      ['name of the other role', () => store.save({ role: 'CA', name: 'DA3', source: 'gym', snapshot: snap([1]) }), /says DA, but the checkpoint is a CA one/],
      ['reserved name', () => store.save({ role: 'DA', name: 'latest', source: 'gym', snapshot: snap([1]) }), /reserved/],
      ['odd name', () => store.save({ role: 'DA', name: 'my model', source: 'gym', snapshot: snap([1]) }), /not valid/],
      ['torn weights', () => store.save({ role: 'DA', source: 'gym', snapshot: { ...snap([1]), weights: new Uint8Array(5) } }), /float32 bytes/],
      ['no weights', () => store.save({ role: 'DA', source: 'gym', snapshot: { ...snap([1]), weights: new Uint8Array(0) } }), /non-empty/],
      ['bad model json', () => store.save({ role: 'DA', source: 'gym', snapshot: { ...snap([1]), modelJson: '{' } }), /modelJson is not valid JSON/],
      ['NaN metric', () => store.save({ role: 'DA', source: 'gym', snapshot: snap([1]), metrics: { 'gym/kl': NaN } }), /metric gym\/kl is NaN/],
      ['unknown run', () => store.save({ role: 'DA', source: 'gym', runId: 'R9', snapshot: snap([1]) }), /run R9 does not exist/],
      ['no source', () => store.save({ role: 'DA', source: ' ', snapshot: snap([1]) }), /source must name/],
      [
        'bad lineage entry',
        () => store.save({ role: 'DA', source: 'gym', snapshot: snap([1]), trainingData: [{ kind: 'match', id: '' }] }),
        /training data entry 0/,
      ],
      [
        'negative generation',
        () => store.save({ role: 'DA', source: 'gym', generation: -1, snapshot: snap([1]) }),
        /generation must be a non-negative integer/,
      ],
      ['bad role', () => store.save({ role: 'XX' as 'DA', source: 'gym', snapshot: snap([1]) }), /role must be 'DA' or 'CA'/],
    ];
    for (const [what, run, message] of bad) {
      expect(run, what).toThrow(CheckpointError);
      expect(run, what).toThrow(message);
      expect(count(), what).toBe(1);
    }
    expect(store.nextName('DA')).toBe('DA1');
    lab.close();
  });

  it('knows the latest checkpoint of a role and the lineage of each', () => {
    const { lab, store } = fresh();
    expect(store.latest('DA')).toBeNull();
    const t = (m: number) => `2026-01-01T00:0${m}:00.000Z`;
    store.save({ role: 'DA', source: 'sft', snapshot: snap([1]), createdAt: t(0) });
    store.save({ role: 'CA', source: 'gym', snapshot: snap([1]), createdAt: t(1), trainingData: [{ kind: 'match', id: 'R1-M1' }] });
    store.save({ role: 'DA', source: 'gym', parent: 'DA0', snapshot: snap([2]), createdAt: t(2), trainingData: [{ kind: 'match', id: 'R1-M2' }] });
    store.save({ role: 'DA', source: 'gym', parent: 'DA1', snapshot: snap([3]), createdAt: t(3) });
    store.save({ role: 'DA', source: 'gym', parent: 'DA1', snapshot: snap([4]), createdAt: t(3) }); // same ms: save order decides

    expect(store.latest('DA')!.name).toBe('DA3');
    expect(store.latest('CA')!.name).toBe('CA0');
    expect(store.lineage('DA3').map((c) => [c.name, c.generation, c.source])).toEqual([
      ['DA3', 2, 'gym'],
      ['DA1', 1, 'gym'],
      ['DA0', 0, 'sft'],
    ]);
    expect(store.lineage('DA1')[0]!.trainingData).toEqual([{ kind: 'match', id: 'R1-M2' }]);
    expect(store.list('DA').map((c) => c.name)).toEqual(['DA0', 'DA1', 'DA2', 'DA3']);
    expect(store.list().map((c) => c.name)).toEqual(['DA0', 'CA0', 'DA1', 'DA2', 'DA3']);
    expect(() => store.lineage('DA9')).toThrow(/checkpoint DA9 does not exist/);

    expect(store.resolve('latest', 'DA').name).toBe('DA3');
    expect(store.resolve('DA1', 'DA').name).toBe('DA1');
    expect(() => store.resolve('DA1', 'CA')).toThrow(/DA1 is a DA checkpoint, not a CA one/);
    expect(() => store.resolve('DA5', 'DA')).toThrow(/no DA checkpoint DA5: DA checkpoints in this lab: DA0, DA1, DA2, DA3/);
    expect(() => fresh().store.resolve('latest', 'CA')).toThrow(/this lab holds no CA checkpoints yet/);
    lab.close();
  });

  it('a snapshot that does not fit the model fails with the checkpoint named', async () => {
    const { lab, store } = fresh();
    store.save({ role: 'DA', source: 'sft', snapshot: snap([1, 2, 3, 4], [2, 2]) });
    await expect(store.restoreInto('DA0', new ToyModel([4, 1]))).rejects.toThrow(
      /checkpoint DA0 \(DA, sft, generation 0\) does not fit this model: shape \[2,2\] does not match this model's \[4,1\]/,
    );
    await expect(store.restoreInto('DA4', new ToyModel([4, 1]))).rejects.toThrow(/checkpoint DA4 does not exist/);
    lab.close();
  });

  it('a builtin DA checkpoint restores into a DA of its shape, and one of another shape is refused by name', async () => {
    const { lab, store } = fresh();
    const intents = bankingDomain().taxonomy.map((t) => ({ intent: t.intent, tool: t.tool }));
    const net = (hidden: number) => ({ embedDim: 8, hidden, hashing: { buckets: 512, bagLength: 16, wordNgrams: [1], charNgrams: [3] } });
    const trained = await DaModel.create({ intents, seed: 1, net: net(16) });
    store.save({ role: 'DA', source: 'sft', snapshot: await trained.snapshot() });
    const same = await DaModel.create({ intents, seed: 2, net: net(16) });
    await store.restoreInto('DA0', same);
    expect(Buffer.from((await same.snapshot()).weights).equals(Buffer.from((await trained.snapshot()).weights))).toBe(true);
    const other = await DaModel.create({ intents, seed: 2, net: net(24) });
    await expect(store.restoreInto('DA0', other)).rejects.toThrow(
      /checkpoint DA0 \(DA, sft, generation 0\) does not fit this model: .*parameter 'w1' is \[\d+, 16\] in the snapshot but \[\d+, 24\] here/,
    );
    for (const m of [trained, same, other]) await m.dispose();
    lab.close();
  });

  it('keeps checkpoints across close and reopen, and deleting a parent keeps its children', () => {
    const path = join(root, 'reopen.sqlite');
    const a = openSqliteStore(path);
    checkpointStore(a.db).save({ role: 'DA', source: 'sft', snapshot: snap([1]) });
    checkpointStore(a.db).save({ role: 'DA', source: 'gym', parent: 'DA0', snapshot: snap([2]) });
    a.close();
    const b = openSqliteStore(path);
    const store = checkpointStore(b.db);
    expect(store.lineage('DA1').map((c) => c.name)).toEqual(['DA1', 'DA0']);
    b.db.prepare("DELETE FROM checkpoints WHERE name = 'DA0'").run();
    expect(store.lineage('DA1').map((c) => c.name)).toEqual(['DA1']);
    expect(store.nextName('DA')).toBe('DA2');
    b.close();
  });
});

describe('migration 21', () => {
  it('adds checkpoints.llm_json: builtin checkpoints saved before it read as no LLM', () => {
    const db = new Database(':memory:');
    expect(applyMigrations(db, 20)).toBe(20);
    db.prepare(
      `INSERT INTO checkpoints (id, name, role, created_at, generation, source, model_json, weights) VALUES ('DA0', 'DA0', 'DA', 'now', 0, 'sft', '{}', x'0000803f')`,
    ).run();
    const cols = () => (db.prepare('PRAGMA table_info(checkpoints)').all() as { name: string }[]).map((c) => c.name);
    expect(cols()).not.toContain('llm_json');
    expect(applyMigrations(db, 21)).toBe(21);
    expect(cols()).toContain('llm_json');
    expect(applyMigrations(db, 21)).toBe(21);
    applyMigrations(db);
    expect(checkpointStore(db).meta('DA0')).toMatchObject({ name: 'DA0', llm: null, weightBytes: 4 });
    db.close();
  });
});

describe('migration 23', () => {
  it('stores the same weights and optimiser state once, reads checkpoints saved before it, and releases bytes no checkpoint holds', () => {
    const db = new Database(':memory:');
    db.pragma('foreign_keys = ON');
    applyMigrations(db, 22);
    // A checkpoint saved before migration 23: its bytes inline.
    const legacy = snap([7, 8]);
    db.prepare(
      `INSERT INTO checkpoints (id, name, role, created_at, generation, source, model_json, weights, optimiser) VALUES ('DA0', 'DA0', 'DA', '2026-01-01T00:00:00.000Z', 0, 'sft', ?, ?, ?)`,
    ).run(legacy.modelJson, Buffer.from(legacy.weights), Buffer.from(legacy.optimiser!));
    applyMigrations(db);
    const store = checkpointStore(db);
    const blobs = () => db.prepare('SELECT count(*) FROM checkpoint_blobs').pluck().get();
    expect(store.get('DA0')!.snapshot).toEqual(legacy);
    expect(store.meta('DA0')).toMatchObject({ weightBytes: 8, optimiserBytes: 20 });
    // Two copies (a study's arms copy each seed's DA0) and one other: three checkpoints, four blobs.
    const copy = snap([1, 2, 3]);
    store.save({ role: 'DA', source: 'sft', parent: 'DA0', snapshot: copy });
    store.save({ role: 'DA', source: 'bootstrap-copy', parent: 'DA0', snapshot: copy });
    store.save({ role: 'DA', source: 'gym', parent: 'DA1', snapshot: snap([1, 2, 4], [3], false) });
    expect(blobs()).toBe(3);
    expect(store.get('DA1')!.snapshot).toEqual(copy);
    expect(store.get('DA2')!.snapshot).toEqual(copy);
    expect(store.get('DA3')!.snapshot.optimiser).toBeNull();
    expect(store.list('DA').map((c) => [c.name, c.weightBytes, c.optimiserBytes])).toEqual([
      ['DA0', 8, 20],
      ['DA1', 12, 28],
      ['DA2', 12, 28],
      ['DA3', 12, null],
    ]);
    // Sparring never deletes checkpoints; a person who does loses only bytes no other one holds.
    db.prepare("DELETE FROM checkpoints WHERE name = 'DA1'").run();
    expect(blobs()).toBe(3);
    expect(store.get('DA2')!.snapshot).toEqual(copy);
    db.prepare("DELETE FROM checkpoints WHERE name IN ('DA2', 'DA3')").run();
    expect(blobs()).toBe(0);
    expect(store.get('DA0')!.snapshot).toEqual(legacy);
    db.close();
  });
});

describe('compactCheckpoints', () => {
  it('moves the inline bytes of checkpoints saved before migration 23 into content storage: copies share them, the file shrinks, every snapshot reads the same', () => {
    const path = join(root, 'compact.sqlite');
    const db = new Database(path);
    applyMigrations(db, 22);
    const big = (v: number) => snap(Array.from({ length: 50_000 }, (_, i) => v + i)); // 200 KB of weights, twice that of optimiser state
    const legacy = [big(1), big(1), big(1), big(2)]; // three copies (a study's arms) and another
    const insert = db.prepare(
      `INSERT INTO checkpoints (id, name, role, created_at, generation, source, model_json, weights, optimiser) VALUES (?, ?, 'DA', ?, 0, 'sft', ?, ?, ?)`,
    );
    legacy.forEach((s, i) => insert.run(`DA${i}`, `DA${i}`, `2026-01-01T00:00:0${i}.000Z`, s.modelJson, Buffer.from(s.weights), Buffer.from(s.optimiser!)));
    applyMigrations(db);
    const store = checkpointStore(db);
    store.save({ role: 'DA', source: 'gym', parent: 'DA3', snapshot: snap([5, 6]) }); // already in content storage
    const progress: number[] = [];
    const r = compactCheckpoints(db, { vacuum: true, onProgress: (d) => progress.push(d) });
    expect(r.checkpoints).toBe(4);
    expect(progress).toEqual([1, 2, 3, 4]);
    expect(r.inlineBytes).toBe(4 * (200_000 + 400_004));
    expect(db.prepare('SELECT count(*) FROM checkpoint_blobs').pluck().get()).toBe(6); // 2 contents × 2 + DA4's 2
    expect(r.fileBytes.after!).toBeLessThan(r.fileBytes.before! * 0.6);
    legacy.forEach((s, i) => expect(store.get(`DA${i}`)!.snapshot).toEqual(s));
    expect(store.meta('DA0')).toMatchObject({ weightBytes: 200_000, optimiserBytes: 400_004 });
    expect(compactCheckpoints(db).checkpoints).toBe(0); // nothing left inline
    db.close();
  });
});
