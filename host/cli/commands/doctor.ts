/**
 * `sparring doctor`: what this machine offers the policies — every execution provider Sparring
 * knows, probed with a small graph (models/device.ts), and what `--provider auto` would pick and
 * why. The bench header prints the same probe.
 */
import os from 'node:os';
import { createRequire } from 'node:module';
import type { Command } from 'commander';
import { chooseDevice, hostCpu, probeLines, probeProviders } from '../../../models/device';
import { deviceLine } from '../device';
import type { GlobalOptions } from '../global-options';

export function registerDoctor(program: Command, globals: () => GlobalOptions): void {
  program
    .command('doctor')
    .description('which execution providers (CPU, GPU) Sparring finds here, and what --provider auto picks')
    .action(async () => {
      const g = globals();
      const providers = await probeProviders();
      const auto = await chooseDevice({ provider: 'auto' });
      const ort = (createRequire(import.meta.url)('onnxruntime-node/package.json') as { version: string }).version;
      const machine = {
        platform: `${process.platform}/${process.arch}`,
        cpus: os.availableParallelism(),
        cpuModel: hostCpu().model,
        isa: hostCpu().isa,
        node: process.version,
        onnxruntime: ort,
      };
      if (g.json) {
        process.stdout.write(`${JSON.stringify({ machine, providers, auto }, null, 2)}\n`);
        return;
      }
      process.stdout.write(
        `${machine.platform}, ${machine.cpus} cores (${machine.cpuModel}, ${machine.isa}), Node ${machine.node}, onnxruntime-node ${ort}\n\n` +
          `${probeLines(providers).join('\n')}\n\n` +
          `--provider auto → ${deviceLine(auto)}\n`,
      );
    });
}
