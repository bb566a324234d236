/**
 * Running a pack's tools: the generic executor that takes the place of a hand-written backend.
 * A call goes through the same gates as banking's `executeTool` (core/world/backend.ts), in the
 * same order, with the same wording:
 *   1. an unknown tool → UNKNOWN_TOOL `no tool named "<tool>"`;
 *   2. arguments checked against the tool's JSON Schema (tool-arguments.ts) → INVALID_ARGUMENTS `<field>: <rule>`;
 *   3. preconditions (`requires` a state flag) → their error and message;
 *   4. the tool's `program` (schema.ts `ProgramStep`, expressions in expr.ts) against the world
 *      state (plain JSON, changed in place) with `args`, `state` and `params` in scope, which
 *      fails with a typed error or returns the result.
 * Fresh ids come from the episode's stream exactly as the backend draws them (`freshId`), in
 * the order the program asks for them.
 */
import { ExprSyntaxError, ProgramError, checkExpr, evaluate, parseExpr, parseTemplate, renderTemplate, writeField } from './expr';
import type { Expr, ExprContext, Template, Value } from './expr';
import { argumentCheck, argumentSchemaProblems } from './tool-arguments';
import type { ArgumentCheck } from './tool-arguments';
import type { PackTool, ProgramStep, ToolsFile } from './schema';

/** What a tool call gives back (the transcript's `ToolResult`, with any error code). */
export type PackToolResult = { ok: true; tool: string; data: Record<string, unknown> } | { ok: false; tool: string; error: { code: string; message: string } };

/** The draws a program needs from the episode's stream. */
export interface IdStream {
  int(lo: number, hi: number): number;
}

/** A fresh record id, `prefix_` and a base-36 number: the draw `generateWorld` and the backend make. */
export function freshId(rng: IdStream, prefix: string): string {
  return `${prefix}_${rng.int(0x10000000, 0x7fffffff).toString(36)}`;
}

type Compiled =
  | { op: 'let'; name: string; value: Expr }
  | { op: 'find'; name: string; in: Expr; where: Expr; error: string; message: Template }
  | { op: 'fail'; if: Expr | null; error: string; message: Template }
  | { op: 'set'; obj: Expr; key: Expr; value: Expr }
  | { op: 'append'; to: Expr; value: Expr }
  | { op: 'when'; if: Expr; then: Compiled[]; else: Compiled[] }
  | { op: 'return'; value: Expr };

/** One problem of a program: the JSON path below the tool (`program[3].value`) and what was expected. */
export interface ProgramProblem {
  path: string;
  expected: string;
}

/** What a program may name: the state's top-level names (world.json `state`), when known. */
export interface ProgramContext {
  stateNames?: ReadonlySet<string>;
  /** Error codes tools.json lists (`errorCodes`). */
  errorCodes?: ReadonlySet<string>;
}

/**
 * Parse and check a tool's program: every expression parses, names only what is in scope
 * (`args`, `state`, `params`, earlier `let`/`find` names, lambda parameters), `args.x` is an
 * argument, `state.x` a state name, `params.x` a parameter, errors are listed in the tool's
 * `errors` (or preconditions) and in `errorCodes`, `set` paths end in a field, and the program
 * ends with `return` with no step after a `return`.
 */
export function compileProgram(tool: PackTool, ctx: ProgramContext = {}): { ok: true; steps: Compiled[] } | { ok: false; problems: ProgramProblem[] } {
  const problems: ProgramProblem[] = [];
  const add = (path: string, expected: string) => problems.push({ path, expected });
  if (!tool.program) return { ok: false, problems: [{ path: 'program', expected: 'a program (the tool cannot run without one)' }] };
  const fields = new Map<string, ReadonlySet<string>>([
    ['args', new Set(Object.keys(tool.arguments.properties ?? {}))],
    ['params', new Set(Object.keys(tool.parameters ?? {}))],
  ]);
  if (ctx.stateNames) fields.set('state', ctx.stateNames);
  const declared = new Set([...tool.errors.map((e) => e.code), ...tool.preconditions.map((p) => p.error)]);
  const vars = new Set(['args', 'state', 'params']);

  const expr = (src: string, path: string, extra: string[] = []): Expr => {
    try {
      const e = parseExpr(src);
      const scope = extra.length ? new Set([...vars, ...extra]) : vars;
      for (const p of checkExpr(e, { vars: scope, fields })) add(path, `${p}`);
      return e;
    } catch (err) {
      if (err instanceof ExprSyntaxError) add(path, `an expression (${err.message})`);
      else throw err;
      return { k: 'lit', v: null, at: 0 };
    }
  };
  const template = (src: string, path: string): Template => {
    try {
      const t = parseTemplate(src);
      for (const part of t) if (typeof part !== 'string') for (const p of checkExpr(part, { vars, fields })) add(path, p);
      return t;
    } catch (err) {
      if (err instanceof ExprSyntaxError) add(path, `a message with {expression} holes (${err.message})`);
      else throw err;
      return [src];
    }
  };
  const errorCode = (c: string, path: string) => {
    if (!declared.has(c)) add(path, `an error listed in the tool's errors or preconditions (${[...declared].join(', ') || 'none'}), got "${c}"`);
    else if (ctx.errorCodes && !ctx.errorCodes.has(c)) add(path, `an error code listed in errorCodes, got "${c}"`);
  };

  const block = (steps: ProgramStep[], path: string): Compiled[] => {
    const out: Compiled[] = [];
    steps.forEach((s, i) => {
      const at = `${path}[${i}]`;
      if (i > 0 && steps[i - 1]!.op === 'return') add(at, 'no step after a return');
      switch (s.op) {
        case 'let':
          out.push({ op: 'let', name: s.name, value: expr(s.value, `${at}.value`) });
          if (vars.has(s.name) && ['args', 'state', 'params'].includes(s.name)) add(`${at}.name`, `a name other than args, state and params`);
          vars.add(s.name);
          return;
        case 'find': {
          if (['args', 'state', 'params'].includes(s.name)) add(`${at}.name`, `a name other than args, state and params`);
          const list = expr(s.in, `${at}.in`);
          const where = expr(s.where, `${at}.where`, [s.name]);
          errorCode(s.error, `${at}.error`);
          const message = template(s.message, `${at}.message`);
          out.push({ op: 'find', name: s.name, in: list, where, error: s.error, message });
          vars.add(s.name);
          return;
        }
        case 'fail':
          errorCode(s.error, `${at}.error`);
          out.push({ op: 'fail', if: s.if === undefined ? null : expr(s.if, `${at}.if`), error: s.error, message: template(s.message, `${at}.message`) });
          return;
        case 'set': {
          const target = expr(s.path, `${at}.path`);
          if (target.k !== 'get') add(`${at}.path`, 'a field to set: a name followed by .field or [expression]');
          else if (rootName(target) === 'args' || rootName(target) === 'params') add(`${at}.path`, 'a field of the state (args and params cannot change)');
          const value = expr(s.value, `${at}.value`);
          if (target.k === 'get') out.push({ op: 'set', obj: target.obj, key: target.key, value });
          return;
        }
        case 'append':
          out.push({ op: 'append', to: expr(s.to, `${at}.to`), value: expr(s.value, `${at}.value`) });
          return;
        case 'when': {
          const cond = expr(s.if, `${at}.if`);
          out.push({ op: 'when', if: cond, then: block(s.then, `${at}.then`), else: s.else ? block(s.else, `${at}.else`) : [] });
          return;
        }
        case 'return':
          out.push({ op: 'return', value: expr(s.value, `${at}.value`) });
          return;
      }
    });
    return out;
  };
  const steps = block(tool.program, 'program');
  if (tool.program[tool.program.length - 1]!.op !== 'return') add(`program[${tool.program.length - 1}]`, 'a return as the last step');
  for (const p of argumentSchemaProblems(tool.arguments)) add(`arguments${p.path ? `.${p.path}` : ''}`, p.expected);
  return problems.length ? { ok: false, problems } : { ok: true, steps };
}

function rootName(e: Expr): string | null {
  while (e.k === 'get') e = e.obj;
  return e.k === 'var' ? e.name : null;
}

/** How a program ended: its result, or a typed error it raised. */
type Outcome = { returned: Value } | { failed: { code: string; message: string } };

function run(steps: Compiled[], env: Map<string, Value>, ctx: ExprContext): Outcome | null {
  const cond = (e: Expr, what: string) => {
    const v = evaluate(e, env, ctx);
    if (typeof v !== 'boolean') throw new ProgramError(`${what} must be true or false, got ${JSON.stringify(v)}`);
    return v;
  };
  for (const s of steps) {
    switch (s.op) {
      case 'let':
        env.set(s.name, evaluate(s.value, env, ctx));
        break;
      case 'find': {
        const list = evaluate(s.in, env, ctx);
        if (!Array.isArray(list)) throw new ProgramError(`find's "in" must be a list`);
        const where = (x: Value) => {
          const v = evaluate(s.where, new Map([...env, [s.name, x]]), ctx);
          if (typeof v !== 'boolean') throw new ProgramError(`find's "where" must be true or false, got ${JSON.stringify(v)}`);
          return v;
        };
        const hit = list.find(where);
        if (hit === undefined) return { failed: { code: s.error, message: renderTemplate(s.message, env, ctx) } };
        env.set(s.name, hit);
        break;
      }
      case 'fail':
        if (s.if === null || cond(s.if, "fail's if")) return { failed: { code: s.error, message: renderTemplate(s.message, env, ctx) } };
        break;
      case 'set':
        writeField(evaluate(s.obj, env, ctx), evaluate(s.key, env, ctx), evaluate(s.value, env, ctx));
        break;
      case 'append': {
        const to = evaluate(s.to, env, ctx);
        if (!Array.isArray(to)) throw new ProgramError(`append's "to" must be a list`);
        to.push(evaluate(s.value, env, ctx));
        break;
      }
      case 'when': {
        const out = run(cond(s.if, "when's if") ? s.then : s.else, env, ctx);
        if (out) return out;
        break;
      }
      case 'return':
        return { returned: evaluate(s.value, env, ctx) };
    }
  }
  return null;
}

/** A pack's tools, ready to run. */
export interface ToolExecutor {
  /** Run one tool call against the world state (changed in place). Never throws for bad caller input; a misbehaving program throws `ProgramError`. */
  execute(state: Record<string, unknown>, tool: string, args: Record<string, unknown>, rng: IdStream): PackToolResult;
  /** The error a call gets before its program runs (unknown tool, bad arguments, a precondition), or null. */
  refuse(state: Record<string, unknown>, tool: string, args: Record<string, unknown>): PackToolResult | null;
}

interface ReadyTool {
  tool: PackTool;
  check: ArgumentCheck;
  steps: Compiled[];
}

/** Compile every tool of a pack; throws with every problem (file-relative paths) when one cannot run. */
export function toolExecutor(file: ToolsFile, ctx: ProgramContext = {}): ToolExecutor {
  const ready = new Map<string, ReadyTool>();
  const problems: string[] = [];
  file.tools.forEach((tool, i) => {
    const c = compileProgram(tool, ctx);
    if (!c.ok) problems.push(...c.problems.map((p) => `tools.json: tools[${i}].${p.path}: ${p.expected}`));
    else ready.set(tool.name, { tool, check: argumentCheck(tool.arguments), steps: c.steps });
  });
  if (problems.length) throw new Error(`the pack's tools cannot run:\n${problems.join('\n')}`);

  /** The gates before a program: the refusal, or the tool and its parsed arguments. */
  const gate = (state: Record<string, unknown>, name: string, args: Record<string, unknown>) => {
    const t = ready.get(name);
    if (!t) return { refused: { ok: false, tool: name, error: { code: 'UNKNOWN_TOOL', message: `no tool named "${name}"` } } as PackToolResult };
    const parsed = t.check(args);
    if (!parsed.ok) return { refused: { ok: false, tool: name, error: { code: 'INVALID_ARGUMENTS', message: parsed.message } } as PackToolResult };
    for (const p of t.tool.preconditions)
      if (state[p.requires] !== true) return { refused: { ok: false, tool: name, error: { code: p.error, message: p.message } } as PackToolResult };
    return { tool: t, args: parsed.data };
  };

  return {
    refuse: (state, name, args) => gate(state, name, args).refused ?? null,
    execute(state, name, args, rng) {
      const g = gate(state, name, args);
      if (g.refused) return g.refused;
      const t = g.tool;
      const env = new Map<string, Value>([
        ['args', g.args as Value],
        ['state', state as Value],
        ['params', t.tool.parameters ?? {}],
      ]);
      const ctx: ExprContext = { newId: (prefix) => freshId(rng, prefix) };
      let out: Outcome | null;
      try {
        out = run(t.steps, env, ctx);
      } catch (e) {
        if (e instanceof ProgramError) throw new ProgramError(`${name}: ${e.message}`);
        throw e;
      }
      if (out === null) throw new ProgramError(`${name}: the program ended without a return`);
      if ('failed' in out) return { ok: false, tool: name, error: out.failed };
      const v = out.returned;
      if (v === null || typeof v !== 'object' || Array.isArray(v)) throw new ProgramError(`${name}: the result must be an object`);
      return { ok: true, tool: name, data: v as Record<string, unknown> };
    },
  };
}
