import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Tensor as OrtTensor } from 'onnxruntime-node';
import { Graph } from './graph';
import { createSession, defaultThreads } from './session';

function tinyModel(): Uint8Array {
  const g = new Graph('tiny');
  g.output('y', g.relu(g.input('x', 'float32', [2])));
  return g.encode();
}

describe('createSession', () => {
  const dir = mkdtempSync(join(tmpdir(), 'sparring-session-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('runs on the CPU by default', async () => {
    const warnings: string[] = [];
    const { session, provider } = await createSession(tinyModel(), { warn: (l) => warnings.push(l) });
    expect(provider).toBe('cpu');
    const res = await session.run({ x: new OrtTensor('float32', new Float32Array([-1, 2]), [2]) });
    expect(Array.from(res.y!.data as Float32Array)).toEqual([0, 2]);
    expect(warnings).toEqual([]);
  });

  it('falls back to the CPU with one warning line for an unknown provider', async () => {
    const warnings: string[] = [];
    const { provider } = await createSession(tinyModel(), { provider: 'tpu', warn: (l) => warnings.push(l) });
    expect(provider).toBe('cpu');
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/execution provider 'tpu' is unavailable \(unknown provider.*\); running on cpu/);
    expect(warnings[0]).not.toContain('\n');
  });

  it('falls back for a provider this platform does not ship', async () => {
    const missing = process.platform === 'darwin' ? 'dml' : 'coreml';
    const warnings: string[] = [];
    const { provider } = await createSession(tinyModel(), { provider: missing, warn: (l) => warnings.push(l) });
    expect(provider).toBe('cpu');
    expect(warnings[0]).toMatch(new RegExp(`'${missing}' is unavailable .*running on cpu`));
  });

  it('gives a clear error for garbage bytes, naming the source', async () => {
    const garbage = new TextEncoder().encode('this is certainly not an ONNX model');
    await expect(createSession(garbage, {}, 'checkpoint DA3')).rejects.toThrow(
      /cannot load ONNX model from checkpoint DA3 \(35 bytes\): the bytes are not an ONNX model/,
    );
    const file = join(dir, 'foreign.onnx');
    writeFileSync(file, Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 1, 2, 3])); // a PNG header
    await expect(createSession(file)).rejects.toThrow(new RegExp(`cannot load ONNX model from ${file.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}`));
  });

  it('gives a clear error for a truncated model, empty bytes and a missing file', async () => {
    const bytes = tinyModel();
    await expect(createSession(bytes.subarray(0, bytes.length - 7))).rejects.toThrow(/cannot load ONNX model from an in-memory model/);
    await expect(createSession(new Uint8Array(0))).rejects.toThrow(/it is empty/);
    await expect(createSession(join(dir, 'nope.onnx'))).rejects.toThrow(/cannot read ONNX model file .*nope\.onnx/);
  });

  it('loads from a file and validates the thread count', async () => {
    const file = join(dir, 'tiny.onnx');
    writeFileSync(file, tinyModel());
    const { source } = await createSession(file, { intraOpNumThreads: 1 });
    expect(source).toBe(file);
    await expect(createSession(tinyModel(), { intraOpNumThreads: 0 })).rejects.toThrow(/intraOpNumThreads must be a positive integer/);
    expect(defaultThreads()).toBeGreaterThanOrEqual(1);
    expect(defaultThreads()).toBeLessThanOrEqual(4);
  });
});
