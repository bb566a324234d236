/**
 * Runs built graphs: `ForwardRunner` for inference and `TrainStepRunner`, which owns the weights
 * and AdamW state between steps. Each parameter stays here in a WebAssembly memory of its own
 * (models/resident-table.ts): a step feeds the graph the weights (a row-fed table's batch rows)
 * and applies AdamW with the gradients it returns. A graph built with `optimiser: 'graph'`
 * updates its parameters itself; that state crosses each step as onnxruntime tensors, the
 * outputs `next.X` of one step fed back as the inputs `X` of the next.
 */
import onnxPkg from 'onnx-proto';
import { Tensor as OrtTensor } from 'onnxruntime-node';
import type { InferenceSession } from 'onnxruntime-node';
import type { AdamWHyper, BuiltGraph, HeldParam, RowFedParam, TrainStepGraph } from './graph';
import { DEFAULT_ADAMW, HYPER_INPUTS, TABLE_SCALARS_OUTPUT, adamNames, gradName, nextName } from './graph';
import { ResidentTable } from './resident-table';
import { createSession } from './session';
import type { ExecutionProvider, SessionSettings } from './session';

const { onnx } = onnxPkg;

/** A batch input: row-major data and its concrete dimensions. */
export interface Feed {
  data: Float32Array | BigInt64Array | Uint8Array;
  dims: readonly number[];
}

/** A returned tensor: row-major data and its dimensions. */
export interface Fetched {
  data: Float32Array | BigInt64Array | Uint8Array;
  dims: readonly number[];
}

function isOrt(f: Feed | OrtTensor): f is OrtTensor {
  return f instanceof OrtTensor;
}

function toOrt(name: string, f: Feed | OrtTensor): OrtTensor {
  if (isOrt(f)) return f;
  const n = f.dims.reduce((a, d) => a * d, 1);
  if (f.data.length !== n) throw new Error(`input '${name}': ${f.data.length} elements do not fill dims [${f.dims.join(', ')}]`);
  if (f.data instanceof Float32Array) return new OrtTensor('float32', f.data, f.dims);
  if (f.data instanceof BigInt64Array) return new OrtTensor('int64', f.data, f.dims);
  return new OrtTensor('bool', f.data, f.dims);
}

function fromOrt(t: InferenceSession.OnnxValueMapType[string]): Fetched {
  const tensor = t;
  return { data: tensor.data as Fetched['data'], dims: tensor.dims };
}

function scalarOf(t: InferenceSession.OnnxValueMapType[string] | undefined, name: string): number {
  const v = t?.data[0];
  if (typeof v !== 'number') throw new Error(`train step returned no ${name}`);
  return v;
}

const SCATTER_OPS = new Set(['ScatterND', 'ScatterElements']);

/**
 * Does a serialised graph contain a scatter op with reduction 'add' (the one whose parallel kernel
 * adds repeated indices in thread order)? A scatter with reduction 'none' writes distinct places.
 */
export function usesScatterReduction(bytes: Uint8Array): boolean {
  // op_type strings are stored as plain bytes: most graphs are cleared without decoding.
  const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (![...SCATTER_OPS].some((op) => buf.includes(op))) return false;
  const nodes = onnx.ModelProto.decode(bytes).graph?.node ?? [];
  return nodes.some(
    (n) =>
      SCATTER_OPS.has(n.opType ?? '') && (n.attribute ?? []).some((a) => a.name === 'reduction' && new TextDecoder().decode(a.s ?? new Uint8Array()) === 'add'),
  );
}

/** Runs an inference graph built by `buildForward`. */
export class ForwardRunner {
  private constructor(
    private readonly session: InferenceSession,
    readonly provider: ExecutionProvider,
    readonly graph: BuiltGraph,
  ) {}

  static async create(graph: BuiltGraph, settings: SessionSettings = {}): Promise<ForwardRunner> {
    const { session, provider } = await createSession(graph.bytes, settings, `graph '${graph.name}'`);
    return new ForwardRunner(session, provider, graph);
  }

  /** Feeds every graph input (batch inputs, and weights when they are not baked in). */
  async run(feeds: Record<string, Feed | OrtTensor>): Promise<Record<string, Fetched>> {
    const ort: Record<string, OrtTensor> = {};
    for (const spec of this.graph.inputs) {
      const f = feeds[spec.name];
      if (!f) throw new Error(`graph '${this.graph.name}': missing input '${spec.name}'`);
      ort[spec.name] = toOrt(spec.name, f);
    }
    const res = await this.session.run(ort);
    const out: Record<string, Fetched> = {};
    for (const [k, v] of Object.entries(res)) out[k] = fromOrt(v);
    return out;
  }

  async dispose(): Promise<void> {
    await this.session.release();
  }
}

/** Weights and optimiser state of a trainable model, as stored in a checkpoint. */
export interface TrainState<P extends string = string> {
  weights: Record<P, Float32Array>;
  /** AdamW first moments, one per parameter. */
  m: Record<P, Float32Array>;
  /** AdamW second moments, one per parameter. */
  v: Record<P, Float32Array>;
  /** Optimiser steps taken so far. */
  step: number;
}

export interface StepResult {
  loss: number;
  /** Global gradient L2 norm before clipping. */
  gradNorm: number;
  /** The loss function's extra outputs. */
  outputs: Record<string, Fetched>;
}

/** Runs a train-step graph, keeping weights and AdamW state between steps. */
export class TrainStepRunner<P extends string = string, I extends string = string> {
  /** Weights and moments of the dense parameters, and the step count, as the next step's inputs. */
  private state: Record<string, OrtTensor> = {};
  /** Parameters the runner updates (row-fed tables and the rest), by name. */
  private tables = new Map<string, ResidentTable>();
  private hyperTensors: Record<string, OrtTensor> = {};
  private hyperValues: AdamWHyper;
  private readonly outputNames: readonly string[];

  private constructor(
    private readonly session: InferenceSession,
    readonly provider: ExecutionProvider,
    readonly graph: TrainStepGraph<P, I>,
    hyper: AdamWHyper,
  ) {
    this.hyperValues = hyper;
    this.outputNames = session.outputNames;
    this.setHyper({});
  }

  /**
   * Opens the graph's session and starts from `weights` (copied) with fresh AdamW state, or
   * from a full `TrainState` (e.g. a checkpoint).
   */
  static async create<P extends string, I extends string>(
    graph: TrainStepGraph<P, I>,
    start: Record<P, Float32Array> | TrainState<P>,
    opts: { session?: SessionSettings; hyper?: Partial<AdamWHyper> } = {},
  ): Promise<TrainStepRunner<P, I>> {
    const settings = { ...opts.session };
    // onnxruntime's CPU ScatterND / ScatterElements with reduction 'add' (the gradient of a
    // Gather from a large table with repeated indices) run in parallel and add repeated indices in
    // whatever order the threads reach them (onnxruntime issue #18048): the same step then gives
    // different weights from run to run. Such a graph trains on one thread, so that a resumed run
    // ends where an uninterrupted one does. Graphs without one (the builtin DA and CA: gatherRows,
    // one-hot gradients for small tables) get the same bits on any fixed number of threads.
    if (settings.intraOpNumThreads === undefined && usesScatterReduction(graph.bytes)) settings.intraOpNumThreads = 1;
    const { session, provider } = await createSession(graph.bytes, settings, `graph '${graph.name}'`);
    const runner = new TrainStepRunner(session, provider, graph, { ...DEFAULT_ADAMW, ...opts.hyper });
    // A TrainState holds records of arrays; a plain weights record holds the arrays themselves.
    const isState = !((start as { weights?: unknown }).weights instanceof Float32Array) && 'weights' in start;
    runner.load(isState ? start : { weights: start as Record<P, Float32Array> });
    return runner;
  }

  /** Replaces weights (and, when given, optimiser state; otherwise it is reset). Arrays are copied. */
  load(s: { weights: Record<P, Float32Array>; m?: Record<P, Float32Array>; v?: Record<P, Float32Array>; step?: number }): void {
    const byName = new Map(this.graph.inputs.map((i) => [i.name, i]));
    const held = new Map<string, RowFedParam | HeldParam>([...this.graph.rowFed, ...this.graph.held].map((r) => [r.param, r]));
    const checked = (name: string, data: Float32Array | undefined, what: string): { data: Float32Array; dims: number[] } => {
      const dims = (held.get(name)?.shape ?? byName.get(name)!.shape) as number[];
      const n = dims.reduce((a, d) => a * d, 1);
      if (data && data.length !== n) throw new Error(`${what}: ${data.length} values for shape [${dims.join(', ')}] (${n})`);
      return { data: data ?? new Float32Array(n), dims };
    };
    // Everything is checked before anything is replaced.
    const given = this.graph.params.map((p) => {
      if (!s.weights[p]) throw new Error(`train state: no weights for parameter '${p}'`);
      return [p, checked(p, s.weights[p], `weights of '${p}'`), checked(p, s.m?.[p], `AdamW m of '${p}'`), checked(p, s.v?.[p], `AdamW v of '${p}'`)] as const;
    });
    const next: Record<string, OrtTensor> = {};
    const tables = new Map<string, ResidentTable>();
    for (const [p, w, m, v] of given) {
      const r = held.get(p);
      if (r) {
        // A table of this runner's is reloaded in place (DaModel and CaModel switch runners back and forth).
        const table = this.tables.get(p);
        if (table) table.load({ w: w.data, m: m.data, v: v.data });
        tables.set(p, table ?? new ResidentTable(r, { w: w.data, m: m.data, v: v.data }));
        continue;
      }
      const tensor = (x: { data: Float32Array; dims: number[] }) => new OrtTensor('float32', Float32Array.from(x.data), x.dims);
      [next[p], next[adamNames.m(p)], next[adamNames.v(p)]] = [tensor(w), tensor(m), tensor(v)];
    }
    next[adamNames.step] = new OrtTensor('float32', new Float32Array([s.step ?? 0]), []);
    this.state = next;
    this.tables = tables;
  }

  /** Changes hyperparameters for the following steps (schedules, live knob changes). */
  setHyper(h: Partial<AdamWHyper>): void {
    this.hyperValues = { ...this.hyperValues, ...h };
    for (const [k, name] of Object.entries(HYPER_INPUTS)) {
      const value = this.hyperValues[k as keyof AdamWHyper];
      // Callers pass lr with every step: keep the tensors of unchanged values.
      if ((this.hyperTensors[name]?.data as Float32Array | undefined)?.[0] === Math.fround(value)) continue;
      this.hyperTensors[name] = new OrtTensor('float32', new Float32Array([value]), []);
    }
  }

  get hyper(): Readonly<AdamWHyper> {
    return this.hyperValues;
  }

  /** One AdamW step on `batch`; `hyper` overrides apply from this step on. */
  async step(batch: Record<I, Feed | OrtTensor>, hyper?: Partial<AdamWHyper>): Promise<StepResult> {
    if (hyper) this.setHyper(hyper);
    const feeds: Record<string, OrtTensor> = { ...this.state, ...this.hyperTensors };
    for (const name of this.graph.batchInputs) {
      const f = batch[name] as Feed | OrtTensor | undefined;
      if (!f) throw new Error(`train step '${this.graph.name}': missing batch input '${name}'`);
      feeds[name] = toOrt(name, f);
    }
    // Held weights go in from their memory (a row-fed table's batch rows, gathered) and their
    // gradient comes back into it (a preallocated output); other outputs are onnxruntime's.
    const fetches: Record<string, OrtTensor | null> = {};
    for (const name of this.outputNames) fetches[name] = null;
    for (const [p, table] of this.tables) {
      const r = table.rowFed;
      let dims: readonly number[] = table.spec.shape;
      if (r) {
        dims = [table.ids(batch[r.rows as I], this.graph.name), ...r.shape.slice(1)];
        feeds[p] = new OrtTensor('float32', table.gather(), dims);
      } else {
        table.all();
        feeds[p] = new OrtTensor('float32', table.w, dims);
      }
      fetches[gradName(p)] = new OrtTensor('float32', table.gradient(), dims);
    }
    const res = await this.session.run(feeds, fetches);
    const output = (name: string): OrtTensor => {
      const t = res[name];
      if (!t) throw new Error(`train step '${this.graph.name}': no output '${name}'`);
      return t;
    };
    const next: Record<string, OrtTensor> = {};
    for (const name of Object.keys(this.state)) next[name] = output(nextName(name));
    for (const table of this.tables.values()) {
      const g = output(gradName(table.spec.param)).data as Float32Array;
      // onnxruntime writes into a preallocated output in place; were it ever to return its own buffer, copy it in.
      if (g.buffer !== table.gradient().buffer || g.byteOffset !== table.gradient().byteOffset) table.gradient().set(g);
      table.step(output(TABLE_SCALARS_OUTPUT).data as Float32Array);
    }
    this.state = next;
    const outputs: Record<string, Fetched> = {};
    for (const name of this.graph.extraOutputs) outputs[name] = fromOrt(res[name]!);
    return { loss: scalarOf(res.loss, 'loss'), gradNorm: scalarOf(res.grad_norm, 'grad_norm'), outputs };
  }

  /**
   * Current weights, owned by the runner: valid until the next step, which replaces dense
   * parameters' arrays and updates row-fed tables in place (use `snapshot` to keep them).
   */
  get weights(): Record<P, Float32Array> {
    const out = {} as Record<P, Float32Array>;
    for (const p of this.graph.params) out[p] = this.tables.get(p)?.w ?? (this.state[p]!.data as Float32Array);
    return out;
  }

  /** Weights and optimiser state, e.g. for a checkpoint; later steps do not modify them. */
  snapshot(): TrainState<P> {
    const pick = (f: (p: string) => string, ofTable: (t: ResidentTable) => Float32Array): Record<P, Float32Array> => {
      const out = {} as Record<P, Float32Array>;
      for (const p of this.graph.params) {
        const t = this.tables.get(p);
        out[p] = t ? ofTable(t).slice() : (this.state[f(p)]!.data as Float32Array);
      }
      return out;
    };
    return {
      weights: pick(
        (p) => p,
        (t) => t.w,
      ),
      m: pick(adamNames.m, (t) => t.m),
      v: pick(adamNames.v, (t) => t.v),
      step: (this.state[adamNames.step]!.data as Float32Array)[0]!,
    };
  }

  async dispose(): Promise<void> {
    await this.session.release();
  }
}
