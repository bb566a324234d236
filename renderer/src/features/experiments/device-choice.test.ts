import { describe, expect, it } from 'vitest';
import { deviceLabel, deviceOf, withDevice } from './device-choice';

describe('the device picker', () => {
  const base = JSON.stringify({ arena: { episodesPerScenario: 3 } }, null, 2);
  it('writes device.provider into the config and reads it back, keeping the other fields', () => {
    const t = withDevice(base, 'webgpu');
    expect(JSON.parse(t)).toEqual({ arena: { episodesPerScenario: 3 }, device: { provider: 'webgpu' } });
    expect(deviceOf(t)).toBe('webgpu');
    const threads = withDevice(JSON.stringify({ device: { provider: 'cpu', threads: 2 } }), 'auto');
    expect(JSON.parse(threads)).toEqual({ device: { provider: 'auto', threads: 2 } });
  });
  it('the default choice removes the provider, and the block when nothing else is in it', () => {
    expect(JSON.parse(withDevice(withDevice(base, 'cuda'), ''))).toEqual({ arena: { episodesPerScenario: 3 } });
    expect(JSON.parse(withDevice(JSON.stringify({ device: { provider: 'cpu', threads: 2 } }), ''))).toEqual({ device: { threads: 2 } });
  });
  it('leaves text that is not JSON alone and reads no provider from it, nor an unknown one', () => {
    expect(withDevice('{ broken', 'webgpu')).toBe('{ broken');
    expect(deviceOf('{ broken')).toBe('');
    expect(deviceOf(JSON.stringify({ device: { provider: 'tpu' } }))).toBe('');
  });
  it('labels a run by the provider it used, with what was asked when that differs', () => {
    expect(deviceLabel({ requested: 'auto', provider: 'cpu', reason: 'x', threads: null, play: 'cpu' })).toBe('cpu (asked: auto)');
    expect(deviceLabel({ requested: 'webgpu', provider: 'webgpu', reason: 'x', threads: null, play: 'cpu' })).toBe('webgpu, matches on cpu');
    expect(deviceLabel(null)).toBe('cpu (not recorded)');
    const host = { model: 'AMD EPYC 7B13', platform: 'linux/x64', isa: 'AVX2' };
    expect(deviceLabel({ requested: 'cpu', provider: 'cpu', reason: 'x', threads: 1, play: 'cpu', host })).toBe('cpu · AVX2');
  });
});
