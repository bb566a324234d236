/**
 * Standalone inference models: a network's forward graph with its weights baked in as
 * initialisers, serialised as one `.onnx` file that plain onnxruntime (any language, no
 * Sparring) runs. The model's JSON (architecture and feature encoding — what a consumer needs to
 * build the inputs) rides along as ONNX metadata.
 */
import onnxPkg from 'onnx-proto';
import { DA_CHOICES } from '../core/agents/da-actions';
import type { ModelSnapshot } from '../core/rl/ports';
import { CA_STATE_FEATURES, buildCaForward, caParams } from './ca-net';
import { CaModel } from './ca-model';
import { DA_STATE_FEATURES, buildDaForward, daParams } from './da-net';
import { DaModel } from './da-model';
import { buildForward } from './graph';
import type { BuiltGraph, ModelFn, ModelSpec, ParamSpec, Tensor } from './graph';

const { onnx } = onnxPkg;

export interface ExportInfo {
  /** Written to the model's doc string, e.g. "Sparring DA checkpoint DA2 (gym, generation 2)". */
  description?: string;
  /** Extra ONNX metadata_props (e.g. `sparring.model_json`, `sparring.checkpoint`). */
  metadata?: Record<string, string>;
}

/**
 * The forward graph of `spec` with `weights` baked in, as ONNX bytes. The graph's inputs are
 * the spec's batch inputs only; its outputs are what `forward` returns.
 */
export function exportForwardOnnx<P extends string, I extends string>(
  spec: ModelSpec<P, I>,
  forward: ModelFn<P, I, Record<string, Tensor>>,
  weights: Record<P, Float32Array>,
  info: ExportInfo = {},
): Uint8Array {
  checkWeights(spec.name, spec.params, weights);
  return withInfo(buildForward(spec, forward, { weights }).bytes, spec.name, info);
}

/**
 * The same for a forward graph already built with its parameters as inputs (as the builtin DA and
 * CA build theirs, so that train steps are visible without a rebuild): each parameter input
 * becomes an initialiser holding its weights, and the graph keeps only its batch inputs.
 */
export function bakeForwardOnnx<P extends string>(
  graph: BuiltGraph,
  params: Record<P, ParamSpec>,
  weights: Record<P, Float32Array>,
  info: ExportInfo = {},
): Uint8Array {
  checkWeights(graph.name, params, weights);
  const model = onnx.ModelProto.decode(graph.bytes);
  const g = model.graph!;
  const names = new Set(Object.keys(params));
  const present = new Set((g.input ?? []).map((i) => i.name ?? ''));
  const absent = [...names].filter((n) => !present.has(n));
  if (absent.length)
    throw new Error(`export of '${graph.name}': the graph has no input for parameter${absent.length > 1 ? 's' : ''} ${absent.map((n) => `'${n}'`).join(', ')}`);
  g.input = (g.input ?? []).filter((i) => !names.has(i.name ?? ''));
  g.initializer = [
    ...(g.initializer ?? []),
    ...Object.entries<ParamSpec>(params).map(([name, p]) => {
      const w = weights[name as P];
      return onnx.TensorProto.create({
        name,
        dims: [...p.shape],
        dataType: onnx.TensorProto.DataType.FLOAT,
        rawData: new Uint8Array(w.buffer, w.byteOffset, w.byteLength),
      });
    }),
  ];
  return withInfo(onnx.ModelProto.encode(model).finish(), graph.name, info);
}

function checkWeights<P extends string>(model: string, params: Record<P, ParamSpec>, weights: Record<P, Float32Array>): void {
  for (const [name, p] of Object.entries<ParamSpec>(params)) {
    const w = weights[name as P] as Float32Array | undefined;
    const n = p.shape.reduce((a, d) => a * d, 1);
    if (!w) throw new Error(`export of '${model}': no weights for parameter '${name}'`);
    if (w.length !== n) throw new Error(`export of '${model}': parameter '${name}' has ${w.length} values, its shape [${p.shape.join(', ')}] needs ${n}`);
    const bad = w.findIndex((x) => !Number.isFinite(x));
    if (bad >= 0) throw new Error(`export of '${model}': parameter '${name}' holds ${w[bad]} at ${bad}; refusing to export a broken model`);
  }
}

function withInfo(bytes: Uint8Array, name: string, info: ExportInfo): Uint8Array {
  const model = onnx.ModelProto.decode(bytes);
  model.docString = info.description ?? `Sparring model '${name}' (inference only)`;
  model.metadataProps = Object.entries(info.metadata ?? {}).map(([key, value]) => onnx.StringStringEntryProto.create({ key, value }));
  return onnx.ModelProto.encode(model).finish();
}

/** What a checkpoint export records about where the weights came from. */
export interface CheckpointLabel {
  name: string;
  role: 'DA' | 'CA';
  source: string;
  generation: number;
}

/**
 * A builtin DA or CA snapshot as a standalone `.onnx`. The snapshot is loaded into its model
 * first, so one that does not fit fails here with the model's own message. Inputs are the
 * network's batch inputs (see models/da-net.ts or models/ca-net.ts for their encoding);
 * outputs are log-probabilities. The metadata carries the model JSON, the action names and the
 * state-feature order a consumer needs to build inputs and read outputs.
 */
export async function exportCheckpointOnnx(snapshot: ModelSnapshot, label: CheckpointLabel): Promise<Uint8Array> {
  const what = `checkpoint ${label.name}`;
  const common = {
    'sparring.checkpoint': label.name,
    'sparring.role': label.role,
    'sparring.source': label.source,
    'sparring.generation': String(label.generation),
    'sparring.model_json': snapshot.modelJson,
  };
  const description = `Sparring ${label.role} checkpoint ${label.name} (${label.source}, generation ${label.generation}), inference only`;
  const load = async <M extends { dispose(): Promise<void> }>(open: () => Promise<M>): Promise<M> => {
    try {
      return await open();
    } catch (e) {
      throw new Error(`${what} cannot be exported: ${(e as Error).message}`, { cause: e });
    }
  };
  if (label.role === 'DA') {
    const model = await load(() => DaModel.fromSnapshot(snapshot));
    try {
      const params = daParams(model.shape);
      return bakeForwardOnnx(buildDaForward(model.shape), params, splitWeights(params, snapshot.weights, what), {
        description,
        metadata: { ...common, 'sparring.actions': JSON.stringify(DA_CHOICES), 'sparring.state_features': JSON.stringify(DA_STATE_FEATURES) },
      });
    } finally {
      await model.dispose();
    }
  }
  const model = await load(() => CaModel.fromSnapshot(snapshot));
  try {
    const params = caParams(model.shape);
    return bakeForwardOnnx(buildCaForward(model.shape), params, splitWeights(params, snapshot.weights, what), {
      description,
      metadata: { ...common, 'sparring.state_features': JSON.stringify(CA_STATE_FEATURES) },
    });
  } finally {
    await model.dispose();
  }
}

/**
 * Splits a snapshot's weights (float32, concatenated in the order of `params`) into one array
 * per parameter, checking the total size.
 */
export function splitWeights<P extends string>(params: Record<P, ParamSpec>, bytes: Uint8Array, what = 'snapshot'): Record<P, Float32Array> {
  if (bytes.byteLength % 4 !== 0) throw new Error(`${what}: ${bytes.byteLength} weight bytes are not whole float32 values`);
  // Copy when unaligned: a Float32Array view needs a 4-byte aligned offset.
  const all = bytes.byteOffset % 4 === 0 ? new Float32Array(bytes.buffer, bytes.byteOffset, bytes.byteLength / 4) : new Float32Array(bytes.slice().buffer);
  const out = {} as Record<P, Float32Array>;
  let at = 0;
  const entries = Object.entries<ParamSpec>(params);
  const need = entries.reduce((s, [, p]) => s + p.shape.reduce((a, d) => a * d, 1), 0);
  if (need !== all.length) throw new Error(`${what}: ${all.length} weights stored, the model's parameters need ${need}`);
  for (const [name, p] of entries) {
    const n = p.shape.reduce((a, d) => a * d, 1);
    out[name as P] = all.subarray(at, at + n);
    at += n;
  }
  return out;
}

/** Reads back the metadata and doc string of exported bytes (for checks and `sparring` commands). */
export function readExportInfo(bytes: Uint8Array): { description: string; metadata: Record<string, string>; inputs: string[]; outputs: string[] } {
  const m = onnx.ModelProto.decode(bytes);
  return {
    description: m.docString ?? '',
    metadata: Object.fromEntries((m.metadataProps ?? []).map((e) => [e.key ?? '', e.value ?? ''])),
    inputs: (m.graph?.input ?? []).map((i) => i.name ?? ''),
    outputs: (m.graph?.output ?? []).map((o) => o.name ?? ''),
  };
}

/**
 * The inverse of `exportCheckpointOnnx`: the role and the snapshot (weights, no optimiser state)
 * of an exported `.onnx`, as an external trainer hands back a builtin policy it trained
 * (`sparring checkpoints add`). The weights are the initialisers named in the model JSON's
 * parameter list, in its order; the snapshot is loaded into its model before it is returned, so a
 * file that does not fit fails here. `what` names the file in errors.
 */
export async function readCheckpointOnnx(
  bytes: Uint8Array,
  what: string,
): Promise<{ role: 'DA' | 'CA'; snapshot: ModelSnapshot; metadata: Record<string, string> }> {
  let m: ReturnType<typeof onnx.ModelProto.decode>;
  try {
    m = onnx.ModelProto.decode(bytes);
  } catch (e) {
    throw new Error(`${what} is not an ONNX model (${(e as Error).message})`, { cause: e });
  }
  const metadata = Object.fromEntries((m.metadataProps ?? []).map((e) => [e.key ?? '', e.value ?? '']));
  const role = metadata['sparring.role'];
  const modelJson = metadata['sparring.model_json'];
  if ((role !== 'DA' && role !== 'CA') || !modelJson) {
    throw new Error(`${what} carries no sparring.role / sparring.model_json metadata: not a builtin policy written by \`sparring export-model\``);
  }
  let params: { name: string; shape: number[] }[];
  try {
    params = (JSON.parse(modelJson) as { params: { name: string; shape: number[] }[] }).params;
    if (!Array.isArray(params)) throw new Error('no params list');
  } catch (e) {
    throw new Error(`${what}: its sparring.model_json is unreadable (${(e as Error).message})`, { cause: e });
  }
  const inits = new Map((m.graph?.initializer ?? []).map((t) => [t.name ?? '', t]));
  const parts: Float32Array[] = [];
  for (const p of params) {
    const t = inits.get(p.name);
    if (!t) throw new Error(`${what}: no initialiser for parameter '${p.name}' of its model JSON`);
    const n = p.shape.reduce((a, d) => a * d, 1);
    // A copy into an owned buffer: rawData may be a view into a larger (unaligned) one.
    const raw = t.rawData && t.rawData.byteLength > 0 ? new Float32Array(new Uint8Array(t.rawData).buffer) : Float32Array.from(t.floatData ?? []);
    if (raw.length !== n) throw new Error(`${what}: parameter '${p.name}' holds ${raw.length} values, its shape [${p.shape.join(', ')}] needs ${n}`);
    parts.push(raw);
  }
  const total = parts.reduce((s, p) => s + p.length, 0);
  const weights = new Float32Array(total);
  let at = 0;
  for (const p of parts) {
    weights.set(p, at);
    at += p.length;
  }
  const snapshot: ModelSnapshot = { modelJson, weights: new Uint8Array(weights.buffer), optimiser: null };
  try {
    const model = role === 'DA' ? await DaModel.fromSnapshot(snapshot) : await CaModel.fromSnapshot(snapshot);
    await model.dispose();
  } catch (e) {
    throw new Error(`${what} does not load as a ${role} policy: ${(e as Error).message}`, { cause: e });
  }
  return { role, snapshot, metadata };
}
