/**
 * Which execution providers work on this machine, and which one `auto` picks. A provider counts
 * as present when a small MLP forward (models/mlp.ts) loads and runs on it in this process; the
 * probe runs once per provider and process. For WebGPU on Linux the adapter is read from
 * `vulkaninfo --summary` when that tool is installed: Mesa's llvmpipe (a Vulkan device emulated on
 * the CPU) runs the real WebGPU code path but no faster than the CPU provider, so `auto` does not
 * pick it.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import os from 'node:os';
import { Tensor } from 'onnxruntime-node';
import { EXECUTION_PROVIDERS } from '../core/contract/device';
import type { DeviceRecord, ExecutionProvider, HostCpu, ProviderChoice, ProviderProbe } from '../core/contract/device';
import { buildForward } from './graph';
import { mlpForward, mlpSpec } from './mlp';
import { initParams } from './params';
import { PROVIDER_HINTS, createSession, firstLine, markUnavailable, unavailableReason } from './session';

/** `auto` tries these in order; the first one present on a hardware device wins. */
export const AUTO_ORDER: readonly ExecutionProvider[] = ['cuda', 'dml', 'coreml', 'webgpu'];

/** A Vulkan device as `vulkaninfo --summary` lists it. */
export interface VulkanDevice {
  name: string;
  /** e.g. PHYSICAL_DEVICE_TYPE_CPU, PHYSICAL_DEVICE_TYPE_DISCRETE_GPU. */
  type: string;
  driver: string;
}

/** The devices in `vulkaninfo --summary` output (its "Devices:" section), in order. */
export function parseVulkanSummary(text: string): VulkanDevice[] {
  const out: VulkanDevice[] = [];
  let cur: Partial<VulkanDevice> | null = null;
  for (const line of text.split('\n')) {
    if (/^GPU\d+:/.test(line.trim())) {
      if (cur?.name) out.push({ name: cur.name, type: cur.type ?? 'unknown', driver: cur.driver ?? '' });
      cur = {};
      continue;
    }
    const m = /^\s*(deviceName|deviceType|driverInfo)\s*=\s*(.*)$/.exec(line);
    if (!m || !cur) continue;
    if (m[1] === 'deviceName') cur.name = m[2]!.trim();
    else if (m[1] === 'deviceType') cur.type = m[2]!.trim();
    else cur.driver = m[2]!.trim();
  }
  if (cur?.name) out.push({ name: cur.name, type: cur.type ?? 'unknown', driver: cur.driver ?? '' });
  return out;
}

/** Vulkan devices on this machine, or null when `vulkaninfo` is not installed (or not Linux). */
function vulkanDevices(): VulkanDevice[] | null {
  if (process.platform !== 'linux') return null;
  try {
    return parseVulkanSummary(execFileSync('vulkaninfo', ['--summary'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'], timeout: 10_000 }));
  } catch {
    return null;
  }
}

/** What a WebGPU adapter on Linux will be: the hardware devices, else the software ones. */
function webgpuAdapter(): { detail: string; software: boolean } {
  const devices = vulkanDevices();
  if (devices === null) return { detail: 'adapter not identified (install vulkan-tools for vulkaninfo)', software: false };
  const hardware = devices.filter((d) => d.type !== 'PHYSICAL_DEVICE_TYPE_CPU');
  if (hardware.length) return { detail: `Vulkan: ${hardware.map((d) => d.name).join(', ')}`, software: false };
  // "llvmpipe (LLVM 15.0.6, 256 bits)" and "Mesa 25.0.7-2~bpo12+1 (LLVM 15.0.6)": the name and the Mesa version say enough.
  const short = (d: VulkanDevice) => `${d.name.replace(/ \(.*\)$/, '')}${d.driver ? ` (${d.driver.split(' (')[0]})` : ''}`;
  if (devices.length) return { detail: `Vulkan: ${devices.map(short).join(', ')}, a software device emulated on the CPU`, software: true };
  return { detail: 'vulkaninfo lists no Vulkan device', software: false };
}

const probes = new Map<ExecutionProvider, Promise<ProviderProbe>>();

/** Loads and runs a small MLP forward (8→16→4, batch 2) on `provider`. */
async function probe(provider: ExecutionProvider): Promise<ProviderProbe> {
  if (provider === 'cpu') return { provider, available: true, detail: 'onnxruntime CPU', software: false };
  const missing = unavailableReason(provider);
  if (missing) return { provider, available: false, detail: missing, software: false };
  const spec = mlpSpec('probe', [8, 16, 4]);
  const graph = buildForward(spec, mlpForward, { weights: initParams(spec.params, 1) });
  let warned: string | null = null;
  try {
    const { session, provider: used } = await createSession(
      graph.bytes,
      { provider, warn: (l) => (warned = l), intraOpNumThreads: 1 },
      `the ${provider} probe`,
    );
    try {
      if (used !== provider) return { provider, available: false, detail: unavailableReason(provider) ?? warned ?? 'fell back to cpu', software: false };
      await session.run({ x: new Tensor('float32', new Float32Array(16).fill(0.5), [2, 8]) });
    } finally {
      await session.release();
    }
  } catch (e) {
    const hint = PROVIDER_HINTS[provider];
    const reason = `${firstLine(e)}${hint ? `; ${hint}` : ''}`;
    markUnavailable(provider, reason);
    return { provider, available: false, detail: reason, software: false };
  }
  if (provider === 'webgpu') return { provider, available: true, ...webgpuAdapter() };
  return { provider, available: true, detail: `${provider} ran a test graph`, software: false };
}

/** Probes one provider (once per process). */
export function probeProvider(provider: ExecutionProvider): Promise<ProviderProbe> {
  let p = probes.get(provider);
  if (!p) probes.set(provider, (p = probe(provider)));
  return p;
}

/** Every provider Sparring knows, probed: what `sparring doctor` and the bench header show. */
export async function probeProviders(): Promise<ProviderProbe[]> {
  const out: ProviderProbe[] = [];
  // One at a time: two GPU runtimes starting at once gain nothing and muddle their logs.
  for (const p of EXECUTION_PROVIDERS) out.push(await probeProvider(p));
  return out;
}

/** One line per probe, e.g. "webgpu: yes — Vulkan: NVIDIA H100". */
export function probeLines(probes: readonly ProviderProbe[]): string[] {
  return probes.map((p) => `${p.provider}: ${p.available ? (p.software ? 'yes (software)' : 'yes') : 'no'} — ${p.detail}`);
}

/**
 * The widest x86 vector extension among a processor's feature flags (Linux's /proc/cpuinfo
 * "flags", macOS's machdep.cpu features, lower-cased): the one onnxruntime's CPU kernels (MLAS)
 * pick. AVX2 counts only with FMA, as MLAS requires both.
 */
export function isaOfFlags(flags: ReadonlySet<string>): string {
  if (flags.has('avx512f')) return 'AVX-512';
  if (flags.has('avx2') && (flags.has('fma') || flags.has('fma3'))) return 'AVX2';
  if (flags.has('avx') || flags.has('avx1.0')) return 'AVX';
  if (flags.has('sse2') || flags.has('sse4_1') || flags.has('sse4.1')) return 'SSE';
  return 'unknown';
}

/** The first "flags" line of /proc/cpuinfo, as a set. */
export function cpuinfoFlags(cpuinfo: string): Set<string> {
  const line = /^flags\s*:(.*)$/m.exec(cpuinfo);
  return new Set((line?.[1] ?? '').trim().split(/\s+/).filter(Boolean));
}

let hostCpuMemo: HostCpu | undefined;

/** This machine's processor (model, platform, vector extension), read once per process. */
export function hostCpu(): HostCpu {
  if (hostCpuMemo) return hostCpuMemo;
  let isa = 'unknown';
  if (process.arch === 'arm64') isa = 'NEON';
  else if (process.arch === 'x64') {
    try {
      if (process.platform === 'linux') isa = isaOfFlags(cpuinfoFlags(readFileSync('/proc/cpuinfo', 'utf8')));
      else if (process.platform === 'darwin') {
        const out = execFileSync('sysctl', ['-n', 'machdep.cpu.features', 'machdep.cpu.leaf7_features'], {
          encoding: 'utf8',
          stdio: ['ignore', 'pipe', 'ignore'],
          timeout: 5_000,
        });
        isa = isaOfFlags(new Set(out.toLowerCase().split(/\s+/).filter(Boolean)));
      }
    } catch {
      // unreadable: 'unknown'
    }
  }
  return (hostCpuMemo = { model: os.cpus()[0]?.model.trim() || 'unknown', platform: `${process.platform}/${process.arch}`, isa });
}

export interface DeviceRequest {
  provider: ProviderChoice;
  threads?: number | null;
  /** Where matches and evaluation run: 'provider' (default) or 'cpu'. */
  play?: 'provider' | 'cpu';
}

/**
 * Turns a requested provider into the one to use, with the reason: an explicit provider when it
 * runs here (else the CPU, saying why); for `auto`, the first of AUTO_ORDER present on a
 * hardware device, else the CPU with what was found.
 */
export async function chooseDevice(req: DeviceRequest): Promise<DeviceRecord> {
  const threads = req.threads ?? null;
  const done = (provider: ExecutionProvider, reason: string): DeviceRecord => ({
    requested: req.provider,
    provider,
    reason,
    threads,
    play: req.play === 'cpu' ? 'cpu' : provider,
    host: hostCpu(),
  });
  if (req.provider === 'cpu') return done('cpu', 'cpu requested');
  if (req.provider !== 'auto') {
    const p = await probeProvider(req.provider);
    if (!p.available) return done('cpu', `${req.provider} is unavailable (${p.detail}); running on cpu`);
    return done(req.provider, `${req.provider} requested (${p.detail})`);
  }
  const software: string[] = [];
  const absent: string[] = [];
  for (const name of AUTO_ORDER) {
    const p = await probeProvider(name);
    if (p.available && !p.software) return done(name, `auto: ${name} is present (${p.detail})`);
    if (p.available) software.push(`${name} found only ${p.detail}, no faster than the cpu provider (use it anyway with --provider ${name})`);
    else absent.push(name);
  }
  return done(
    'cpu',
    `auto: no GPU provider on a hardware device: ${[...software, ...(absent.length ? [`not present: ${absent.join(', ')}`] : [])].join('; ')}; running on cpu`,
  );
}
