/**
 * The device options every command that runs policies shares: `--provider cpu|webgpu|dml|coreml|cuda|auto`
 * and `--threads N`. `addDeviceOptions` adds them to a command; `deviceSession` turns the parsed
 * options into onnxruntime session settings, choosing the provider once (models/device.ts) and
 * saying on stderr what it chose and why whenever that is not the plain CPU default.
 * Commands: run, match, eval, play, diff, route, bench, serve (and serve-model, env serve).
 */
import type { Command } from 'commander';
import { Option } from 'commander';
import { hostCpuLine, PROVIDER_CHOICES } from '../../core/contract/device';
import type { DeviceRecord, ProviderChoice } from '../../core/contract/device';
import { chooseDevice } from '../../models/device';
import type { SessionSettings } from '../../models/session';
import { positiveInt } from './options';

/** What `addDeviceOptions` adds to a command's parsed options. */
export interface DeviceOptions {
  provider: ProviderChoice;
  threads?: number;
}

/** The default of `--provider`: the CPU, which needs no probe (`auto` probes each GPU provider first, a second or more). */
export const DEFAULT_PROVIDER: ProviderChoice = 'cpu';

/**
 * Adds `--provider` and `--threads` to `cmd`. `what`: the work they place, for the help text;
 * `defaultProvider` null: no default (`run`, where an absent option leaves the config's device block).
 * `threadsDefault`: what an absent `--threads` means, for the help text.
 */
export function addDeviceOptions(
  cmd: Command,
  what = 'the policies',
  defaultProvider: ProviderChoice | null = DEFAULT_PROVIDER,
  threadsDefault = 'cores, at most 4',
): Command {
  const provider = new Option(
    '--provider <p>',
    `where ${what} run: an onnxruntime execution provider, or auto (a GPU provider on a hardware device when present, else cpu); an unavailable one falls back to cpu, saying why`,
  ).choices(PROVIDER_CHOICES);
  return cmd
    .addOption(defaultProvider === null ? provider : provider.default(defaultProvider))
    .option('--threads <n>', `intra-op threads per onnxruntime session (default: ${threadsDefault})`, positiveInt('--threads'));
}

/** One stderr line for a device choice, e.g. "device: webgpu (webgpu requested (Vulkan: …))". */
export function deviceLine(d: DeviceRecord): string {
  return `device: ${d.provider}${d.play !== d.provider ? ` (matches and evaluation on ${d.play})` : ''} — ${d.reason}${d.host ? `; ${hostCpuLine(d.host)}` : ''}`;
}

/**
 * Chooses the device the options ask for and returns the session settings for it, with the
 * record (provider after fallback, and why). Prints `deviceLine` on stderr unless the CPU was
 * asked for and used.
 */
export async function deviceSession(
  opts: Partial<DeviceOptions>,
  log: (line: string) => void = (l) => process.stderr.write(`${l}\n`),
): Promise<{ session: SessionSettings; device: DeviceRecord }> {
  const device = await chooseDevice({ provider: opts.provider ?? DEFAULT_PROVIDER, threads: opts.threads ?? null });
  if (device.requested !== 'cpu') log(deviceLine(device));
  return {
    session: { provider: device.provider, ...(opts.threads !== undefined ? { intraOpNumThreads: opts.threads } : {}), warn: log },
    device,
  };
}
