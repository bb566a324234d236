/**
 * Seeded parameter initialisation for a `ModelSpec`. The same seed gives the same weights on
 * every machine (pure-rand's xoroshiro128+), so a run's starting point is reproducible.
 */
import { xoroshiro128plus } from 'pure-rand';
import type { ParamInit, ParamSpec } from './graph';

/** Uniform [0, 1) from a 32-bit generator output. */
function unit(next: () => number): number {
  return (next() >>> 0) / 4294967296;
}

/** Fresh weights for every parameter, in row-major Float32Arrays. */
export function initParams<P extends string>(params: Record<P, ParamSpec>, seed: number): Record<P, Float32Array> {
  const rng = xoroshiro128plus(seed);
  const next = (): number => rng.unsafeNext();
  const normal = (): number => {
    // Box–Muller; 1 − u keeps the log argument in (0, 1].
    const u = 1 - unit(next);
    const v = unit(next);
    return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
  };
  const out = {} as Record<P, Float32Array>;
  for (const [name, spec] of Object.entries<ParamSpec>(params)) {
    const n = spec.shape.reduce((a, d) => a * d, 1);
    const data = new Float32Array(n);
    const init: ParamInit = spec.init ?? (spec.shape.length >= 2 ? 'xavier' : 'zeros');
    const fanIn = spec.shape[0] ?? 1;
    const fanOut = spec.shape[1] ?? 1;
    if (init === 'ones') data.fill(1);
    else if (init === 'xavier') {
      const a = Math.sqrt(6 / (fanIn + fanOut));
      for (let i = 0; i < n; i++) data[i] = (2 * unit(next) - 1) * a;
    } else if (init === 'he') {
      const std = Math.sqrt(2 / fanIn);
      for (let i = 0; i < n; i++) data[i] = normal() * std;
    } else if (typeof init === 'object' && 'normal' in init) {
      for (let i = 0; i < n; i++) data[i] = normal() * init.normal;
    } else if (typeof init === 'object') {
      for (let i = 0; i < n; i++) data[i] = (2 * unit(next) - 1) * init.uniform;
    }
    out[name as P] = data;
  }
  return out;
}

/**
 * Zero weights for every parameter: the placeholder of a model whose weights come from a snapshot
 * next (`fromSnapshot`), so loading a checkpoint does not draw a random initialisation it discards.
 */
export function zeroParams<P extends string>(params: Record<P, ParamSpec>): Record<P, Float32Array> {
  const out = {} as Record<P, Float32Array>;
  for (const [name, spec] of Object.entries<ParamSpec>(params)) out[name as P] = new Float32Array(spec.shape.reduce((a, d) => a * d, 1));
  return out;
}
