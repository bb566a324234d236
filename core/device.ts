/**
 * Where the policy graphs run: onnxruntime execution providers (models/session.ts loads them),
 * as the CLI's `--provider`, a run config's `device` block and the app's device picker name them.
 */

/**
 * Execution providers Sparring knows. onnxruntime-node bundles 'cpu' everywhere, 'webgpu'
 * (Windows, Linux x64 with a Vulkan driver, macOS), 'dml' (Windows) and 'coreml' (macOS);
 * 'cuda' needs the opt-in download (`npm run fetch-cuda`, Linux x64).
 */
export const EXECUTION_PROVIDERS = ['cpu', 'cuda', 'dml', 'coreml', 'webgpu'] as const;
export type ExecutionProvider = (typeof EXECUTION_PROVIDERS)[number];

/** What a user may ask for: a provider, or `auto` (a GPU provider when one is present, else the CPU). */
export const PROVIDER_CHOICES = ['cpu', 'webgpu', 'dml', 'coreml', 'cuda', 'auto'] as const;
export type ProviderChoice = (typeof PROVIDER_CHOICES)[number];

/**
 * The device a run, checkpoint or bench figure actually used: what was asked for, the provider
 * after any fallback, and why (in words, for the dashboard, the report and stderr).
 */
export interface DeviceRecord {
  requested: ProviderChoice;
  provider: ExecutionProvider;
  reason: string;
  /** Intra-op threads per session; null: onnxruntime's default as Sparring sizes it. */
  threads: number | null;
  /** Where arena matches and evaluations (small, micro-batched forwards) ran: the provider, or the CPU. */
  play: ExecutionProvider;
  /**
   * The processor it ran on. onnxruntime's CPU kernels follow the instruction set, so the float
   * sums of a forward, and the actions sampled from them, can differ between processors: a run's
   * numbers depend on its seed and config on one kind of machine. Absent in records made before it.
   */
  host?: HostCpu;
}

/** A processor as a run records it. */
export interface HostCpu {
  /** e.g. "AMD EPYC 7B13". */
  model: string;
  /** e.g. "linux/x64". */
  platform: string;
  /** The widest vector extension onnxruntime's CPU kernels can pick: "AVX-512", "AVX2", "AVX", "SSE", "NEON", or "unknown". */
  isa: string;
}

/** One provider as `sparring doctor` (and the bench header) reports it. */
export interface ProviderProbe {
  provider: ExecutionProvider;
  /** A small graph ran on it in this process. */
  available: boolean;
  /** What was found (an adapter's name) or why it is unavailable. */
  detail: string;
  /** A GPU emulated on the CPU (Mesa's llvmpipe, SwiftShader): real code path, no speed-up. */
  software: boolean;
}

/** "AMD EPYC 7B13, AVX2": the processor part of a device's line. */
export function hostCpuLine(h: HostCpu): string {
  return `${h.model}, ${h.isa}`;
}
