import { describe, expect, it } from 'vitest';
import { charWbGrams, SoftmaxRegression, TfidfBlock, TfidfClassifier, TfidfFeatures, wordGrams } from './tfidf';
import type { SparseVector } from './tfidf';

const row = (idx: number[], val: number[]): SparseVector => ({ idx: Int32Array.from(idx), val: Float32Array.from(val) });
const dense = (x: SparseVector, d: number) => {
  const out = new Array<number>(d).fill(0);
  x.idx.forEach((j, n) => (out[j] = x.val[n]!));
  return out;
};

describe('analysers', () => {
  it('word n-grams keep tokens of two or more word characters, lower-cased', () => {
    expect(wordGrams('I lost MY card, a 2nd time', [1, 2])).toEqual(['lost', 'my', 'card', '2nd', 'time', 'lost my', 'my card', 'card 2nd', '2nd time']);
  });

  it('char_wb n-grams pad each word with spaces; a short word gives itself once and no longer orders', () => {
    expect(charWbGrams('ab C', [2, 5])).toEqual([' a', 'ab', 'b ', ' ab', 'ab ', ' ab ', ' c', 'c ', ' c ']);
  });
});

describe('TF-IDF on a 3-document corpus (hand-computed)', () => {
  // docs: "aa bb", "aa cc", "bb bb"; n = 3; df: aa 2, bb 2, cc 1
  // idf = ln((1 + n) / (1 + df)) + 1: aa, bb = ln(4/3) + 1 = 1.287682; cc = ln 2 + 1 = 1.693147
  const docs = ['aa bb', 'aa cc', 'bb bb'];
  const words = (t: string) => wordGrams(t, [1, 1]);

  it('smooth idf', () => {
    const b = TfidfBlock.fit(docs, words, true);
    expect([...b.vocab.keys()]).toEqual(['aa', 'bb', 'cc']);
    expect(b.idf[0]).toBeCloseTo(1.287682, 6);
    expect(b.idf[1]).toBeCloseTo(1.287682, 6);
    expect(b.idf[2]).toBeCloseTo(1.693147, 6);
  });

  it('sublinear tf, l2-normalised; unknown terms dropped', () => {
    // "aa bb bb zz": aa 1 · 1.287682; bb (1 + ln 2) · 1.287682 = 2.180223; equal idf, so aa = 1/√(1 + (1 + ln 2)²)
    const x = TfidfBlock.fit(docs, words, true).transform('aa bb bb zz');
    expect(dense(x, 3).map((v) => Number(v.toFixed(6)))).toEqual([0.508542, 0.861037, 0]);
    // Raw tf: bb 2 · 1.287682 = 2.575364; norm 2.879345
    const raw = TfidfBlock.fit(docs, words, false).transform('aa bb bb zz');
    expect(dense(raw, 3).map((v) => Number(v.toFixed(6)))).toEqual([0.447214, 0.894427, 0]);
    // "aa cc": 1.287682 and 1.693147 over norm 2.127175
    expect(dense(TfidfBlock.fit(docs, words, true).transform('aa cc'), 3).map((v) => Number(v.toFixed(6)))).toEqual([0.605349, 0, 0.795961]);
  });

  it('features concatenate the word and the char block, each of unit norm', () => {
    const f = TfidfFeatures.fit(docs);
    const x = f.transform('aa cc');
    expect(f.size).toBe(f.words.size + f.chars.size);
    const wordPart = [...x.val].filter((_, n) => x.idx[n]! < f.words.size);
    const charPart = [...x.val].filter((_, n) => x.idx[n]! >= f.words.size);
    expect(Math.hypot(...wordPart)).toBeCloseTo(1, 6);
    expect(Math.hypot(...charPart)).toBeCloseTo(1, 6);
  });
});

describe('softmax regression (hand-computed)', () => {
  // D = 2, K = 2, W[0,0] = 1, else 0; x = e_0, y = 1; λ = 0.1
  // logits [1, 0] → p = [0.731059, 0.268941]; loss = −ln 0.268941 + 0.05 · 1 = 1.363262
  // ∂W[0,·] = x0 (p − e_1) + λ W[0,·] = [0.731059 + 0.1, −0.731059]; ∂W[1,·] = 0; ∂b = [0.731059, −0.731059]
  const model = () => {
    const m = new SoftmaxRegression(2, 2);
    m.setWeight(0, 0, 1);
    return m;
  };
  const x = row([0], [1]);

  it('loss and gradient', () => {
    const { loss, gW, gb } = model().lossAndGradient([x], [1], 0.1);
    expect(loss).toBeCloseTo(1.363262, 6);
    expect([...gW].map((v) => Number(v.toFixed(6)))).toEqual([0.831059, -0.731059, 0, 0]);
    expect([...gb].map((v) => Number(v.toFixed(6)))).toEqual([0.731059, -0.731059]);
  });

  it('an SGD step is W − lr · gradient', () => {
    const m = model();
    const nll = m.sgdStep(x, 1, 0.5, 0.1);
    expect(nll).toBeCloseTo(1.313262, 6);
    // W[0,0] = 1 − 0.5 · 0.831059; W[0,1] = 0.5 · 0.731059; b = ∓0.5 · 0.731059
    expect(m.weight(0, 0)).toBeCloseTo(0.584471, 6);
    expect(m.weight(0, 1)).toBeCloseTo(0.365529, 6);
    expect(m.weight(1, 0)).toBe(0);
    expect([...m.b].map((v) => Number(v.toFixed(6)))).toEqual([-0.365529, 0.365529]);
  });

  it('the gradient matches finite differences on a random problem', () => {
    const m = new SoftmaxRegression(4, 3);
    for (let j = 0; j < 4; j++) for (let k = 0; k < 3; k++) m.setWeight(j, k, Math.sin(1 + j * 3 + k));
    const xs = [row([0, 2], [0.6, 0.8]), row([1, 3], [1, 0.5]), row([0, 1, 3], [0.3, -0.2, 0.9])];
    const ys = [2, 0, 1];
    const { gW } = m.lossAndGradient(xs, ys, 0.05);
    const h = 1e-3; // weights are float32: a smaller step drowns in their rounding
    for (let j = 0; j < 4; j++) {
      for (let k = 0; k < 3; k++) {
        const w = m.weight(j, k);
        m.setWeight(j, k, w + h);
        const up = m.lossAndGradient(xs, ys, 0.05).loss;
        m.setWeight(j, k, w - h);
        const down = m.lossAndGradient(xs, ys, 0.05).loss;
        m.setWeight(j, k, w);
        expect(gW[j * 3 + k]).toBeCloseTo((up - down) / (2 * h), 4);
      }
    }
  });

  it('SGD with L2 keeps shrinking the weights a sample never touches', () => {
    const m = new SoftmaxRegression(2, 2);
    m.setWeight(1, 0, 2);
    m.sgdStep(x, 1, 0.5, 0.1);
    expect(m.weight(1, 0)).toBeCloseTo(2 * (1 - 0.05), 6);
  });
});

describe('TfidfClassifier', () => {
  it('learns a small intent problem and predicts unseen phrasings by shared words and characters', () => {
    const rows = [
      { text: 'my card was stolen', label: 'lost_or_stolen_card' },
      { text: 'someone stole my card', label: 'lost_or_stolen_card' },
      { text: 'I lost my card', label: 'lost_or_stolen_card' },
      { text: 'I was charged twice', label: 'transaction_charged_twice' },
      { text: 'double charge on my account', label: 'transaction_charged_twice' },
      { text: 'the payment was taken two times', label: 'transaction_charged_twice' },
      { text: 'how do I top up', label: 'top_up_failed' },
      { text: 'my top-up failed', label: 'top_up_failed' },
    ];
    const c = TfidfClassifier.train(rows, { logreg: { epochs: 30, lr: 0.5, l2: 1e-4 } });
    expect(c.labels).toEqual(['lost_or_stolen_card', 'top_up_failed', 'transaction_charged_twice']);
    expect(c.curve.at(-1)!).toBeLessThan(c.curve[0]!);
    for (const r of rows) expect(c.predict(r.text)).toBe(r.label);
    expect(c.predict('card stolen yesterday')).toBe('lost_or_stolen_card');
    expect(c.predict('charged twice for coffee')).toBe('transaction_charged_twice');
  });
});
