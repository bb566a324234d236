/**
 * The provider choice: `vulkaninfo --summary` parsing (what tells llvmpipe from a hardware GPU),
 * and chooseDevice's answers for the CPU, a provider this build lacks, and `auto`.
 */
import { describe, expect, it } from 'vitest';
import { AUTO_ORDER, chooseDevice, cpuinfoFlags, hostCpu, isaOfFlags, parseVulkanSummary, probeProvider } from './device';

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

describe('hostCpu', () => {
  it('names the widest vector extension among the flags, as onnxruntime picks kernels by it', () => {
    // /proc/cpuinfo of an AVX-512 Xeon and of an AMD EPYC without it (first "flags" line only).
    const xeon = 'processor\t: 0\nmodel name\t: Intel(R) Xeon(R) CPU\nflags\t\t: fpu sse2 avx fma avx2 avx512f avx512bw\n\nprocessor\t: 1\nflags\t\t: fpu\n';
    const epyc = 'processor\t: 0\nflags\t\t: fpu sse2 sse4_1 avx fma avx2\n';
    expect(isaOfFlags(cpuinfoFlags(xeon))).toBe('AVX-512');
    expect(isaOfFlags(cpuinfoFlags(epyc))).toBe('AVX2');
    expect(isaOfFlags(new Set(['sse2', 'avx', 'avx2']))).toBe('AVX'); // AVX2 without FMA: MLAS's AVX kernels
    expect(isaOfFlags(new Set(['sse2']))).toBe('SSE');
    expect(isaOfFlags(cpuinfoFlags('no flags line'))).toBe('unknown');
  });
  it('describes this machine', () => {
    const h = hostCpu();
    expect(h.platform).toBe(`${process.platform}/${process.arch}`);
    expect(h.model.length).toBeGreaterThan(0);
    if (process.platform === 'linux' && process.arch === 'x64') expect(['AVX-512', 'AVX2', 'AVX', 'SSE']).toContain(h.isa);
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
      host: hostCpu(),
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
