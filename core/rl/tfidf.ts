/**
 * The peer baseline for routing (issue 20): a TF-IDF linear classifier, the first model anyone in
 * intent detection tries (Casanueva et al. 2020 report such baselines for Banking77). Read top to
 * bottom in the order it runs: analysers → TF-IDF fit and transform → multinomial logistic
 * regression (loss, gradient, SGD step, fit) → a classifier that routes through the taxonomy.
 *
 * The features follow scikit-learn's `TfidfVectorizer` so figures compare with the ones in
 * ENVIRONMENT.md: word 1–2-grams over tokens of two or more word characters, character 2–5-grams
 * over space-padded words (`analyzer='char_wb'`), smooth idf = ln((1 + n) / (1 + df)) + 1,
 * sublinear tf = 1 + ln tf, each block l2-normalised and the two blocks concatenated (a
 * `FeatureUnion`). Pure computation: no runtime, no package.
 */
import { Rng } from '../random';

// ------------------------------------------------------------------ analysers

/** Lower-cased tokens of two or more word characters (scikit-learn's default token pattern). */
export function wordTokens(text: string): string[] {
  return text.toLowerCase().match(/[\p{L}\p{N}_]{2,}/gu) ?? [];
}

/** Word n-grams of orders lo..hi, joined by a space. */
export function wordGrams(text: string, [lo, hi]: readonly [number, number]): string[] {
  const words = wordTokens(text);
  const out: string[] = [];
  for (let n = lo; n <= hi; n++) for (let i = 0; i + n <= words.length; i++) out.push(words.slice(i, i + n).join(' '));
  return out;
}

/**
 * Character n-grams of orders lo..hi inside each whitespace-separated word padded with one space
 * on each side (scikit-learn's `char_wb`): a padded word shorter than n gives itself once, and no
 * longer orders.
 */
export function charWbGrams(text: string, [lo, hi]: readonly [number, number]): string[] {
  const out: string[] = [];
  for (const word of text.toLowerCase().split(/\s+/).filter(Boolean)) {
    const w = ` ${word} `;
    for (let n = lo; n <= hi; n++) {
      let offset = 0;
      out.push(w.slice(offset, offset + n));
      while (offset + n < w.length) {
        offset++;
        out.push(w.slice(offset, offset + n));
      }
      if (offset === 0) break;
    }
  }
  return out;
}

// ------------------------------------------------------------------ TF-IDF

/** A sparse row: feature ids and their values. */
export interface SparseVector {
  idx: Int32Array;
  val: Float32Array;
}

export interface TfidfConfig {
  /** Word n-gram orders, inclusive range. */
  wordNgrams: readonly [number, number];
  /** Character n-gram orders inside padded words, inclusive range. */
  charNgrams: readonly [number, number];
  /** Term frequency as 1 + ln tf instead of tf. */
  sublinearTf: boolean;
}

/** The configuration of the figures the issue quotes (scikit-learn, ENVIRONMENT.md). */
export const DEFAULT_TFIDF: TfidfConfig = { wordNgrams: [1, 2], charNgrams: [2, 5], sublinearTf: true };

/** One analyser's vocabulary and idf, fitted on a corpus. */
export class TfidfBlock {
  private constructor(
    readonly vocab: ReadonlyMap<string, number>,
    /** [V] smooth idf of each term. */
    readonly idf: Float64Array,
    private readonly analyse: (text: string) => string[],
    private readonly sublinearTf: boolean,
  ) {}

  /** Vocabulary of every term in `texts` (in order of first appearance) and its smooth idf. */
  static fit(texts: readonly string[], analyse: (text: string) => string[], sublinearTf: boolean): TfidfBlock {
    const vocab = new Map<string, number>();
    const df: number[] = [];
    for (const t of texts) {
      for (const g of new Set(analyse(t))) {
        let j = vocab.get(g);
        if (j === undefined) vocab.set(g, (j = vocab.size));
        df[j] = (df[j] ?? 0) + 1;
      }
    }
    const n = texts.length;
    return new TfidfBlock(
      vocab,
      Float64Array.from(df, (d) => Math.log((1 + n) / (1 + d)) + 1),
      analyse,
      sublinearTf,
    );
  }

  get size(): number {
    return this.vocab.size;
  }

  /** The l2-normalised tf-idf row of `text` (terms outside the vocabulary are dropped), ids offset by `offset`. */
  transform(text: string, offset = 0): SparseVector {
    const tf = new Map<number, number>();
    for (const g of this.analyse(text)) {
      const j = this.vocab.get(g);
      if (j !== undefined) tf.set(j, (tf.get(j) ?? 0) + 1);
    }
    const idx = new Int32Array(tf.size);
    const val = new Float32Array(tf.size);
    let norm = 0;
    let i = 0;
    for (const [j, c] of [...tf].sort((a, b) => a[0] - b[0])) {
      const v = (this.sublinearTf ? 1 + Math.log(c) : c) * this.idf[j]!;
      idx[i] = j + offset;
      val[i++] = v;
      norm += v * v;
    }
    norm = Math.sqrt(norm);
    if (norm > 0) for (let k = 0; k < val.length; k++) val[k] = val[k]! / norm;
    return { idx, val };
  }
}

/** Word and character blocks side by side: ids [0, words) are word n-grams, the rest character n-grams. */
export class TfidfFeatures {
  private constructor(
    readonly words: TfidfBlock,
    readonly chars: TfidfBlock,
  ) {}

  static fit(texts: readonly string[], cfg: TfidfConfig = DEFAULT_TFIDF): TfidfFeatures {
    return new TfidfFeatures(
      TfidfBlock.fit(texts, (t) => wordGrams(t, cfg.wordNgrams), cfg.sublinearTf),
      TfidfBlock.fit(texts, (t) => charWbGrams(t, cfg.charNgrams), cfg.sublinearTf),
    );
  }

  /** D: features in all. */
  get size(): number {
    return this.words.size + this.chars.size;
  }

  transform(text: string): SparseVector {
    const a = this.words.transform(text);
    const b = this.chars.transform(text, this.words.size);
    const idx = new Int32Array(a.idx.length + b.idx.length);
    const val = new Float32Array(idx.length);
    idx.set(a.idx);
    idx.set(b.idx, a.idx.length);
    val.set(a.val);
    val.set(b.val, a.val.length);
    return { idx, val };
  }
}

// ------------------------------------------------------------------ multinomial logistic regression

export interface LogRegConfig {
  /** λ of the objective mean CE + λ/2 · ‖W‖² (the bias is not penalised); scikit-learn's C is 1/(λ·n). */
  l2: number;
  /** Passes of per-sample SGD over the training rows. */
  epochs: number;
  /** Initial step size; it decays linearly to 0 over all steps. */
  lr: number;
  /** Seed of the shuffle. */
  seed: number;
}

/**
 * Set before any measurement: λ = 1e-5 is scikit-learn's C ≈ 10 at n ≈ 10,000 rows (a usual
 * choice for TF-IDF text features), 10 passes. On the validation split of seed 1
 * (`host/routing-validation.ts`: 20% of Banking77's training rows) it routes 94.8% (95.1% by tool
 * mass), and λ = 1e-6 routed the same 94.8% (95.4% by tool mass), so the default stayed.
 */
export const DEFAULT_LOGREG: LogRegConfig = { l2: 1e-5, epochs: 10, lr: 0.5, seed: 1 };

/**
 * Softmax regression over sparse rows: p(k | x) = softmax(x·W + b)_k, W [D, K] stored feature-major
 * (a row's nonzeros touch contiguous runs of K weights) as `scale · v`, so the L2 shrink of every
 * weight at each SGD step is one multiplication of `scale` and each step stays sparse.
 */
export class SoftmaxRegression {
  /** [D · K] W / scale. */
  private readonly v: Float32Array;
  private scale = 1;
  /** [K] */
  readonly b: Float64Array;

  constructor(
    readonly dim: number,
    readonly classes: number,
  ) {
    this.v = new Float32Array(dim * classes);
    this.b = new Float64Array(classes);
  }

  /** W[j, k]. */
  weight(j: number, k: number): number {
    return this.v[j * this.classes + k]! * this.scale;
  }

  setWeight(j: number, k: number, w: number): void {
    this.v[j * this.classes + k] = w / this.scale;
  }

  /** [K] x·W + b. */
  logits(x: SparseVector, out = new Float64Array(this.classes)): Float64Array {
    const K = this.classes;
    out.set(this.b);
    for (let n = 0; n < x.idx.length; n++) {
      const o = x.idx[n]! * K;
      const xv = x.val[n]! * this.scale;
      for (let k = 0; k < K; k++) out[k] = out[k]! + xv * this.v[o + k]!;
    }
    return out;
  }

  /** [K] class probabilities. */
  probs(x: SparseVector): Float64Array {
    return softmaxInPlace(this.logits(x));
  }

  /**
   * The objective on a batch, L = mean_i −log p(y_i | x_i) + λ/2 · ‖W‖², and its gradient:
   * ∂L/∂W[j, k] = mean_i x_ij (p_ik − [k = y_i]) + λ W[j, k], ∂L/∂b_k = mean_i (p_ik − [k = y_i]).
   * Dense in W ([D · K], feature-major): for tests and small problems.
   */
  lossAndGradient(xs: readonly SparseVector[], ys: readonly number[], l2: number): { loss: number; gW: Float64Array; gb: Float64Array } {
    const K = this.classes;
    const gW = new Float64Array(this.dim * K);
    const gb = new Float64Array(K);
    let loss = 0;
    xs.forEach((x, i) => {
      const p = this.probs(x);
      const y = ys[i]!;
      loss -= Math.log(p[y]!);
      p[y] = p[y]! - 1;
      for (let k = 0; k < K; k++) gb[k] = gb[k]! + p[k]! / xs.length;
      for (let n = 0; n < x.idx.length; n++) {
        const o = x.idx[n]! * K;
        for (let k = 0; k < K; k++) gW[o + k] = gW[o + k]! + (x.val[n]! * p[k]!) / xs.length;
      }
    });
    let sq = 0;
    for (let j = 0; j < this.dim * K; j++) {
      const w = this.v[j]! * this.scale;
      sq += w * w;
      gW[j] = gW[j]! + l2 * w;
    }
    return { loss: loss / xs.length + (l2 / 2) * sq, gW, gb };
  }

  /**
   * One SGD step on one sample: W ← (1 − lr·λ) W − lr · x (p − e_y)ᵀ, b ← b − lr (p − e_y); the
   * same as W − lr · ∂L/∂W of `lossAndGradient` on that sample alone. Returns −log p(y | x).
   */
  sgdStep(x: SparseVector, y: number, lr: number, l2: number): number {
    const K = this.classes;
    const p = this.probs(x);
    const nll = -Math.log(p[y]!);
    p[y] = p[y]! - 1;
    this.scale *= 1 - lr * l2;
    if (this.scale < 1e-6) this.rescale();
    for (let k = 0; k < K; k++) this.b[k] = this.b[k]! - lr * p[k]!;
    const step = lr / this.scale;
    for (let n = 0; n < x.idx.length; n++) {
      const o = x.idx[n]! * K;
      const g = step * x.val[n]!;
      for (let k = 0; k < K; k++) this.v[o + k] = this.v[o + k]! - g * p[k]!;
    }
    return nll;
  }

  private rescale(): void {
    for (let j = 0; j < this.v.length; j++) this.v[j] = this.v[j]! * this.scale;
    this.scale = 1;
  }

  /** Per-sample SGD, `epochs` shuffled passes, step size lr · (1 − t/T). Returns each epoch's mean −log p. */
  fit(xs: readonly SparseVector[], ys: readonly number[], cfg: LogRegConfig): number[] {
    if (xs.length !== ys.length) throw new Error(`SoftmaxRegression.fit: ${xs.length} rows but ${ys.length} labels`);
    if (xs.length === 0) throw new Error('SoftmaxRegression.fit: no rows');
    const rng = new Rng(cfg.seed);
    const total = cfg.epochs * xs.length;
    const curve: number[] = [];
    let t = 0;
    for (let e = 0; e < cfg.epochs; e++) {
      const order = Array.from(xs, (_, i) => i);
      for (let i = order.length - 1; i > 0; i--) {
        const j = rng.int(0, i);
        [order[i], order[j]] = [order[j]!, order[i]!];
      }
      let sum = 0;
      for (const i of order) sum += this.sgdStep(xs[i]!, ys[i]!, cfg.lr * (1 - t++ / total), cfg.l2);
      curve.push(sum / xs.length);
    }
    return curve;
  }
}

/** Softmax of `z` in place (max-shifted). */
export function softmaxInPlace(z: Float64Array): Float64Array {
  let max = -Infinity;
  for (const v of z) if (v > max) max = v;
  let s = 0;
  for (let k = 0; k < z.length; k++) s += z[k] = Math.exp(z[k]! - max);
  for (let k = 0; k < z.length; k++) z[k] = z[k]! / s;
  return z;
}

// ------------------------------------------------------------------ the baseline classifier

/** A labelled text: its class and, for routing, the tool that class routes to. */
export interface LabelledText {
  text: string;
  label: string;
}

/** TF-IDF features and a softmax regression over string labels. */
export class TfidfClassifier {
  private constructor(
    readonly features: TfidfFeatures,
    readonly labels: readonly string[],
    readonly model: SoftmaxRegression,
    /** Mean −log p of each epoch. */
    readonly curve: readonly number[],
  ) {}

  static train(rows: readonly LabelledText[], opts: { tfidf?: TfidfConfig; logreg?: Partial<LogRegConfig> } = {}): TfidfClassifier {
    const features = TfidfFeatures.fit(
      rows.map((r) => r.text),
      opts.tfidf ?? DEFAULT_TFIDF,
    );
    const labels = [...new Set(rows.map((r) => r.label))].sort();
    const index = new Map(labels.map((l, i) => [l, i]));
    const model = new SoftmaxRegression(features.size, labels.length);
    const curve = model.fit(
      rows.map((r) => features.transform(r.text)),
      rows.map((r) => index.get(r.label)!),
      { ...DEFAULT_LOGREG, ...opts.logreg },
    );
    return new TfidfClassifier(features, labels, model, curve);
  }

  /** Each label's probability for `text`, in `labels` order. */
  probs(text: string): Float64Array {
    return this.model.probs(this.features.transform(text));
  }

  predict(text: string): string {
    const p = this.probs(text);
    let best = 0;
    for (let k = 1; k < p.length; k++) if (p[k]! > p[best]!) best = k;
    return this.labels[best]!;
  }
}
