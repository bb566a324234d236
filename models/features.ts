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
  /**
   * A repeated gram takes one slot weighted 1 + ln tf (TF-IDF's sublinear tf, without the idf),
   * rather than a slot per occurrence; the bag then holds more distinct grams. Default false.
   */
  sublinearTf?: boolean;
  /**
   * The word grams and the character grams each get half the bag's squared norm (TF-IDF's two
   * l2-normalised blocks), rather than the character grams, four times as many, most of it.
   * Default false.
   */
  blockNorm?: boolean;
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

/** A hashed bag: `hashText`'s result. */
export type HashedBag = { indices: Int32Array; weights: Float32Array };

/**
 * `hashText` memoised by (namespace, text) for one hashing config: a CA gym re-encodes the same
 * agent replies and customer turns thousands of times. Bounded (cleared when full); callers only
 * read the arrays it returns.
 */
export class HashedTexts {
  private readonly map = new Map<string, HashedBag>();
  constructor(
    readonly hashing: HashingConfig,
    private readonly maxEntries = 8192,
  ) {}

  get(text: string, namespace = ''): HashedBag {
    const key = `${namespace}\u0000${text}`;
    let hit = this.map.get(key);
    if (!hit) {
      if (this.map.size >= this.maxEntries) this.map.clear();
      hit = hashText(text, this.hashing, namespace);
      this.map.set(key, hit);
    }
    return hit;
  }
}

/**
 * Hash a text into a bag: `indices[i]` in [1, V) and `weights[i]` (1/√n over the n grams kept,
 * so long and short texts have comparable norms). Bucket 0 is reserved for padding.
 */
export function hashText(text: string, cfg: HashingConfig = DEFAULT_HASHING, namespace = ''): { indices: Int32Array; weights: Float32Array } {
  return cfg.sublinearTf ? hashTextWeighted(text, cfg, namespace) : hashTextStreamed(text, cfg, namespace);
}

/**
 * hashText without sublinearTf: every gram takes a slot in order (word grams by order, then
 * character grams by order and word), and its bucket is fnv1a(namespace + gram) continued from the
 * hash of the gram's prefix (`namespace` + "w2:" …) over the gram's characters, so no gram string
 * is built. The same slots, buckets and weights as building the strings (features.test.ts holds
 * it to `hashTextWeighted`, which builds them); a rollout hashes the customer's words at every
 * turn it plays, and building the strings took a tenth of a paper run's time.
 */
function hashTextStreamed(text: string, cfg: HashingConfig, namespace: string): { indices: Int32Array; weights: Float32Array } {
  const L = cfg.bagLength;
  const V1 = cfg.buckets - 1;
  const indices = new Int32Array(L);
  const weights = new Float32Array(L);
  const words = tokenize(text);
  const base = fnv1a(namespace);
  let k = 0;
  for (const n of cfg.wordNgrams) {
    const prefix = fnv1a(`w${n}:`, base);
    for (let i = 0; i + n <= words.length && k < L; i++) {
      let h = fnv1a(words[i]!, prefix);
      for (let j = 1; j < n; j++) h = fnv1a(words[i + j]!, fnv1a(' ', h));
      indices[k++] = 1 + (h % V1);
    }
  }
  const wordSlots = k;
  for (const n of cfg.charNgrams) {
    const prefix = fnv1a(`c${n}:`, base);
    for (const w of words) {
      // The gram's characters in `<${w}>`: '<' (60) before the word and '>' (62) after it.
      const m = w.length + 2;
      for (let i = 0; i + n <= m && k < L; i++) {
        let h = prefix;
        for (let p = i; p < i + n; p++) h = Math.imul(h ^ (p === 0 ? 60 : p === m - 1 ? 62 : w.charCodeAt(p - 1)), 0x01000193) >>> 0;
        indices[k++] = 1 + (h % V1);
      }
      if (k >= L) break;
    }
  }
  if (cfg.blockNorm) {
    // Each block holds 1/blocks of the squared norm (see HashingConfig.blockNorm).
    const charSlots = k - wordSlots;
    const blocks = (wordSlots > 0 ? 1 : 0) + (charSlots > 0 ? 1 : 0);
    weights.fill(1 / Math.sqrt(wordSlots * blocks), 0, wordSlots);
    weights.fill(1 / Math.sqrt(charSlots * blocks), wordSlots, k);
  } else weights.fill(k > 0 ? 1 / Math.sqrt(k) : 0, 0, k);
  return { indices, weights };
}

/** The grams of a text, word grams first: [gram, is a word gram]. */
function gramsOf(text: string, cfg: HashingConfig): [string, boolean][] {
  const out: [string, boolean][] = [];
  const words = tokenize(text);
  for (const n of cfg.wordNgrams) for (let i = 0; i + n <= words.length; i++) out.push([`w${n}:${words.slice(i, i + n).join(' ')}`, true]);
  for (const n of cfg.charNgrams) {
    for (const w of words) {
      const marked = `<${w}>`;
      for (let i = 0; i + n <= marked.length; i++) out.push([`c${n}:${marked.slice(i, i + n)}`, false]);
    }
  }
  return out;
}

/**
 * hashText with `sublinearTf` (and `blockNorm` if set; see HashingConfig), from the grams' strings.
 * Without sublinearTf it gives hashText's bag by the slow road: the reference the tests hold
 * `hashTextStreamed` to.
 */
export function hashTextWeighted(text: string, cfg: HashingConfig, namespace: string): { indices: Int32Array; weights: Float32Array } {
  const L = cfg.bagLength;
  const indices = new Int32Array(L);
  const weights = new Float32Array(L);
  // Slots in order of first occurrence; with sublinearTf a repeated gram adds to its slot's count.
  const slots: { gram: string; word: boolean; tf: number }[] = [];
  const at = new Map<string, number>();
  for (const [gram, word] of gramsOf(text, cfg)) {
    const i = cfg.sublinearTf ? at.get(gram) : undefined;
    if (i !== undefined) slots[i]!.tf++;
    else if (slots.length < L) {
      at.set(gram, slots.length);
      slots.push({ gram, word, tf: 1 });
    }
  }
  const raw = slots.map((x) => (cfg.sublinearTf ? 1 + Math.log(x.tf) : 1));
  // Squared norm of each block (both blocks together without blockNorm).
  const norm2 = [0, 0];
  const block = (x: { word: boolean }) => (cfg.blockNorm && x.word ? 1 : 0);
  slots.forEach((x, i) => (norm2[block(x)]! += raw[i]! ** 2));
  const blocks = norm2.filter((v) => v > 0).length;
  slots.forEach((x, i) => {
    indices[i] = 1 + (fnv1a(namespace + x.gram) % (cfg.buckets - 1));
    weights[i] = raw[i]! / Math.sqrt(norm2[block(x)]! * blocks);
  });
  return { indices, weights };
}
