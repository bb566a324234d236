/**
 * Value types of the graph builder. A dimension is either a concrete size or a symbol (`'B'`)
 * that onnxruntime fills in at run time; two symbolic dimensions are the same size exactly when
 * their names are equal, which is what lets broadcasting and gradients be planned statically.
 */

/** Element types the builder supports. `bool` only appears as the output of comparisons. */
export type DType = 'float32' | 'int64' | 'bool';

/** A dimension: a concrete size, or a symbol such as `'B'` (batch) bound at run time. */
export type Dim = number | string;

export type Shape = readonly Dim[];

/** Typed array holding a tensor's elements, row-major. */
export type TensorData = Float32Array | BigInt64Array | Uint8Array;

/** ONNX `TensorProto.DataType` codes. */
export const ONNX_DTYPE: Record<DType, number> = { float32: 1, int64: 7, bool: 9 };

/** A node attribute, typed as ONNX stores it. */
export type Attr =
  | { type: 'int'; value: number }
  | { type: 'float'; value: number }
  | { type: 'ints'; value: readonly number[] }
  | { type: 'floats'; value: readonly number[] }
  | { type: 'string'; value: string };

/** Declared shape and element type of a graph input or output. */
export interface ValueSpec {
  dtype: DType;
  shape: Shape;
}
