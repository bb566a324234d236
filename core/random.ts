/**
 * Seeded random streams. Every stochastic choice in the engine draws from an `Rng` derived from
 * the run's seed and a label (scenario, episode, role), so the same seed gives the same episodes
 * whatever order or concurrency they run in.
 */
import { xoroshiro128plus } from 'pure-rand/generator/XoroShiro';
import { unsafeUniformIntDistribution } from 'pure-rand/distribution/UnsafeUniformIntDistribution';
import type { RandomGenerator } from 'pure-rand/types/RandomGenerator';

/** FNV-1a over the label, mixed with the parent seed: a stable 32-bit child seed. */
export function deriveSeed(seed: number, ...labels: (string | number)[]): number {
  let h = (0x811c9dc5 ^ (seed | 0)) >>> 0;
  for (const label of labels) {
    const s = String(label);
    for (let i = 0; i < s.length; i++) {
      h ^= s.charCodeAt(i);
      h = Math.imul(h, 0x01000193) >>> 0;
    }
    h ^= 0xff;
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h | 0;
}

export class Rng {
  private readonly gen: RandomGenerator;
  constructor(readonly seed: number) {
    this.gen = xoroshiro128plus(seed | 0);
  }
  /** A child stream that does not disturb this one. */
  fork(...labels: (string | number)[]): Rng {
    return new Rng(deriveSeed(this.seed, ...labels));
  }
  /** Integer in [lo, hi], both inclusive. */
  int(lo: number, hi: number): number {
    return unsafeUniformIntDistribution(lo, hi, this.gen);
  }
  /** Float in [0, 1). */
  next(): number {
    return unsafeUniformIntDistribution(0, 0x3fffffff, this.gen) / 0x40000000;
  }
  chance(p: number): boolean {
    return this.next() < p;
  }
  pick<T>(items: readonly T[]): T {
    if (items.length === 0) throw new Error('Rng.pick: empty list');
    return items[this.int(0, items.length - 1)]!;
  }
  /** Pick a key with probability proportional to its weight. */
  weighted<K extends string>(weights: Readonly<Record<K, number>>): K {
    const entries = Object.entries(weights) as [K, number][];
    const total = entries.reduce((s, [, w]) => s + Math.max(0, w), 0);
    let r = this.next() * total;
    for (const [k, w] of entries) {
      r -= Math.max(0, w);
      if (r < 0) return k;
    }
    return entries[entries.length - 1]![0];
  }
}
