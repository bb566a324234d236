/**
 * The provider choice: `vulkaninfo --summary` parsing (what tells llvmpipe from a hardware GPU),
 * and chooseDevice's answers for the CPU, a provider this build lacks, and `auto`.
 */
import { describe, expect, it } from 'vitest';
import { AUTO_ORDER, chooseDevice, parseVulkanSummary, probeProvider } from './device';

const LLVMPIPE_AND_NVIDIA = `
Devices:
========
GPU0:
	apiVersion         = 1.3.277
	deviceType         = PHYSICAL_DEVICE_TYPE_DISCRETE_GPU
	deviceName         = NVIDIA H200
	driverInfo         = 550.54.15
GPU1:
	apiVersion         = 1.4.305
	deviceType         = PHYSICAL_DEVICE_TYPE_CPU
	deviceName         = llvmpipe (LLVM 15.0.6, 256 bits)
	driverID           = DRIVER_ID_MESA_LLVMPIPE
	driverInfo         = Mesa 25.0.7-2~bpo12+1 (LLVM 15.0.6)
`;

describe('parseVulkanSummary', () => {
  it('lists each device with its type and driver', () => {
    expect(parseVulkanSummary(LLVMPIPE_AND_NVIDIA)).toEqual([
      { name: 'NVIDIA H200', type: 'PHYSICAL_DEVICE_TYPE_DISCRETE_GPU', driver: '550.54.15' },
      { name: 'llvmpipe (LLVM 15.0.6, 256 bits)', type: 'PHYSICAL_DEVICE_TYPE_CPU', driver: 'Mesa 25.0.7-2~bpo12+1 (LLVM 15.0.6)' },
    ]);
    expect(parseVulkanSummary('no devices here')).toEqual([]);
  });
});

describe('chooseDevice', () => {
  it('keeps the CPU when asked for it, with threads and where matches run', async () => {
    expect(await chooseDevice({ provider: 'cpu', threads: 2 })).toEqual({
      requested: 'cpu',
      provider: 'cpu',
      reason: 'cpu requested',
      threads: 2,
      play: 'cpu',
    });
  });

  it('falls back to the CPU from a provider this build does not include, saying why', async () => {
    const missing = process.platform === 'darwin' ? 'dml' : 'coreml';
    const d = await chooseDevice({ provider: missing });
    expect(d).toMatchObject({ requested: missing, provider: 'cpu', play: 'cpu' });
    expect(d.reason).toMatch(
      new RegExp(`^${missing} is unavailable \\(not included in onnxruntime-node for ${process.platform}/${process.arch}\\); running on cpu$`),
    );
  });

  it('auto picks the first GPU provider on a hardware device, else the CPU naming what it found', async () => {
    const probes = await Promise.all(AUTO_ORDER.map((p) => probeProvider(p)));
    const hardware = probes.find((p) => p.available && !p.software);
    const d = await chooseDevice({ provider: 'auto', play: 'cpu' });
    expect(d.requested).toBe('auto');
    expect(d.play).toBe('cpu');
    if (hardware) {
      expect(d.provider).toBe(hardware.provider);
      expect(d.reason).toMatch(new RegExp(`^auto: ${hardware.provider} is present`));
    } else {
      expect(d.provider).toBe('cpu');
      expect(d.reason).toMatch(/^auto: no GPU provider on a hardware device: .*running on cpu$/);
      for (const p of probes.filter((x) => x.software)) expect(d.reason).toContain(`${p.provider} found only`);
    }
  });
});
