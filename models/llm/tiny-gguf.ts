/**
 * A tiny random-weight llama-architecture GGUF file, written by hand, for tests and the bench: no
 * download, no weights. Layout per the GGUF v3 spec (ggml's docs/gguf.md): magic `GGUF`, version 3,
 * tensor count (u64), key/value count (u64), the key/values, the tensor infos (name, dims, type,
 * offset), padding to `general.alignment`, then the tensor data, each tensor aligned too.
 *
 * The tokenizer is a SentencePiece-style ("llama") vocabulary: `<unk>`, `<s>`, `</s>`, the 256
 * byte tokens `<0x00>`…`<0xFF>` (so any text tokenizes, by byte fallback), `▁` and the printable
 * ASCII characters as one-character pieces — 354 tokens. The weights are seeded Gaussian noise:
 * the model writes nonsense, which is the point of a grammar test.
 */
import { writeFileSync } from 'node:fs';
import { Rng } from '../../core/random';

/** GGUF metadata value types (gguf.md, `gguf_metadata_value_type`). */
const T = { UINT32: 4, INT32: 5, FLOAT32: 6, STRING: 8, ARRAY: 9 } as const;
/** ggml tensor type F32. */
const GGML_F32 = 0;
const ALIGNMENT = 32;

type Value =
  | { t: 'u32'; v: number }
  | { t: 'f32'; v: number }
  | { t: 'str'; v: string }
  | { t: 'str[]'; v: string[] }
  | { t: 'f32[]'; v: number[] }
  | { t: 'i32[]'; v: number[] };

class Writer {
  private readonly chunks: Buffer[] = [];
  length = 0;
  private push(b: Buffer) {
    this.chunks.push(b);
    this.length += b.length;
  }
  u32(n: number) {
    const b = Buffer.alloc(4);
    b.writeUInt32LE(n);
    this.push(b);
  }
  i32(n: number) {
    const b = Buffer.alloc(4);
    b.writeInt32LE(n);
    this.push(b);
  }
  u64(n: number) {
    const b = Buffer.alloc(8);
    b.writeBigUInt64LE(BigInt(n));
    this.push(b);
  }
  f32(x: number) {
    const b = Buffer.alloc(4);
    b.writeFloatLE(x);
    this.push(b);
  }
  str(s: string) {
    const b = Buffer.from(s, 'utf8');
    this.u64(b.length);
    this.push(b);
  }
  bytes(b: Buffer) {
    this.push(b);
  }
  pad(to: number) {
    const n = (to - (this.length % to)) % to;
    if (n) this.push(Buffer.alloc(n));
  }
  buffer() {
    return Buffer.concat(this.chunks);
  }
}

function writeValue(w: Writer, value: Value) {
  switch (value.t) {
    case 'u32':
      w.u32(T.UINT32);
      w.u32(value.v);
      return;
    case 'f32':
      w.u32(T.FLOAT32);
      w.f32(value.v);
      return;
    case 'str':
      w.u32(T.STRING);
      w.str(value.v);
      return;
    case 'str[]':
      w.u32(T.ARRAY);
      w.u32(T.STRING);
      w.u64(value.v.length);
      value.v.forEach((s) => w.str(s));
      return;
    case 'f32[]':
      w.u32(T.ARRAY);
      w.u32(T.FLOAT32);
      w.u64(value.v.length);
      value.v.forEach((x) => w.f32(x));
      return;
    case 'i32[]':
      w.u32(T.ARRAY);
      w.u32(T.INT32);
      w.u64(value.v.length);
      value.v.forEach((x) => w.i32(x));
      return;
  }
}

export interface TinyGgufOptions {
  layers?: number;
  dim?: number;
  heads?: number;
  ff?: number;
  contextLength?: number;
  seed?: number;
}

/** The tokenizer: pieces, scores and token types (1 normal, 2 unknown, 3 control, 6 byte). */
export function tinyVocab() {
  const tokens = ['<unk>', '<s>', '</s>'];
  const types = [2, 3, 3];
  for (let b = 0; b < 256; b++) {
    tokens.push(`<0x${b.toString(16).toUpperCase().padStart(2, '0')}>`);
    types.push(6);
  }
  tokens.push('▁');
  types.push(1);
  for (let c = 0x21; c < 0x7f; c++) {
    tokens.push(String.fromCharCode(c));
    types.push(1);
  }
  const scores = tokens.map((_, i) => (types[i] === 1 ? -i : 0));
  return { tokens, types, scores };
}

/** Write the file; returns its size in bytes and the vocabulary size. */
export function writeTinyGguf(file: string, opts: TinyGgufOptions = {}): { bytes: number; vocab: number; params: number } {
  const layers = opts.layers ?? 2;
  const dim = opts.dim ?? 64;
  const heads = opts.heads ?? 4;
  // 128 at the default width, as the tiny file always had.
  const ff = opts.ff ?? 2 * dim;
  const ctx = opts.contextLength ?? 8192;
  const rng = new Rng(opts.seed ?? 1);
  const { tokens, types, scores } = tinyVocab();
  const vocab = tokens.length;

  const kv: [string, Value][] = [
    ['general.architecture', { t: 'str', v: 'llama' }],
    ['general.name', { t: 'str', v: 'sparring-tiny-random' }],
    ['general.alignment', { t: 'u32', v: ALIGNMENT }],
    ['llama.context_length', { t: 'u32', v: ctx }],
    ['llama.embedding_length', { t: 'u32', v: dim }],
    ['llama.block_count', { t: 'u32', v: layers }],
    ['llama.feed_forward_length', { t: 'u32', v: ff }],
    ['llama.attention.head_count', { t: 'u32', v: heads }],
    ['llama.attention.head_count_kv', { t: 'u32', v: heads }],
    ['llama.rope.dimension_count', { t: 'u32', v: dim / heads }],
    ['llama.attention.layer_norm_rms_epsilon', { t: 'f32', v: 1e-5 }],
    ['llama.vocab_size', { t: 'u32', v: vocab }],
    ['tokenizer.ggml.model', { t: 'str', v: 'llama' }],
    ['tokenizer.ggml.tokens', { t: 'str[]', v: tokens }],
    ['tokenizer.ggml.scores', { t: 'f32[]', v: scores }],
    ['tokenizer.ggml.token_type', { t: 'i32[]', v: types }],
    ['tokenizer.ggml.unknown_token_id', { t: 'u32', v: 0 }],
    ['tokenizer.ggml.bos_token_id', { t: 'u32', v: 1 }],
    ['tokenizer.ggml.eos_token_id', { t: 'u32', v: 2 }],
  ];

  // Tensor shapes in ggml order (ne0 first): a weight matrix mapping n_in → n_out is [n_in, n_out].
  const tensors: { name: string; dims: number[]; fill: 'ones' | 'noise' }[] = [
    { name: 'token_embd.weight', dims: [dim, vocab], fill: 'noise' },
    { name: 'output_norm.weight', dims: [dim], fill: 'ones' },
    { name: 'output.weight', dims: [dim, vocab], fill: 'noise' },
  ];
  for (let l = 0; l < layers; l++) {
    tensors.push(
      { name: `blk.${l}.attn_norm.weight`, dims: [dim], fill: 'ones' },
      { name: `blk.${l}.attn_q.weight`, dims: [dim, dim], fill: 'noise' },
      { name: `blk.${l}.attn_k.weight`, dims: [dim, dim], fill: 'noise' },
      { name: `blk.${l}.attn_v.weight`, dims: [dim, dim], fill: 'noise' },
      { name: `blk.${l}.attn_output.weight`, dims: [dim, dim], fill: 'noise' },
      { name: `blk.${l}.ffn_norm.weight`, dims: [dim], fill: 'ones' },
      { name: `blk.${l}.ffn_gate.weight`, dims: [dim, ff], fill: 'noise' },
      { name: `blk.${l}.ffn_up.weight`, dims: [dim, ff], fill: 'noise' },
      { name: `blk.${l}.ffn_down.weight`, dims: [ff, dim], fill: 'noise' },
    );
  }

  const w = new Writer();
  w.bytes(Buffer.from('GGUF', 'ascii'));
  w.u32(3);
  w.u64(tensors.length);
  w.u64(kv.length);
  for (const [key, value] of kv) {
    w.str(key);
    writeValue(w, value);
  }
  const datas = tensors.map((t) => {
    const n = t.dims.reduce((a, b) => a * b, 1);
    const f = new Float32Array(n);
    // Box–Muller noise, σ = 0.5: large enough that greedy decoding does not collapse onto one token.
    for (let i = 0; i < n; i++) {
      if (t.fill === 'ones') f[i] = 1;
      else {
        const u = Math.max(rng.next(), 1e-12);
        f[i] = 0.5 * Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * rng.next());
      }
    }
    return Buffer.from(f.buffer);
  });
  let offset = 0;
  tensors.forEach((t, i) => {
    w.str(t.name);
    w.u32(t.dims.length);
    t.dims.forEach((d) => w.u64(d));
    w.u32(GGML_F32);
    w.u64(offset);
    offset += datas[i]!.length;
    offset += (ALIGNMENT - (offset % ALIGNMENT)) % ALIGNMENT;
  });
  w.pad(ALIGNMENT);
  datas.forEach((d) => {
    w.bytes(d);
    w.pad(ALIGNMENT);
  });
  const buf = w.buffer();
  writeFileSync(file, buf);
  const params = datas.reduce((a, d) => a + d.length / 4, 0);
  return { bytes: buf.length, vocab, params };
}
