/**
 * Static shape arithmetic: broadcasting, axis normalisation and the size of a reshaped
 * dimension. Symbolic dimensions are kept as canonical products (`'B*T'`) so that a reshape
 * of `[B, T, 64]` to `[-1, 64]` gives `'B*T'` and its gradient can reshape back.
 */
import type { Dim, Shape } from './types';

export function formatShape(shape: Shape): string {
  return `[${shape.join(', ')}]`;
}

export function isStatic(shape: Shape): shape is readonly number[] {
  return shape.every((d) => typeof d === 'number');
}

/** Number of elements when every dimension is concrete, else undefined. */
export function numel(shape: Shape): number | undefined {
  let n = 1;
  for (const d of shape) {
    if (typeof d !== 'number') return undefined;
    n *= d;
  }
  return n;
}

/** Maps a possibly negative axis into [0, rank); throws with the op's name when out of range. */
export function normAxis(axis: number, rank: number, op: string): number {
  const a = axis < 0 ? axis + rank : axis;
  if (!Number.isInteger(a) || a < 0 || a >= rank) {
    throw new Error(`${op}: axis ${axis} is out of range for a tensor of rank ${rank}`);
  }
  return a;
}

export function sameDim(a: Dim, b: Dim): boolean {
  return a === b;
}

export function sameShape(a: Shape, b: Shape): boolean {
  return a.length === b.length && a.every((d, i) => d === b[i]);
}

/**
 * NumPy-style broadcast of two static shapes. A symbolic dimension broadcasts only against 1 or
 * the same symbol: `B` against `3` is rejected because it would hold only when B happens to be 3.
 */
export function broadcastShapes(a: Shape, b: Shape, op: string): Dim[] {
  const rank = Math.max(a.length, b.length);
  const out: Dim[] = [];
  for (let i = 0; i < rank; i++) {
    const da = a[a.length - rank + i] ?? 1;
    const db = b[b.length - rank + i] ?? 1;
    if (da === db || db === 1) out.push(da);
    else if (da === 1) out.push(db);
    else throw new Error(`${op}: shapes ${formatShape(a)} and ${formatShape(b)} do not broadcast (dimension ${da} vs ${db})`);
  }
  return out;
}

/** A dimension as coefficient × product of symbols, for reshape arithmetic. */
interface DimProduct {
  coef: number;
  syms: string[];
}

function factor(d: Dim): DimProduct {
  if (typeof d === 'number') return { coef: d, syms: [] };
  const syms: string[] = [];
  let coef = 1;
  for (const part of d.split('*')) {
    if (/^\d+$/.test(part)) coef *= Number(part);
    else syms.push(part);
  }
  return { coef, syms };
}

function toDim(p: DimProduct): Dim {
  if (p.syms.length === 0) return p.coef;
  const syms = [...p.syms].sort();
  return p.coef === 1 ? syms.join('*') : `${p.coef}*${syms.join('*')}`;
}

function product(dims: Shape): DimProduct {
  const out: DimProduct = { coef: 1, syms: [] };
  for (const d of dims) {
    const f = factor(d);
    out.coef *= f.coef;
    out.syms.push(...f.syms);
  }
  return out;
}

/** `num / den` as a dimension, or undefined when it is not a whole product of the same symbols. */
function divide(num: DimProduct, den: DimProduct): Dim | undefined {
  if (den.coef === 0 || num.coef % den.coef !== 0) return undefined;
  const syms = [...num.syms];
  for (const s of den.syms) {
    const i = syms.indexOf(s);
    if (i < 0) return undefined;
    syms.splice(i, 1);
  }
  return toDim({ coef: num.coef / den.coef, syms });
}

/**
 * Output shape of ONNX Reshape (allowzero = 0): 0 copies the input dimension, -1 is inferred.
 * `fresh()` names a dimension that cannot be expressed from the input's symbols.
 */
export function reshapeShape(input: Shape, target: readonly number[], fresh: () => string): Dim[] {
  let inferAt = -1;
  const out: Dim[] = target.map((t, i) => {
    if (t === 0) {
      const d = input[i];
      if (d === undefined) throw new Error(`Reshape: 0 at position ${i} has no input dimension to copy (input ${formatShape(input)})`);
      return d;
    }
    if (t === -1) {
      if (inferAt >= 0) throw new Error(`Reshape: more than one -1 in ${formatShape(target)}`);
      inferAt = i;
      return 1;
    }
    if (!Number.isInteger(t) || t < 0) throw new Error(`Reshape: invalid target dimension ${t}`);
    return t;
  });
  const total = product(input);
  if (inferAt >= 0) {
    const rest = product(out.filter((_, i) => i !== inferAt));
    out[inferAt] = divide(total, rest) ?? fresh();
  } else if (toDim(total) !== toDim(product(out)) && isStatic(input)) {
    throw new Error(`Reshape: cannot reshape ${formatShape(input)} into ${formatShape(target)}`);
  }
  return out;
}
