/**
 * The device picker of the Experiments screen: it reads and writes the config's `device.provider`
 * (core/coevolution/run-config.ts), so the JSON editor and the picker never disagree.
 */
import type { DeviceRecord, ProviderChoice } from '../../../../core/contract/device';

/** Every choice with its label; a Record, so a provider added to the contract must be named here. */
export const DEVICE_LABELS: Record<ProviderChoice, string> = {
  cpu: 'CPU',
  auto: 'auto (a GPU when present)',
  webgpu: 'WebGPU (Vulkan, D3D12, Metal)',
  cuda: 'CUDA (npm run fetch-cuda)',
  dml: 'DirectML (Windows)',
  coreml: 'CoreML (macOS)',
};

/** The provider a config text asks for; '' when it names none (the engine's default) or is not JSON. */
export function deviceOf(text: string): ProviderChoice | '' {
  try {
    const p = (JSON.parse(text) as { device?: { provider?: unknown } }).device?.provider;
    return typeof p === 'string' && p in DEVICE_LABELS ? (p as ProviderChoice) : '';
  } catch {
    return '';
  }
}

/** The config text with `device.provider` set ('' removes the block's provider, and an emptied block); unchanged when not JSON. */
export function withDevice(text: string, choice: ProviderChoice | ''): string {
  let cfg: Record<string, unknown>;
  try {
    cfg = JSON.parse(text) as Record<string, unknown>;
  } catch {
    return text;
  }
  if (typeof cfg !== 'object' || cfg === null || Array.isArray(cfg)) return text;
  const { provider: _old, ...rest } = (cfg.device ?? {}) as Record<string, unknown>;
  if (choice === '') {
    if (Object.keys(rest).length) cfg.device = rest;
    else delete cfg.device;
  } else {
    cfg.device = { provider: choice, ...rest };
  }
  return JSON.stringify(cfg, null, 2);
}

/** How a run's device reads in the dashboard, e.g. "webgpu" or "cpu (asked: auto)". */
export function deviceLabel(d: DeviceRecord | null | undefined): string {
  if (!d) return 'cpu (not recorded)';
  const asked = d.requested !== d.provider ? ` (asked: ${d.requested})` : '';
  const play = d.play !== d.provider ? `, matches on ${d.play}` : '';
  // The instruction set is part of a run's numbers on the CPU (core/contract/device.ts's HostCpu).
  return `${d.provider}${asked}${play}${d.host ? ` · ${d.host.isa}` : ''}`;
}
