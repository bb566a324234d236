/**
 * A minimal WebAssembly binary writer: enough to emit a few numeric kernels as bytes from TS,
 * with nothing downloaded or assembled outside this file. A module imports one memory
 * (`env.memory`) and exports functions built with `FnBuilder`, whose methods are the instructions
 * they emit (names as in the WebAssembly text format, `f32x4_mul` for `f32x4.mul`).
 *
 * Float arithmetic in WebAssembly is IEEE 754 single or double precision with round-to-nearest
 * and no flush-to-zero, scalar and SIMD alike, so a kernel written here gets the same bits as
 * the same operations in float32 anywhere else.
 */

// The WebAssembly JS API members used here: neither the ES2023 lib nor @types/node declares them.
export interface WasmMemory {
  readonly buffer: ArrayBuffer;
  grow(pages: number): number;
}
/** A compiled module (opaque here). */
export type WasmModule = { readonly __wasmModule: unique symbol };
declare const WebAssembly: {
  Memory: new (d: { initial: number }) => WasmMemory;
  Module: new (bytes: Uint8Array) => WasmModule;
  Instance: new (m: WasmModule, imports: Record<string, Record<string, unknown>>) => { exports: Record<string, unknown> };
};

/** Bytes of a WebAssembly page, the unit of a memory's size. */
export const WASM_PAGE = 65536;

/** A memory of `pages` pages (it may grow). */
export function wasmMemory(pages: number): WasmMemory {
  return new WebAssembly.Memory({ initial: pages });
}

/** Compiles a module (synchronously: the kernels here are a few hundred bytes). */
export function compileWasm(bytes: Uint8Array): WasmModule {
  return new WebAssembly.Module(bytes);
}

/** An instance of `module` on `memory` (its `env.memory` import); returns its exports. */
export function instantiateWasm<E>(module: WasmModule, memory: WasmMemory): E {
  return new WebAssembly.Instance(module, { env: { memory } }).exports as E;
}

export type ValType = 'i32' | 'f32' | 'v128';
const VALTYPE: Record<ValType, number> = { i32: 0x7f, f32: 0x7d, v128: 0x7b };

function uleb(n: number, out: number[]): void {
  do {
    let b = n & 0x7f;
    n >>>= 7;
    if (n !== 0) b |= 0x80;
    out.push(b);
  } while (n !== 0);
}

function sleb(n: number, out: number[]): void {
  for (;;) {
    const b = n & 0x7f;
    n >>= 7;
    if ((n === 0 && (b & 0x40) === 0) || (n === -1 && (b & 0x40) !== 0)) {
      out.push(b);
      return;
    }
    out.push(b | 0x80);
  }
}

function name(s: string, out: number[]): void {
  const bytes = new TextEncoder().encode(s);
  uleb(bytes.length, out);
  out.push(...bytes);
}

/** The body of one function: its parameters and locals by name, and the instructions emitted so far. */
export class FnBuilder {
  readonly code: number[] = [];
  private readonly index = new Map<string, number>();
  private readonly types: ValType[] = [];
  private readonly extra: ValType[] = [];

  constructor(
    readonly name: string,
    readonly params: readonly (readonly [string, ValType])[],
  ) {
    for (const [n, t] of params) this.declare(n, t);
  }

  private declare(n: string, t: ValType): void {
    if (this.index.has(n)) throw new Error(`wasm function '${this.name}': '${n}' declared twice`);
    this.index.set(n, this.types.length);
    this.types.push(t);
  }

  /** Declares locals (zero-initialised). */
  locals(t: ValType, ...names: string[]): this {
    for (const n of names) {
      this.declare(n, t);
      this.extra.push(t);
    }
    return this;
  }

  private at(n: string): number {
    const i = this.index.get(n);
    if (i === undefined) throw new Error(`wasm function '${this.name}': no local '${n}'`);
    return i;
  }

  private op(...bytes: number[]): this {
    this.code.push(...bytes);
    return this;
  }

  private simd(opcode: number, ...imm: number[]): this {
    this.code.push(0xfd);
    uleb(opcode, this.code);
    this.code.push(...imm);
    return this;
  }

  private memarg(opcode: number, align: number): this {
    return this.op(opcode, align, 0);
  }

  /** local.get / local.set / local.tee of a named local. */
  private local(opcode: 0x20 | 0x21 | 0x22, n: string): this {
    this.op(opcode);
    uleb(this.at(n), this.code);
    return this;
  }
  get(n: string): this {
    return this.local(0x20, n);
  }
  set(n: string): this {
    return this.local(0x21, n);
  }
  tee(n: string): this {
    return this.local(0x22, n);
  }
  i32_const(v: number): this {
    this.op(0x41);
    sleb(v | 0, this.code);
    return this;
  }

  // Control: structured blocks whose body is a callback; `br_if(0)` leaves a block or repeats a loop.
  block(body: () => void): this {
    this.op(0x02, 0x40);
    body();
    return this.op(0x0b);
  }
  loop(body: () => void): this {
    this.op(0x03, 0x40);
    body();
    return this.op(0x0b);
  }
  br_if(depth: number): this {
    this.op(0x0d);
    uleb(depth, this.code);
    return this;
  }

  /**
   * `for (i = from; i < to; i += step) body()`, with `i`, `to` locals (i32, unsigned compare),
   * `from` a local or a constant and `step` a constant. Inside `body`, `br_if(0)` skips to the
   * next iteration.
   */
  forRange(i: string, from: number | string, to: string, step: number, body: () => void): this {
    if (typeof from === 'number') this.i32_const(from);
    else this.get(from);
    this.set(i);
    return this.block(() => {
      this.get(i).get(to).i32_ge_u().br_if(0);
      this.loop(() => {
        this.block(body);
        this.get(i).i32_const(step).i32_add().tee(i).get(to).i32_lt_u().br_if(0);
      });
    });
  }

  i32_add(): this {
    return this.op(0x6a);
  }
  i32_mul(): this {
    return this.op(0x6c);
  }
  i32_and(): this {
    return this.op(0x71);
  }
  i32_eq(): this {
    return this.op(0x46);
  }
  i32_lt_u(): this {
    return this.op(0x49);
  }
  i32_ge_u(): this {
    return this.op(0x4f);
  }
  i32_load(): this {
    return this.memarg(0x28, 2);
  }
  f32_load(): this {
    return this.memarg(0x2a, 2);
  }
  f32_store(): this {
    return this.memarg(0x38, 2);
  }
  f32_add(): this {
    return this.op(0x92);
  }
  f32_sub(): this {
    return this.op(0x93);
  }
  f32_mul(): this {
    return this.op(0x94);
  }
  f32_div(): this {
    return this.op(0x95);
  }
  f32_sqrt(): this {
    return this.op(0x91);
  }
  /** memory.copy (bulk memory): [dst, src, n] → copies n bytes. */
  memory_copy(): this {
    return this.op(0xfc, 0x0a, 0x00, 0x00);
  }

  v128_load(): this {
    return this.simd(0x00, 4, 0);
  }
  v128_store(): this {
    return this.simd(0x0b, 4, 0);
  }
  f32x4_splat(): this {
    return this.simd(0x13);
  }
  f32x4_sqrt(): this {
    return this.simd(0xe3);
  }
  f32x4_add(): this {
    return this.simd(0xe4);
  }
  f32x4_sub(): this {
    return this.simd(0xe5);
  }
  f32x4_mul(): this {
    return this.simd(0xe6);
  }
  f32x4_div(): this {
    return this.simd(0xe7);
  }

  /** The function's code entry: locals and body. */
  encode(): number[] {
    const body: number[] = [];
    // Locals as runs of one type.
    const runs: [number, ValType][] = [];
    for (const t of this.extra) {
      const last = runs.at(-1);
      if (last && last[1] === t) last[0]++;
      else runs.push([1, t]);
    }
    uleb(runs.length, body);
    for (const [n, t] of runs) {
      uleb(n, body);
      body.push(VALTYPE[t]);
    }
    body.push(...this.code, 0x0b);
    const out: number[] = [];
    uleb(body.length, out);
    out.push(...body);
    return out;
  }
}

function section(id: number, contents: number[], out: number[]): void {
  out.push(id);
  uleb(contents.length, out);
  out.push(...contents);
}

/** A module importing `env.memory` and exporting `fns` (no results) under their names. */
export function wasmModule(fns: readonly FnBuilder[]): Uint8Array {
  const out = [0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00];
  const types: number[] = [];
  uleb(fns.length, types);
  for (const f of fns) {
    types.push(0x60);
    uleb(f.params.length, types);
    for (const [, t] of f.params) types.push(VALTYPE[t]);
    types.push(0x00);
  }
  section(1, types, out);
  const imports: number[] = [1];
  name('env', imports);
  name('memory', imports);
  imports.push(0x02, 0x00, 0x01); // memory, limits: min 1 page, no max
  section(2, imports, out);
  const funcs: number[] = [];
  uleb(fns.length, funcs);
  fns.forEach((_, i) => uleb(i, funcs));
  section(3, funcs, out);
  const exports: number[] = [];
  uleb(fns.length, exports);
  fns.forEach((f, i) => {
    name(f.name, exports);
    exports.push(0x00);
    uleb(i, exports);
  });
  section(7, exports, out);
  const code: number[] = [];
  uleb(fns.length, code);
  for (const f of fns) code.push(...f.encode());
  section(10, code, out);
  return Uint8Array.from(out);
}
