/**
 * The one place that creates onnxruntime InferenceSessions. It chooses the execution provider
 * (CPU unless the user asks for a GPU one), falls back to the CPU with a one-line warning when
 * that provider is missing, sizes the thread pool, and turns onnxruntime's terse load errors
 * into messages that name the model and the likely cause.
 */
import { readFile } from 'node:fs/promises';
import { availableParallelism } from 'node:os';
import { InferenceSession, listSupportedBackends } from 'onnxruntime-node';
import { EXECUTION_PROVIDERS } from '../core/contract/device';
import type { ExecutionProvider } from '../core/contract/device';

process.env.ORT_DISABLE_TELEMETRY ??= '1';

export { EXECUTION_PROVIDERS };
export type { ExecutionProvider };

export interface SessionSettings {
  /** Where graphs run (default 'cpu'). Unknown or unavailable providers fall back to 'cpu'. */
  provider?: ExecutionProvider | (string & {});
  /** Threads inside one op (default: number of cores, capped at 4; more rarely helps small graphs). */
  intraOpNumThreads?: number;
  /** Receives one line per fallback (default console.warn). */
  warn?: (line: string) => void;
  /** onnxruntime graph optimisations (default 'all'). */
  graphOptimizationLevel?: 'disabled' | 'basic' | 'extended' | 'all';
  /**
   * Whether idle intra-op threads spin instead of sleeping between ops (default false). Spinning
   * saves a wake-up per op on an idle machine, but on a busy one (the app's own work, other
   * programs) a second thread then costs more than it brings: measured on 2 busy cores, a DA train step
   * on 2 threads ran 22–38% slower than on 1 with spinning, and 1–27% faster without.
   */
  spinWait?: boolean;
  /** onnxruntime's own log level: 0 verbose … 3 error (default) … 4 fatal. */
  logSeverityLevel?: 0 | 1 | 2 | 3 | 4;
}

/** A loaded model with the provider it actually runs on. */
export interface ModelSession {
  session: InferenceSession;
  /** The provider in use; 'cpu' after a fallback. */
  provider: ExecutionProvider;
  /** Where the model came from, for messages: a file path or a caller-given label. */
  source: string;
}

/** Default intra-op threads: all cores, at most 4. */
export function defaultThreads(): number {
  return Math.max(1, Math.min(4, availableParallelism()));
}

/** Providers known to fail in this process, with the reason, so a fallback is tried only once. */
const unavailable = new Map<string, string>();

/** Records that `provider` failed here (models/device.ts's probe), so later sessions skip it with `reason`. */
export function markUnavailable(provider: ExecutionProvider, reason: string): void {
  unavailable.set(provider, reason);
}

/** The informative part of an onnxruntime error: its first line without source paths and asserts. */
export function firstLine(e: unknown): string {
  const msg = e instanceof Error ? e.message : String(e);
  let line = (msg.split('\n').find((l) => l.trim() !== '') ?? msg).trim();
  line = line.replace(/^\/\S+:\d+ /, ''); // "/onnxruntime_src/…/file.cc:136 "
  const assert = line.indexOf(' was false. ');
  if (assert >= 0) line = line.slice(assert + ' was false. '.length);
  return line.length > 200 ? `${line.slice(0, 197)}...` : line;
}

/** What the user can do about a provider that failed to start. */
export const PROVIDER_HINTS: Partial<Record<ExecutionProvider, string>> = {
  cuda: 'install the CUDA build with `npm run fetch-cuda` (Linux x64, CUDA 12 driver)',
  webgpu: 'needs a Vulkan (Linux; Mesa ≥ 24 for its drivers and llvmpipe), D3D12 (Windows) or Metal (macOS) driver; `sparring doctor` says what it finds',
};

/** Why `provider` cannot be used here, or undefined when it is worth trying. */
export function unavailableReason(provider: string): string | undefined {
  if (!(EXECUTION_PROVIDERS as readonly string[]).includes(provider)) {
    return `unknown provider (known: ${EXECUTION_PROVIDERS.join(', ')})`;
  }
  const known = unavailable.get(provider);
  if (known) return known;
  if (!listSupportedBackends().some((b) => b.name === provider)) {
    return `not included in onnxruntime-node for ${process.platform}/${process.arch}`;
  }
  return undefined;
}

/** Explains a failed model load: garbage bytes, a truncated file and a graph ORT rejects read differently. */
function loadError(e: unknown, source: string, bytes: number): Error {
  const reason = firstLine(e);
  const hint = /protobuf parsing failed|ParseFromArray|Protobuf parsing/i.test(reason)
    ? 'the bytes are not an ONNX model (corrupt, truncated, or another file format)'
    : 'onnxruntime rejected the graph';
  return new Error(`cannot load ONNX model from ${source} (${bytes} bytes): ${hint}: ${reason}`, { cause: e });
}

/**
 * Loads a model from bytes or a file path. A provider that is unknown, not built into this
 * onnxruntime-node, or that fails to initialise (no driver, no adapter) is replaced by the CPU,
 * and `warn` gets one line saying so. Load failures of the model itself throw with its source.
 */
export async function createSession(model: Uint8Array | string, settings: SessionSettings = {}, label?: string): Promise<ModelSession> {
  const source = label ?? (typeof model === 'string' ? model : 'an in-memory model');
  let bytes: Uint8Array;
  if (typeof model === 'string') {
    try {
      bytes = await readFile(model);
    } catch (e) {
      throw new Error(`cannot read ONNX model file ${model}: ${firstLine(e)}`, { cause: e });
    }
  } else {
    bytes = model;
  }
  if (bytes.byteLength === 0) throw new Error(`cannot load ONNX model from ${source}: it is empty (0 bytes)`);

  const threads = settings.intraOpNumThreads ?? defaultThreads();
  if (!Number.isInteger(threads) || threads < 1) {
    throw new RangeError(`intraOpNumThreads must be a positive integer, got ${threads}`);
  }
  const warn = settings.warn ?? ((line: string) => console.warn(line));
  const options = (provider: ExecutionProvider): InferenceSession.SessionOptions => ({
    executionProviders: [provider],
    intraOpNumThreads: threads,
    interOpNumThreads: 1,
    executionMode: 'sequential',
    graphOptimizationLevel: settings.graphOptimizationLevel ?? 'all',
    logSeverityLevel: settings.logSeverityLevel ?? 3,
    extra: { session: { intra_op: { allow_spinning: settings.spinWait ? '1' : '0' } } },
  });
  const load = (provider: ExecutionProvider): Promise<InferenceSession> => InferenceSession.create(bytes, options(provider));

  const wanted = settings.provider ?? 'cpu';
  if (wanted !== 'cpu') {
    let reason = unavailableReason(wanted);
    if (reason === undefined) {
      try {
        return { session: await load(wanted as ExecutionProvider), provider: wanted as ExecutionProvider, source };
      } catch (e) {
        // Tell a missing provider from a bad model: if the CPU loads it, the provider was at fault.
        try {
          const session = await load('cpu');
          const hint = PROVIDER_HINTS[wanted as ExecutionProvider];
          reason = hint ? `${firstLine(e)}; ${hint}` : firstLine(e);
          unavailable.set(wanted, reason);
          warn(`execution provider '${wanted}' is unavailable (${reason}); running on cpu`);
          return { session, provider: 'cpu', source };
        } catch (cpuError) {
          throw loadError(cpuError, source, bytes.byteLength);
        }
      }
    }
    warn(`execution provider '${wanted}' is unavailable (${reason}); running on cpu`);
  }
  try {
    return { session: await load('cpu'), provider: 'cpu', source };
  } catch (e) {
    throw loadError(e, source, bytes.byteLength);
  }
}
