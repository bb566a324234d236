import { describe, expect, it } from 'vitest';
import onnxPkg from 'onnx-proto';
import { Tensor as OrtTensor } from 'onnxruntime-node';
import { createSession } from '../session';
import { Graph, buildForward } from './index';

const { onnx } = onnxPkg;

async function run(g: Graph, feeds: Record<string, OrtTensor>): Promise<Record<string, { data: ArrayLike<number | bigint>; dims: readonly number[] }>> {
  const { session } = await createSession(g.encode(), { intraOpNumThreads: 1 });
  const res = await session.run(feeds);
  await session.release();
  return res as never;
}

describe('Graph: shapes and checks at build time', () => {
  it('infers shapes, keeping symbolic dimensions', () => {
    const g = new Graph('shapes');
    const x = g.input('x', 'float32', ['B', 'T', 64]);
    const w = g.input('w', 'float32', [64, 8]);
    expect(g.matMul(x, w).shape).toEqual(['B', 'T', 8]);
    const flat = g.reshape(x, [-1, 64]);
    expect(flat.shape).toEqual(['B*T', 64]);
    expect(g.reshape(x, [0, -1]).shape).toEqual(['B', '64*T']);
    expect(g.reduceSum(x, [1], true).shape).toEqual(['B', 1, 64]);
    expect(g.reduceMean(x, [-1]).shape).toEqual(['B', 'T']);
    expect(g.transpose(x, [2, 0, 1]).shape).toEqual([64, 'B', 'T']);
    expect(g.unsqueeze(g.reduceSum(x), [0, 1]).shape).toEqual([1, 1]);
    expect(g.concat([w, w], 1).shape).toEqual([64, 16]);
    expect(g.oneHot(g.input('i', 'int64', ['B']), 5).shape).toEqual(['B', 5]);
    expect(g.gather(g.input('table', 'float32', [100, 16]), g.input('ids', 'int64', ['B', 7])).shape).toEqual(['B', 7, 16]);
  });

  it('rejects mismatched operands with the shapes in the message', () => {
    const g = new Graph('errors');
    const x = g.input('x', 'float32', ['B', 4]);
    expect(() => g.matMul(x, g.input('w', 'float32', [5, 2]))).toThrow(/MatMul: inner dimensions differ: x: float32\[B, 4\] @ w: float32\[5, 2\]/);
    expect(() => g.add(x, g.input('y', 'float32', [3, 4]))).toThrow(/Add: shapes \[B, 4\] and \[3, 4\] do not broadcast/);
    expect(() => g.add(x, g.input('n', 'int64', [4]))).toThrow(/Add: operand types differ/);
    expect(() => g.softmax(x, 2)).toThrow(/Softmax: axis 2 is out of range/);
    expect(() => g.input('x', 'float32', [1])).toThrow(/the name 'x' is already used/);
    expect(() => g.relu(new Graph('other').input('z', 'float32', [1]))).toThrow(/belongs to graph 'other'/);
    expect(() => g.reshape(g.input('s', 'float32', [2, 3]), [4, 2])).toThrow(/cannot reshape \[2, 3\] into \[4, 2\]/);
    expect(() => g.toModel()).toThrow(/has no outputs/);
  });

  it('serialises an opset-17 model, dropping nodes and constants no output needs', () => {
    const g = new Graph('prune');
    const x = g.input('x', 'float32', ['B', 3]);
    g.mul(x, 42); // dead branch: its constant must not be stored
    g.output('y', g.add(x, 1));
    const model = onnx.ModelProto.decode(g.encode());
    const graph = model.graph!;
    expect(Number(model.irVersion)).toBe(8);
    expect(model.opsetImport.map((o) => [o.domain, Number(o.version)])).toEqual([['', 17]]);
    expect(graph.node!.map((n) => n.opType)).toEqual(['Add']);
    expect(graph.initializer).toHaveLength(1);
    expect(graph.output!.map((o) => o.name)).toEqual(['y']);
    expect(graph.input![0]!.type!.tensorType!.shape!.dim!.map((d) => d.dimParam || Number(d.dimValue))).toEqual(['B', 3]);
  });

  it('passes an input straight to an output through Identity', async () => {
    const g = new Graph('pass');
    const x = g.input('x', 'float32', [2]);
    g.output('same', x);
    g.output('twice', g.mul(x, 2));
    g.output('again', g.outputs[1]!);
    const res = await run(g, { x: new OrtTensor('float32', new Float32Array([1, 2]), [2]) });
    expect(Array.from(res.same!.data)).toEqual([1, 2]);
    expect(Array.from(res.again!.data)).toEqual([2, 4]);
  });
});

describe('Graph: op semantics through onnxruntime', () => {
  it('OneHot turns int64 indices into float rows', async () => {
    const g = new Graph('onehot');
    g.output('y', g.oneHot(g.input('i', 'int64', ['B']), 4));
    const res = await run(g, { i: new OrtTensor('int64', new BigInt64Array([2n, 0n]), [2]) });
    expect(res.y!.dims).toEqual([2, 4]);
    expect(Array.from(res.y!.data)).toEqual([0, 0, 1, 0, 1, 0, 0, 0]);
  });

  it('embeddingBag sums, averages or weights the rows of hashed feature ids', async () => {
    const g = new Graph('bag');
    const table = g.initializer('table', new Float32Array([1, 10, 2, 20, 3, 30, 4, 40]), [4, 2]); // row r = [r+1, 10(r+1)]
    const ids = g.input('ids', 'int64', ['B', 3]);
    const w = g.input('w', 'float32', ['B', 3]);
    g.output('sum', g.embeddingBag(table, ids));
    g.output('mean', g.embeddingBag(table, ids, { mode: 'mean' }));
    g.output('weighted', g.embeddingBag(table, ids, { weights: w }));
    const res = await run(g, {
      ids: new OrtTensor('int64', new BigInt64Array([0n, 3n, 3n, 1n, 2n, 0n]), [2, 3]),
      w: new OrtTensor('float32', new Float32Array([1, 0.5, 0, 2, 1, 0]), [2, 3]),
    });
    expect(Array.from(res.sum!.data)).toEqual([9, 90, 6, 60]);
    expect(Array.from(res.mean!.data)).toEqual([3, 30, 2, 20]);
    expect(Array.from(res.weighted!.data)).toEqual([3, 30, 7, 70]);
  });

  it('buildForward drops inputs the outputs do not use and names missing weights', () => {
    const spec = {
      name: 'lin',
      params: { w: { shape: [2, 1] } },
      inputs: { x: { dtype: 'float32' as const, shape: ['B', 2] }, label: { dtype: 'int64' as const, shape: ['B'] } },
    };
    const built = buildForward(spec, (g, p, x) => ({ y: g.matMul(x.x, p.w) }));
    expect(built.inputs.map((i) => i.name)).toEqual(['w', 'x']);
    expect(built.outputs).toEqual([{ name: 'y', dtype: 'float32', shape: ['B', 1] }]);
    expect(() => buildForward(spec, (g, p, x) => ({ y: g.matMul(x.x, p.w) }), { weights: {} as never })).toThrow(/no weights for parameter 'w'/);
    expect(() => buildForward({ ...spec, inputs: { 'adam.x': spec.inputs.x } }, () => ({}))).toThrow(/reserved prefix 'adam\.'/);
  });
});
