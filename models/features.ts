/**
 * Feature hashing for dialogue text: word n-grams and character n-grams hashed into a fixed
 * vocabulary of V buckets, laid out as a fixed-length bag (indices + weights) for the graph
 * builder's weighted `embeddingBag`. Fixed length keeps every batch a dense [B, L] tensor;
 * unused slots point at bucket 0 with weight 0.
 */

export interface HashingConfig {
  /** Number of hash buckets V (rows of the embedding table). */
  buckets: number;
  /** Bag length L: n-grams beyond it are dropped (the earliest ones are kept). */
  bagLength: number;
  /** Word n-gram orders, e.g. [1, 2]. */
  wordNgrams: readonly number[];
  /** Character n-gram orders over word-boundary-marked text, e.g. [3, 4]. */
  charNgrams: readonly number[];
}

export const DEFAULT_HASHING: HashingConfig = {
  buckets: 1 << 15,
  bagLength: 256,
  wordNgrams: [1, 2],
  charNgrams: [3, 4],
};

/** 32-bit FNV-1a, stable across platforms and runs. */
export function fnv1a(s: string, seed = 0x811c9dc5): number {
  let h = seed >>> 0;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h >>> 0;
}

/** Lower-case, keep letters, digits, $ and apostrophes; numbers collapse to shape tokens. */
export function tokenize(text: string): string[] {
  return text
    .toLowerCase()
    .replace(/’/g, "'")
    .replace(/\$?\d[\d,]*(\.\d+)?/g, (m) => (m.startsWith('$') ? ' <money> ' : ' <num> '))
    .split(/[^a-z0-9$'<>]+/)
    .filter(Boolean);
}

/**
 * Hash a text into a bag: `indices[i]` in [1, V) and `weights[i]` (1/√n over the n grams kept,
 * so long and short texts have comparable norms). Bucket 0 is reserved for padding.
 */
export function hashText(text: string, cfg: HashingConfig = DEFAULT_HASHING, namespace = ''): { indices: Int32Array; weights: Float32Array } {
  const grams: string[] = [];
  const words = tokenize(text);
  for (const n of cfg.wordNgrams) {
    for (let i = 0; i + n <= words.length; i++) grams.push(`w${n}:${words.slice(i, i + n).join(' ')}`);
  }
  for (const n of cfg.charNgrams) {
    for (const w of words) {
      const marked = `<${w}>`;
      for (let i = 0; i + n <= marked.length; i++) grams.push(`c${n}:${marked.slice(i, i + n)}`);
    }
  }
  const L = cfg.bagLength;
  const indices = new Int32Array(L);
  const weights = new Float32Array(L);
  const kept = Math.min(L, grams.length);
  const w = kept > 0 ? 1 / Math.sqrt(kept) : 0;
  for (let i = 0; i < kept; i++) {
    indices[i] = 1 + (fnv1a(namespace + grams[i]!) % (cfg.buckets - 1));
    weights[i] = w;
  }
  return { indices, weights };
}
