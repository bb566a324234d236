/**
 * The tool programs' expression language (expr.ts): what it computes, that it refuses to coerce,
 * that it reaches nothing but the values it is given, and where its syntax errors are.
 */
import { describe, expect, it } from 'vitest';
import { ExprSyntaxError, ProgramError, checkExpr, evaluate, parseExpr, parseTemplate, renderTemplate } from './expr';
import type { Value } from './expr';
import { argumentCheck } from './tool-arguments';

const ctx = { newId: (p: string) => `${p}_1` };
const run = (src: string, vars: Record<string, Value> = {}) => evaluate(parseExpr(src), new Map(Object.entries(vars)), ctx);

describe('expressions', () => {
  it('compute with the usual precedence, strings, lists, objects and lambdas', () => {
    expect(run('1 + 2 * 3 - 4 / 2')).toBe(5);
    expect(run('round(0.1 + 0.2, 2)')).toBe(0.3);
    expect(run('fixed(12.5, 2)')).toBe('12.50');
    expect(run('alnum(lower("Trader Joe\'s #12"))')).toBe('traderjoes12');
    expect(run("digits('+1 555 123 4567')")).toBe('15551234567');
    expect(run('x ?? 5', { x: null })).toBe(5);
    expect(run('x > 2 ? "big" : "small"', { x: 3 })).toBe('big');
    expect(run('map(filter(xs, t => t.n % 2 == 0), t => t.n * 10)', { xs: [{ n: 1 }, { n: 2 }, { n: 4 }] })).toEqual([20, 40]);
    expect(run('{ a: 1, [k]: [k, len(k)], "q r": null }', { k: 'key' })).toEqual({ a: 1, key: ['key', 3], 'q r': null });
    expect(run('find(xs, x => x > 5)', { xs: [1, 2] })).toBeNull();
    expect(run('count(xs, x => includes(x, "a")) == 2 && some(xs, x => x == "b") && !every(xs, x => x == "a")', { xs: ['a', 'ab', 'b'] })).toBe(true);
    expect(run('o.missing', { o: {} })).toBeNull();
    expect(run('slice(xs, 1)[0]', { xs: [1, 2, 3] })).toBe(2);
    expect(run("newId('dsp')")).toBe('dsp_1');
  });

  it('refuse to coerce: conditions are booleans, + and < take like with like', () => {
    expect(() => run('1 && true')).toThrow(ProgramError);
    expect(() => run('x ? 1 : 2', { x: 'yes' })).toThrow(/condition of \?:/);
    expect(() => run("1 + '1'")).toThrow(/two numbers or two texts/);
    expect(() => run("2 < '10'")).toThrow(ProgramError);
    expect(() => run('filter(xs, x => x)', { xs: [1] })).toThrow(/true or false/);
    expect(run("1 == '1'")).toBe(false);
    expect(() => run('o.a.b', { o: {} })).toThrow(/cannot read field "b" of null/);
  });

  it('reach nothing outside their values: no prototype fields, no calling values, no globals', () => {
    expect(() => run('o.__proto__', { o: {} })).toThrow(/not allowed/);
    expect(() => run("o['constructor']", { o: {} })).toThrow(/not allowed/);
    expect(run('o.toString', { o: {} })).toBeNull();
    expect(() => run('process')).toThrow(/has no value/);
    expect(() => parseExpr('o.f(1)')).toThrow(/only a built-in function can be called/);
    expect(checkExpr(parseExpr('eval("1")'), { vars: new Set() })).toEqual([expect.stringMatching(/^unknown function "eval"/)]);
    expect(checkExpr(parseExpr('x => 1'), { vars: new Set() })[0]).toMatch(/only allowed as the function argument/);
    expect(checkExpr(parseExpr('map(xs, 3)'), { vars: new Set(['xs']) })[0]).toMatch(/must be a lambda/);
    expect(checkExpr(parseExpr('args.nope + y'), { vars: new Set(['args']), fields: new Map([['args', new Set(['a'])]]) })).toEqual([
      expect.stringMatching(/"args" has no field "nope"/),
      expect.stringMatching(/unknown name "y"/),
    ]);
  });

  it('report syntax errors with their column', () => {
    const col = (src: string) => {
      try {
        parseExpr(src);
        return null;
      } catch (e) {
        return (e as ExprSyntaxError).column;
      }
    };
    expect(col('a +')).toBe(4);
    expect(col('a + )')).toBe(5);
    expect(col("'open")).toBe(1);
    expect(col('a b')).toBe(3);
    expect(col('1x')).toBe(1);
    expect(col('{ 3: 1 }')).toBe(3);
  });

  it('fill message templates', () => {
    const t = parseTemplate('{len(xs)} charges match; balance {fixed(b, 2)} {{literal}}');
    expect(
      renderTemplate(
        t,
        new Map<string, Value>([
          ['xs', [1, 2]],
          ['b', 5],
        ]),
        ctx,
      ),
    ).toBe('2 charges match; balance 5.00 {literal}');
    expect(() => parseTemplate('no card {args.card_id')).toThrow(/not closed at column 9/);
    expect(() => parseTemplate('a } b')).toThrow(ExprSyntaxError);
  });
});

describe('argument checks from a JSON Schema', () => {
  it('word refusals as the engine does, first problem first', () => {
    const check = argumentCheck({
      type: 'object',
      properties: {
        period: { type: 'string', pattern: '^\\d{4}-\\d{2}$' },
        amount: { type: 'number', exclusiveMinimum: 0, maximum: 100, 'x-maxDecimals': 2 },
        n: { type: 'integer', minimum: 1 },
        mode: { type: 'string', enum: ['a', 'b'] },
      },
      required: ['mode'],
      additionalProperties: false,
    });
    const msg = (args: unknown) => {
      const r = check(args);
      return r.ok ? 'ok' : r.message;
    };
    expect(msg({ mode: 'a', period: '2026-03', amount: 1.25, n: 2 })).toBe('ok');
    expect(msg({ mode: 'a', period: 'March' })).toBe('period: does not have the required form');
    expect(msg({ mode: 'a', amount: 1.255 })).toBe('amount: at most 2 decimals');
    expect(msg({ mode: 'a', amount: 0 })).toBe('amount: must be more than 0');
    expect(msg({ mode: 'a', n: 1.5 })).toBe('n: must be a whole number');
    expect(msg({})).toBe('mode: must be one of "a", "b"'); // zod says so of a missing enum too (banking's reason)
    expect(msg({ mode: 'c' })).toBe('mode: must be one of "a", "b"');
    expect(msg({ mode: 'a', x: 1 })).toBe('(arguments): has unknown field "x"');
    expect(msg(null)).toBe('(arguments): must be a set of fields (an object)');
  });
});
