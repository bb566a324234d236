/**
 * The expression language of tool programs (tools.json `program`): a small, safe language over
 * plain JSON values, parsed once and interpreted (no `eval`, no `Function`, no access to anything
 * but the values it is given and the built-in functions below).
 *
 *   literals      12  0.005  'text'  "text"  true  false  null  [a, b]  { key: v, [expr]: v }
 *   names         args  state  params  and the names a program binds (`let`, `find`, lambda parameters)
 *   access        a.b  a[expr]          a missing field reads as null; own fields only
 *   operators     !x  -x  * / %  + -  < <= > >=  == !=  &&  ||  ??  c ? a : b
 *   lambdas       t => expr             only as the function argument of filter/map/find/some/every/count/sum
 *   functions     lower alnum digits includes len abs round min max fixed str
 *                 filter map find some every count sum flat slice copy newId
 *
 * Conditions (`!`, `&&`, `||`, `?:`, a predicate's value) must be booleans, `==` is strict equality
 * (no coercion; lists and objects by identity), `+` adds two numbers or joins two strings, and
 * comparisons take two numbers or two strings: a program that breaks these stops with a
 * `ProgramError` naming the step, never with a coerced value.
 */

export type Value = null | boolean | number | string | Value[] | { [key: string]: Value } | Lambda;
export interface Lambda {
  readonly lambda: true;
  call(arg: Value): Value;
}

export type Expr =
  | { k: 'lit'; v: null | boolean | number | string; at: number }
  | { k: 'var'; name: string; at: number }
  | { k: 'get'; obj: Expr; key: Expr; at: number }
  | { k: 'call'; fn: string; args: Expr[]; at: number }
  | { k: 'lambda'; param: string; body: Expr; at: number }
  | { k: 'un'; op: '!' | '-'; x: Expr; at: number }
  | { k: 'bin'; op: BinOp; a: Expr; b: Expr; at: number }
  | { k: 'cond'; c: Expr; a: Expr; b: Expr; at: number }
  | { k: 'arr'; items: Expr[]; at: number }
  | { k: 'obj'; entries: { key: Expr; value: Expr }[]; at: number };
type BinOp = '*' | '/' | '%' | '+' | '-' | '<' | '<=' | '>' | '>=' | '==' | '!=' | '&&' | '||' | '??';

/** A syntax error: the message and the 1-based column it was found at. */
export class ExprSyntaxError extends Error {
  constructor(
    message: string,
    readonly column: number,
  ) {
    super(`${message} at column ${column}`);
    this.name = 'ExprSyntaxError';
  }
}

/** A program that misbehaved at run time (a pack's bug, not the caller's): a wrong type, a missing value. */
export class ProgramError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ProgramError';
  }
}

// ------------------------------------------------------------------------------ tokens

type Tok = { t: 'num'; v: number; at: number } | { t: 'str'; v: string; at: number } | { t: 'id'; v: string; at: number } | { t: 'op'; v: string; at: number };

const OPS = ['=>', '==', '!=', '<=', '>=', '&&', '||', '??', '(', ')', '[', ']', '{', '}', ',', '.', ':', '?', '!', '<', '>', '+', '-', '*', '/', '%'];

function tokenize(src: string): Tok[] {
  const out: Tok[] = [];
  let i = 0;
  while (i < src.length) {
    const c = src[i]!;
    if (/\s/.test(c)) {
      i++;
      continue;
    }
    const at = i;
    if (/[0-9]/.test(c)) {
      const m = /^(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?/.exec(src.slice(i))!;
      i += m[0].length;
      if (i < src.length && /[A-Za-z_0-9]/.test(src[i]!)) throw new ExprSyntaxError(`bad number "${src.slice(at, i + 1)}"`, at + 1);
      out.push({ t: 'num', v: Number(m[0]), at });
      continue;
    }
    if (c === "'" || c === '"') {
      let s = '';
      i++;
      for (;;) {
        if (i >= src.length) throw new ExprSyntaxError('unterminated string', at + 1);
        const d = src[i]!;
        if (d === c) break;
        if (d === '\\') {
          const e = src[i + 1];
          if (e === undefined) throw new ExprSyntaxError('unterminated string', at + 1);
          s += e === 'n' ? '\n' : e === 't' ? '\t' : e;
          i += 2;
        } else {
          s += d;
          i++;
        }
      }
      i++;
      out.push({ t: 'str', v: s, at });
      continue;
    }
    if (/[A-Za-z_]/.test(c)) {
      const m = /^[A-Za-z_][A-Za-z0-9_]*/.exec(src.slice(i))!;
      i += m[0].length;
      out.push({ t: 'id', v: m[0], at });
      continue;
    }
    const op = OPS.find((o) => src.startsWith(o, i));
    if (!op) throw new ExprSyntaxError(`unexpected character "${c}"`, at + 1);
    i += op.length;
    out.push({ t: 'op', v: op, at });
  }
  return out;
}

// ------------------------------------------------------------------------------ parser

const KEYWORDS: Record<string, null | boolean> = { true: true, false: false, null: null };
/** Keys a program may never read or write (they reach a JavaScript object's machinery). */
const FORBIDDEN_KEYS = new Set(['__proto__', 'constructor', 'prototype']);

/** Parse an expression; throws `ExprSyntaxError`. */
export function parseExpr(src: string): Expr {
  const toks = tokenize(src);
  let p = 0;
  const peek = () => toks[p];
  const end = src.length;
  const isOp = (v: string, k = 0) => {
    const t = toks[p + k];
    return t?.t === 'op' && t.v === v;
  };
  const expect = (v: string) => {
    const t = toks[p];
    if (t?.t !== 'op' || t.v !== v)
      throw new ExprSyntaxError(`expected "${v}"${t ? ` but found "${String(t.v)}"` : ' but the expression ended'}`, (t?.at ?? end) + 1);
    p++;
  };

  const expr = (): Expr => {
    const t = peek();
    if (t?.t === 'id' && isOp('=>', 1)) {
      p += 2;
      return { k: 'lambda', param: t.v, body: expr(), at: t.at };
    }
    return conditional();
  };
  const conditional = (): Expr => {
    const c = binary(0);
    if (!isOp('?')) return c;
    const at = peek()!.at;
    p++;
    const a = expr();
    expect(':');
    const b = expr();
    return { k: 'cond', c, a, b, at };
  };
  const LEVELS: BinOp[][] = [['??'], ['||'], ['&&'], ['==', '!='], ['<', '<=', '>', '>='], ['+', '-'], ['*', '/', '%']];
  const binary = (level: number): Expr => {
    if (level === LEVELS.length) return unary();
    let a = binary(level + 1);
    for (;;) {
      const t = peek();
      if (t?.t !== 'op' || !(LEVELS[level] as string[]).includes(t.v)) return a;
      p++;
      const b = binary(level + 1);
      a = { k: 'bin', op: t.v as BinOp, a, b, at: t.at };
    }
  };
  const unary = (): Expr => {
    const t = peek();
    if (t?.t === 'op' && (t.v === '!' || t.v === '-')) {
      p++;
      return { k: 'un', op: t.v, x: unary(), at: t.at };
    }
    return postfix();
  };
  const postfix = (): Expr => {
    let x = primary();
    for (;;) {
      const t = peek();
      if (t?.t !== 'op') return x;
      if (t.v === '.') {
        p++;
        const k = peek();
        if (k?.t !== 'id') throw new ExprSyntaxError('expected a field name after "."', (k?.at ?? end) + 1);
        p++;
        x = { k: 'get', obj: x, key: { k: 'lit', v: k.v, at: k.at }, at: t.at };
      } else if (t.v === '[') {
        p++;
        const key = expr();
        expect(']');
        x = { k: 'get', obj: x, key, at: t.at };
      } else if (t.v === '(') {
        throw new ExprSyntaxError('only a built-in function can be called (name(...))', t.at + 1);
      } else return x;
    }
  };
  const list = (close: string, item: () => void) => {
    if (isOp(close)) {
      p++;
      return;
    }
    for (;;) {
      item();
      if (isOp(',')) {
        p++;
        continue;
      }
      expect(close);
      return;
    }
  };
  const primary = (): Expr => {
    const t = peek();
    if (!t) throw new ExprSyntaxError('the expression ended early', end + 1);
    p++;
    if (t.t === 'num' || t.t === 'str') return { k: 'lit', v: t.v, at: t.at };
    if (t.t === 'id') {
      if (t.v in KEYWORDS) return { k: 'lit', v: KEYWORDS[t.v]!, at: t.at };
      if (isOp('(')) {
        p++;
        const args: Expr[] = [];
        list(')', () => args.push(expr()));
        return { k: 'call', fn: t.v, args, at: t.at };
      }
      return { k: 'var', name: t.v, at: t.at };
    }
    if (t.v === '(') {
      const x = expr();
      expect(')');
      return x;
    }
    if (t.v === '[') {
      const items: Expr[] = [];
      list(']', () => items.push(expr()));
      return { k: 'arr', items, at: t.at };
    }
    if (t.v === '{') {
      const entries: { key: Expr; value: Expr }[] = [];
      list('}', () => {
        const k = peek();
        let key: Expr;
        if (k?.t === 'id' || k?.t === 'str') {
          p++;
          key = { k: 'lit', v: k.v, at: k.at };
        } else if (k?.t === 'op' && k.v === '[') {
          p++;
          key = expr();
          expect(']');
        } else throw new ExprSyntaxError('expected a field name, a quoted name or [expression]', (k?.at ?? end) + 1);
        expect(':');
        entries.push({ key, value: expr() });
      });
      return { k: 'obj', entries, at: t.at };
    }
    throw new ExprSyntaxError(`unexpected "${t.v}"`, t.at + 1);
  };

  const x = expr();
  if (p < toks.length) throw new ExprSyntaxError(`unexpected "${String(toks[p]!.v)}" after the expression`, toks[p]!.at + 1);
  return x;
}

// ------------------------------------------------------------------------------ built-in functions

/** What a program gives its expressions beyond their values: the world's fresh-id draw. */
export interface ExprContext {
  newId(prefix: string): string;
}

const typeName = (v: Value | undefined): string =>
  v === null || v === undefined ? 'null' : Array.isArray(v) ? 'a list' : typeof v === 'object' ? ('lambda' in v ? 'a function' : 'an object') : `a ${typeof v}`;

function want<T>(fn: string, ok: boolean, v: Value, what: string): T {
  if (!ok) throw new ProgramError(`${fn}() expects ${what}, got ${typeName(v)}`);
  return v as T;
}
const str = (fn: string, v: Value) => want<string>(fn, typeof v === 'string', v, 'text');
const num = (fn: string, v: Value) => want<number>(fn, typeof v === 'number', v, 'a number');
const list = (fn: string, v: Value) => want<Value[]>(fn, Array.isArray(v), v, 'a list');
const lambda = (fn: string, v: Value) => want<Lambda>(fn, v !== null && typeof v === 'object' && 'lambda' in v, v, 'a lambda (x => ...)');
const pred = (fn: string, f: Lambda, x: Value) => {
  const r = f.call(x);
  if (typeof r !== 'boolean') throw new ProgramError(`${fn}()'s lambda must give true or false, got ${typeName(r)}`);
  return r;
};
const int = (fn: string, v: Value) => want<number>(fn, typeof v === 'number' && Number.isInteger(v), v, 'a whole number');

function deepCopy(v: Value): Value {
  if (v === null || typeof v !== 'object') return v;
  if (Array.isArray(v)) return v.map(deepCopy);
  if ('lambda' in v) throw new ProgramError('copy() cannot copy a function');
  const out: Record<string, Value> = {};
  for (const [k, x] of Object.entries(v)) out[k] = deepCopy(x);
  return out;
}

interface Builtin {
  /** Fewest and most arguments. */
  arity: [number, number];
  /** Which arguments are lambdas (and must be). */
  lambdas?: number[];
  fn: (args: Value[], ctx: ExprContext) => Value;
  doc: string;
}

export const BUILTINS: Record<string, Builtin> = {
  lower: { arity: [1, 1], fn: ([s]) => str('lower', s!).toLowerCase(), doc: 'lower(s): lower case' },
  alnum: {
    arity: [1, 1],
    fn: ([s]) => str('alnum', s!).replace(/[^a-z0-9]/g, ''),
    doc: 'alnum(s): only the characters a–z and 0–9 (lower(s) first to keep capitals)',
  },
  digits: { arity: [1, 1], fn: ([s]) => str('digits', s!).replace(/\D/g, ''), doc: 'digits(s): only the digits' },
  includes: {
    arity: [2, 2],
    fn: ([a, b]) => (Array.isArray(a) ? a.includes(b!) : str('includes', a!).includes(str('includes', b!))),
    doc: 'includes(text, part) or includes(list, value)',
  },
  len: {
    arity: [1, 1],
    fn: ([x]) => (Array.isArray(x) ? x.length : str('len', x!).length),
    doc: 'len(list or text)',
  },
  abs: { arity: [1, 1], fn: ([x]) => Math.abs(num('abs', x!)), doc: 'abs(x)' },
  round: {
    arity: [2, 2],
    fn: ([x, d]) => {
      const f = 10 ** int('round', d!);
      return Math.round(num('round', x!) * f) / f;
    },
    doc: 'round(x, decimals): to the nearest (round(x, 2): to the cent)',
  },
  min: { arity: [2, 2], fn: ([a, b]) => Math.min(num('min', a!), num('min', b!)), doc: 'min(a, b)' },
  max: { arity: [2, 2], fn: ([a, b]) => Math.max(num('max', a!), num('max', b!)), doc: 'max(a, b)' },
  fixed: { arity: [2, 2], fn: ([x, d]) => num('fixed', x!).toFixed(int('fixed', d!)), doc: 'fixed(x, decimals): the number as text, "12.50"' },
  str: {
    arity: [1, 1],
    fn: ([x]) => {
      if (x !== null && typeof x === 'object') throw new ProgramError(`str() expects a number, text, true/false or null, got ${typeName(x)}`);
      return String(x);
    },
    doc: 'str(x): a number, true/false or null as text',
  },
  filter: {
    arity: [2, 2],
    lambdas: [1],
    fn: ([l, f]) => list('filter', l!).filter((x) => pred('filter', lambda('filter', f!), x)),
    doc: 'filter(list, x => cond)',
  },
  map: { arity: [2, 2], lambdas: [1], fn: ([l, f]) => list('map', l!).map((x) => lambda('map', f!).call(x)), doc: 'map(list, x => value)' },
  find: {
    arity: [2, 2],
    lambdas: [1],
    fn: ([l, f]) => list('find', l!).find((x) => pred('find', lambda('find', f!), x)) ?? null,
    doc: 'find(list, x => cond): the first match, or null',
  },
  some: { arity: [2, 2], lambdas: [1], fn: ([l, f]) => list('some', l!).some((x) => pred('some', lambda('some', f!), x)), doc: 'some(list, x => cond)' },
  every: { arity: [2, 2], lambdas: [1], fn: ([l, f]) => list('every', l!).every((x) => pred('every', lambda('every', f!), x)), doc: 'every(list, x => cond)' },
  count: {
    arity: [2, 2],
    lambdas: [1],
    fn: ([l, f]) => list('count', l!).filter((x) => pred('count', lambda('count', f!), x)).length,
    doc: 'count(list, x => cond)',
  },
  sum: {
    arity: [2, 2],
    lambdas: [1],
    fn: ([l, f]) => list('sum', l!).reduce<number>((a, x) => a + num('sum', lambda('sum', f!).call(x)), 0),
    doc: 'sum(list, x => number)',
  },
  flat: {
    arity: [1, 1],
    fn: ([l]) => list('flat', l!).flatMap((x) => list('flat', x)),
    doc: 'flat(list of lists): one list',
  },
  slice: {
    arity: [2, 3],
    fn: ([l, a, b]) => list('slice', l!).slice(int('slice', a!), b === undefined ? undefined : int('slice', b)),
    doc: 'slice(list, start, end?)',
  },
  copy: { arity: [1, 1], fn: ([x]) => deepCopy(x!), doc: 'copy(x): a deep copy (a result never shares objects with the state)' },
  newId: {
    arity: [1, 1],
    fn: ([p], ctx) => ctx.newId(str('newId', p!)),
    doc: "newId(prefix): a fresh id drawn from the world's stream, prefix_xxxxxx",
  },
};

// ------------------------------------------------------------------------------ static check

/** What names an expression may use. */
export interface ExprScope {
  vars: ReadonlySet<string>;
  /** Fields a value of this name has (`args` → the argument names), where known: `args.x` must be one. */
  fields?: ReadonlyMap<string, ReadonlySet<string>>;
}

/** Every problem of a parsed expression against the names in scope (unknown names, functions, arities, misplaced lambdas). */
export function checkExpr(e: Expr, scope: ExprScope): string[] {
  const out: string[] = [];
  const walk = (x: Expr, vars: ReadonlySet<string>, lambdaOk = false): void => {
    switch (x.k) {
      case 'lit':
        return;
      case 'var':
        if (!vars.has(x.name)) out.push(`unknown name "${x.name}" at column ${x.at + 1} (known here: ${[...vars].join(', ')})`);
        return;
      case 'get': {
        if (x.key.k === 'lit' && typeof x.key.v === 'string' && FORBIDDEN_KEYS.has(x.key.v)) out.push(`field "${x.key.v}" is not allowed`);
        if (x.obj.k === 'var' && x.key.k === 'lit' && typeof x.key.v === 'string') {
          const known = scope.fields?.get(x.obj.name);
          if (known && !known.has(x.key.v) && vars.has(x.obj.name))
            out.push(`"${x.obj.name}" has no field "${x.key.v}" (fields: ${[...known].join(', ') || 'none'})`);
        }
        walk(x.obj, vars);
        walk(x.key, vars);
        return;
      }
      case 'call': {
        const b = BUILTINS[x.fn];
        if (!b) {
          out.push(`unknown function "${x.fn}" at column ${x.at + 1} (functions: ${Object.keys(BUILTINS).join(', ')})`);
          return;
        }
        const [lo, hi] = b.arity;
        if (x.args.length < lo || x.args.length > hi)
          out.push(`${x.fn}() takes ${lo === hi ? lo : `${lo} to ${hi}`} argument${hi === 1 ? '' : 's'}, got ${x.args.length} (${b.doc})`);
        x.args.forEach((a, i) => {
          const isLambdaArg = b.lambdas?.includes(i) ?? false;
          if (isLambdaArg && a.k !== 'lambda') out.push(`argument ${i + 1} of ${x.fn}() must be a lambda (${b.doc})`);
          walk(a, vars, isLambdaArg);
        });
        return;
      }
      case 'lambda':
        if (!lambdaOk) out.push(`a lambda (${x.param} => ...) is only allowed as the function argument of filter, map, find, some, every, count or sum`);
        walk(x.body, new Set([...vars, x.param]));
        return;
      case 'un':
        return walk(x.x, vars);
      case 'bin':
        walk(x.a, vars);
        return walk(x.b, vars);
      case 'cond':
        walk(x.c, vars);
        walk(x.a, vars);
        return walk(x.b, vars);
      case 'arr':
        return x.items.forEach((i) => walk(i, vars));
      case 'obj':
        return x.entries.forEach((en) => {
          if (en.key.k === 'lit' && typeof en.key.v === 'string' && FORBIDDEN_KEYS.has(en.key.v)) out.push(`field "${en.key.v}" is not allowed`);
          walk(en.key, vars);
          walk(en.value, vars);
        });
    }
  };
  walk(e, scope.vars);
  return out;
}

// ------------------------------------------------------------------------------ evaluation

/** Names and their values; a lambda's parameter shadows the program's names. */
export type Env = ReadonlyMap<string, Value>;

const isRecord = (v: Value): v is { [key: string]: Value } => v !== null && typeof v === 'object' && !Array.isArray(v) && !('lambda' in v);

function bool(v: Value, what: string): boolean {
  if (typeof v !== 'boolean') throw new ProgramError(`${what} must be true or false, got ${typeName(v)}`);
  return v;
}

/** `obj[key]` as a program reads it: own fields only, a missing one is null. */
export function readField(obj: Value, key: Value): Value {
  if (Array.isArray(obj)) {
    if (typeof key !== 'number' || !Number.isInteger(key)) throw new ProgramError(`a list is indexed by a whole number, got ${typeName(key)}`);
    return obj[key] ?? null;
  }
  if (!isRecord(obj)) throw new ProgramError(`cannot read field ${JSON.stringify(key)} of ${typeName(obj)}`);
  if (typeof key !== 'string') throw new ProgramError(`a field name is text, got ${typeName(key)}`);
  if (FORBIDDEN_KEYS.has(key)) throw new ProgramError(`field "${key}" is not allowed`);
  return Object.prototype.hasOwnProperty.call(obj, key) ? (obj[key] ?? null) : null;
}

/** `obj[key] = value` as a program writes it. */
export function writeField(obj: Value, key: Value, value: Value): void {
  if (Array.isArray(obj)) {
    if (typeof key !== 'number' || !Number.isInteger(key) || key < 0 || key >= obj.length)
      throw new ProgramError(`a list item is set by an index inside the list, got ${JSON.stringify(key)}`);
    obj[key] = value;
    return;
  }
  if (!isRecord(obj)) throw new ProgramError(`cannot set field ${JSON.stringify(key)} of ${typeName(obj)}`);
  if (typeof key !== 'string') throw new ProgramError(`a field name is text, got ${typeName(key)}`);
  if (FORBIDDEN_KEYS.has(key)) throw new ProgramError(`field "${key}" is not allowed`);
  obj[key] = value;
}

/** Evaluate a parsed expression. */
export function evaluate(e: Expr, env: Env, ctx: ExprContext): Value {
  switch (e.k) {
    case 'lit':
      return e.v;
    case 'var': {
      if (!env.has(e.name)) throw new ProgramError(`"${e.name}" has no value here`);
      return env.get(e.name)!;
    }
    case 'get':
      return readField(evaluate(e.obj, env, ctx), evaluate(e.key, env, ctx));
    case 'call': {
      const b = BUILTINS[e.fn];
      if (!b) throw new ProgramError(`unknown function "${e.fn}"`);
      return b.fn(
        e.args.map((a) => evaluate(a, env, ctx)),
        ctx,
      );
    }
    case 'lambda':
      return {
        lambda: true,
        call: (arg: Value) => evaluate(e.body, new Map([...env, [e.param, arg]]), ctx),
      };
    case 'un': {
      const v = evaluate(e.x, env, ctx);
      if (e.op === '!') return !bool(v, 'the operand of !');
      if (typeof v !== 'number') throw new ProgramError(`the operand of - must be a number, got ${typeName(v)}`);
      return -v;
    }
    case 'bin': {
      if (e.op === '&&') return bool(evaluate(e.a, env, ctx), 'the left of &&') && bool(evaluate(e.b, env, ctx), 'the right of &&');
      if (e.op === '||') return bool(evaluate(e.a, env, ctx), 'the left of ||') || bool(evaluate(e.b, env, ctx), 'the right of ||');
      if (e.op === '??') {
        const a = evaluate(e.a, env, ctx);
        return a === null ? evaluate(e.b, env, ctx) : a;
      }
      const a = evaluate(e.a, env, ctx);
      const b = evaluate(e.b, env, ctx);
      if (e.op === '==') return a === b;
      if (e.op === '!=') return a !== b;
      if (e.op === '+') {
        if (typeof a === 'number' && typeof b === 'number') return a + b;
        if (typeof a === 'string' && typeof b === 'string') return a + b;
        throw new ProgramError(`+ takes two numbers or two texts, got ${typeName(a)} and ${typeName(b)}`);
      }
      if (e.op === '<' || e.op === '<=' || e.op === '>' || e.op === '>=') {
        if (!((typeof a === 'number' && typeof b === 'number') || (typeof a === 'string' && typeof b === 'string')))
          throw new ProgramError(`${e.op} compares two numbers or two texts, got ${typeName(a)} and ${typeName(b)}`);
        return e.op === '<' ? a < b : e.op === '<=' ? a <= b : e.op === '>' ? a > b : a >= b;
      }
      if (typeof a !== 'number' || typeof b !== 'number') throw new ProgramError(`${e.op} takes two numbers, got ${typeName(a)} and ${typeName(b)}`);
      return e.op === '*' ? a * b : e.op === '/' ? a / b : e.op === '%' ? a % b : a - b;
    }
    case 'cond':
      return bool(evaluate(e.c, env, ctx), 'the condition of ?:') ? evaluate(e.a, env, ctx) : evaluate(e.b, env, ctx);
    case 'arr':
      return e.items.map((i) => evaluate(i, env, ctx));
    case 'obj': {
      const out: Record<string, Value> = {};
      for (const en of e.entries) {
        const k = evaluate(en.key, env, ctx);
        if (typeof k !== 'string' && typeof k !== 'number') throw new ProgramError(`a field name is text, got ${typeName(k)}`);
        const key = String(k);
        if (FORBIDDEN_KEYS.has(key)) throw new ProgramError(`field "${key}" is not allowed`);
        out[key] = evaluate(en.value, env, ctx);
      }
      return out;
    }
  }
}

// ------------------------------------------------------------------------------ message templates

/** A message template: text with `{expression}` holes (`{{` and `}}` are literal braces). */
export type Template = (string | Expr)[];

/** Parse a template; throws `ExprSyntaxError` (columns count in the whole template). */
export function parseTemplate(src: string): Template {
  const out: Template = [];
  let text = '';
  let i = 0;
  while (i < src.length) {
    const c = src[i]!;
    if (c === '{' && src[i + 1] === '{') {
      text += '{';
      i += 2;
    } else if (c === '}' && src[i + 1] === '}') {
      text += '}';
      i += 2;
    } else if (c === '{') {
      let depth = 1;
      let j = i + 1;
      let quote: string | null = null;
      for (; j < src.length && depth > 0; j++) {
        const d = src[j]!;
        if (quote) {
          if (d === '\\') j++;
          else if (d === quote) quote = null;
        } else if (d === "'" || d === '"') quote = d;
        else if (d === '{') depth++;
        else if (d === '}') depth--;
      }
      if (depth > 0) throw new ExprSyntaxError('a "{" hole is not closed', i + 1);
      if (text) out.push(text);
      text = '';
      try {
        out.push(parseExpr(src.slice(i + 1, j - 1)));
      } catch (e) {
        if (e instanceof ExprSyntaxError) throw new ExprSyntaxError(e.message.replace(/ at column \d+$/, ''), i + 1 + e.column);
        throw e;
      }
      i = j;
    } else if (c === '}') {
      throw new ExprSyntaxError('a "}" without its "{" (write }} for a brace)', i + 1);
    } else {
      text += c;
      i++;
    }
  }
  if (text) out.push(text);
  return out;
}

/** Fill a template's holes (each a number, text, true/false or null). */
export function renderTemplate(t: Template, env: Env, ctx: ExprContext): string {
  return t
    .map((part) => {
      if (typeof part === 'string') return part;
      const v = evaluate(part, env, ctx);
      if (v !== null && typeof v === 'object') throw new ProgramError(`a message hole must give a number, text, true/false or null, got ${typeName(v)}`);
      return String(v);
    })
    .join('');
}
