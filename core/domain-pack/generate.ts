/**
 * The seeded world of a domain pack: the interpreter of world.json's generator. A world is built
 * by running the pack's steps (`initial`, the scenario's situation's `effects`, `final`) against
 * an empty state; every random choice is a draw from the episode's stream, in step order and, in a
 * record, in the listing order of its fields, so the same pack, scenario and seed give the same
 * world. Banking's generator (domains/banking/world.json) draws exactly as `generateWorld` in
 * core/world/backend.ts does: test/world-generator.test.ts proves the states equal and the stream
 * left at the same point for every banking scenario and hundreds of seeds.
 *
 * The small value language here (`ref`, `{param}`, `{switch}`, `{daysAgo}`) is the generator's
 * own; it is not the tool-program expression language.
 */
import { faker } from '@faker-js/faker/locale/en';
import type { Rng } from '../random';
import type { DomainPack, Generator, WorldFile } from './schema';
import { parseStatePath } from './state-path';

/** What a scenario gives the generator: its `setup` (the situation and its parameters) and its persona. */
export interface WorldSpec {
  setup: Readonly<Record<string, string | number | boolean | undefined>>;
  persona?: { readonly name?: string; readonly style?: string };
}

/** One episode's world state: the collections and flags world.json `state` declares, in that order. */
export type PackWorldState = Record<string, unknown>;

type Obj = Record<string, unknown>;
type Effect = WorldFile['initial'][number];
type EffectValue = Extract<Effect, { op: 'set' }>['value'];

const ONE_DAY_MS = 86_400_000;
const WEEKDAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];
const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];

/** The ISO date `days` before `today` (an ISO date). */
export function isoDaysBefore(today: string, days: number): string {
  const d = new Date(`${today}T12:00:00Z`);
  d.setUTCDate(d.getUTCDate() - days);
  return d.toISOString().slice(0, 10);
}

/** How many days before `today` the ISO date `iso` is. */
export function daysBefore(today: string, iso: string): number {
  return Math.round((Date.parse(`${today}T12:00:00Z`) - Date.parse(`${iso}T12:00:00Z`)) / ONE_DAY_MS);
}

/** How a customer says the date of something `days` before `today`: "today", "yesterday", "last Tuesday", "on March 3". */
export function spokenDate(today: string, days: number): string {
  if (days === 0) return 'today';
  if (days === 1) return 'yesterday';
  const d = new Date(`${isoDaysBefore(today, days)}T12:00:00Z`);
  if (days < 7) return `last ${WEEKDAYS[d.getUTCDay()]}`;
  return `on ${MONTHS[d.getUTCMonth()]} ${d.getUTCDate()}`;
}

const round2 = (x: number) => Math.round(x * 100) / 100;
/** A scalar as text (anything else as JSON). */
const scalarText = (v: unknown): string => (typeof v === 'string' ? v : typeof v === 'number' || typeof v === 'boolean' ? String(v) : JSON.stringify(v));
/** A deep copy of a drawn value (JSON data only). */
function copyOf<T>(v: T): T {
  if (v === null || typeof v !== 'object') return v;
  if (Array.isArray(v)) return v.map(copyOf) as T;
  const out: Obj = {};
  for (const k in v) out[k] = copyOf((v as Obj)[k]);
  return out as T;
}

/** A fresh identifier, `prefix_` and a base-36 number (the tools backend issues ids the same way). */
export const drawId = (rng: Rng, prefix: string) => `${prefix}_${rng.int(0x10000000, 0x7fffffff).toString(36)}`;

/** An error of a pack's generator met while building a world (what validation cannot see, such as a missing situation). */
export class WorldGenerationError extends Error {
  constructor(message: string) {
    super(`world.json: ${message}`);
    this.name = 'WorldGenerationError';
  }
}

/**
 * Build the world a scenario asks for, deterministically from `rng` (and the fake-name generator,
 * which the pack's `seed-faker` step seeds from `rng`). `pack` must be validated.
 */
export function generatePackWorld(pack: Pick<DomainPack, 'manifest' | 'world'>, spec: WorldSpec, rng: Rng): PackWorldState {
  const world = pack.world;
  const today = pack.manifest.today;
  const situation = world.situations.find((s) => s.name === spec.setup.situation);
  if (!situation) throw new WorldGenerationError(`no situation "${String(spec.setup.situation)}" (${world.situations.map((s) => s.name).join(', ')})`);

  /** A record's field generators in this situation (overrides keep the field's place in the draw order). */
  const generatorsOf = (record: string): Record<string, Generator> => {
    const r = world.records[record];
    if (!r) throw new WorldGenerationError(`no record "${record}"`);
    return { ...r.fields, ...situation.recordOverrides?.[record] };
  };
  const drawn = new Map<string, Obj | Obj[]>();
  /** The record being drawn, with the fields drawn so far (a field may refer to an earlier one). */
  let current: { name: string; values: Obj } | null = null;

  const resolve = (ref: string): unknown => {
    const [head, ...rest] = ref.split('.');
    let v: unknown;
    if (head === 'setup') return spec.setup[rest.join('.')];
    if (head === 'persona') return (spec.persona as Obj | undefined)?.[rest.join('.')];
    if (current && current.name === head) v = current.values;
    else {
      v = drawn.get(head!);
      if (v === undefined) throw new WorldGenerationError(`"${ref}" refers to record "${head}" before a step draws it`);
      if (Array.isArray(v)) throw new WorldGenerationError(`"${ref}" refers to record "${head}", which draws several`);
    }
    for (const k of rest) v = v === null || v === undefined ? undefined : (v as Obj)[k];
    return v;
  };

  const formatted = (v: unknown, format: 'date-phrase' | 'last4' | 'days-ago' | undefined): unknown => {
    if (v === undefined || v === null || format === undefined) return v;
    switch (format) {
      case 'date-phrase':
        return spokenDate(today, typeof v === 'number' ? v : daysBefore(today, scalarText(v)));
      case 'last4':
        return scalarText(v).replace(/\D/g, '').slice(-4);
      case 'days-ago':
        return typeof v === 'number' ? isoDaysBefore(today, v) : v;
    }
  };

  const draw = (g: Generator, index: number): unknown => {
    switch (g.kind) {
      case 'int':
        return rng.int(g.min, g.max);
      case 'money':
        return round2(rng.int(Math.round(g.min * 100), Math.round(g.max * 100)) / 100);
      case 'pick': {
        const pool: readonly (string | number)[] = world.pools[g.pool] ?? [];
        if (g.excluding === undefined) return rng.pick(pool);
        const not = resolve(g.excluding);
        return rng.pick(pool.filter((x) => x !== not));
      }
      case 'faker':
        return g.method === 'person.fullName' ? faker.person.fullName() : faker.location.city();
      case 'id':
        return drawId(rng, g.prefix);
      case 'format': {
        const parts = g.parts.map((p) => String(rng.int(p.min, p.max)));
        return g.template.replace(/\{(\d+)\}/g, (_, n: string) => parts[Number(n)] ?? '');
      }
      case 'daysAgo':
        return isoDaysBefore(today, (g.step ?? 0) * index + rng.int(g.min, g.max));
      case 'const':
        return g.value;
      case 'ref': {
        // `drawAlways`: the fallback is drawn even when the reference has a value, so later draws stay in step.
        const fallback = g.fallback && g.drawAlways ? draw(g.fallback, index) : undefined;
        const v = formatted(resolve(g.ref), g.format);
        if (v !== undefined) return v;
        if (!g.fallback) return null;
        return g.drawAlways ? fallback : draw(g.fallback, index);
      }
    }
  };

  /** A drawn record: its entity's fields in declaration order (list fields it does not draw start empty), then any others. */
  const drawRecord = (name: string): Obj | Obj[] => {
    const r = world.records[name]!;
    const gens = generatorsOf(name);
    const copies: Obj[] = [];
    for (let i = 0; i < (r.count ?? 1); i++) {
      current = { name, values: {} };
      for (const [field, g] of Object.entries(gens)) current.values[field] = draw(g, i);
      const values = current.values;
      current = null;
      const entity = world.entities[r.entity]?.fields ?? {};
      const out: Obj = {};
      for (const [field, f] of Object.entries(entity)) {
        if (field in values) out[field] = values[field];
        else if (f.type === 'list') out[field] = [];
      }
      for (const [field, v] of Object.entries(values)) if (!(field in out)) out[field] = v;
      copies.push(out);
    }
    return r.count === undefined ? copies[0]! : copies;
  };

  const param = (name: string) => spec.setup[name];
  const value = (v: EffectValue): unknown => {
    if (v === null || typeof v !== 'object') return v;
    if ('param' in v) return param(v.param) ?? v.default;
    if ('ref' in v) return resolve(v.ref);
    if ('record' in v) {
      const r = drawn.get(v.record);
      if (r === undefined) throw new WorldGenerationError(`a step sets record "${v.record}" before a step draws it`);
      return copyOf(r);
    }
    if ('switch' in v) {
      const k = param(v.switch);
      return k !== undefined && Object.hasOwn(v.cases, String(k)) ? v.cases[String(k)] : v.default;
    }
    const d = v.daysAgo;
    if (typeof d === 'number') return isoDaysBefore(today, d);
    if ('param' in d) {
      const days = param(d.param);
      return typeof days === 'number' ? isoDaysBefore(today, days + (d.plus ?? 0)) : undefined;
    }
    const date = resolve(d.ref);
    return typeof date === 'string' ? isoDaysBefore(today, daysBefore(today, date) + (d.plus ?? 0)) : undefined;
  };

  // The state, in declaration order: lists empty, flags false, single entities null until a step sets them.
  const state: Obj = {};
  for (const [k, decl] of Object.entries(world.state)) state[k] = 'flag' in decl ? false : decl.list ? [] : null;

  const at = (path: string, create: 'list' | 'object' | null): { parent: Obj | unknown[]; key: string | number } => {
    const keys = parseStatePath(path);
    let node: unknown = state;
    for (let i = 0; i < keys.length - 1; i++) {
      const k = keys[i]!;
      let next = (node as Obj)[k as string];
      if (next === null || next === undefined) {
        if (!create || typeof k === 'number') throw new WorldGenerationError(`no "${keys.slice(0, i + 1).join('.')}" in the state for "${path}"`);
        next = typeof keys[i + 1] === 'number' ? [] : {};
        (node as Obj)[k] = next;
      }
      node = next;
    }
    return { parent: node as Obj, key: keys[keys.length - 1]! };
  };

  const run = (effect: Effect) => {
    switch (effect.op) {
      case 'seed-faker':
        faker.seed(rng.int(0, 0x7fffffff));
        return;
      case 'draw':
        drawn.set(effect.record, drawRecord(effect.record));
        return;
      case 'add': {
        const { parent, key } = at(effect.to, 'list');
        let list = (parent as Obj)[key as string];
        if (list === null || list === undefined) list = (parent as Obj)[key as string] = [];
        if (!Array.isArray(list)) throw new WorldGenerationError(`"${effect.to}" is not a list`);
        const r = drawn.get(effect.record);
        if (r === undefined) throw new WorldGenerationError(`a step adds record "${effect.record}" before a step draws it`);
        const gens = generatorsOf(effect.record);
        (Array.isArray(r) ? r : [r]).forEach((item, i) => {
          const copy = copyOf(item);
          for (const f of effect.fresh ?? []) copy[f] = draw(gens[f]!, i);
          for (const [f, v] of Object.entries(effect.set ?? {})) {
            const x = value(v);
            if (x !== undefined) copy[f] = x;
          }
          (list as unknown[]).push(copy);
        });
        return;
      }
      case 'set': {
        const x = value(effect.value);
        if (x === undefined) return; // a parameter the scenario does not give, with no default: leave the field
        const { parent, key } = at(effect.path, 'object');
        (parent as Obj)[key as string] = x;
        return;
      }
      case 'sort': {
        const { parent, key } = at(effect.path, null);
        const list = (parent as Obj)[key as string];
        if (!Array.isArray(list)) throw new WorldGenerationError(`"${effect.path}" is not a list`);
        const sign = effect.order === 'asc' ? 1 : -1;
        (list as Obj[]).sort((a, b) => {
          const x = a[effect.by] as string | number;
          const y = b[effect.by] as string | number;
          return x < y ? -sign : x > y ? sign : 0;
        });
        return;
      }
    }
  };

  for (const e of world.initial) run(e);
  for (const e of situation.effects) run(e);
  for (const e of world.final) run(e);

  // Every entity in the state lists its fields in declaration order (a step that set a field later appended it).
  const ordered = (entity: string, v: unknown): unknown => {
    if (Array.isArray(v)) return v.map((x) => ordered(entity, x));
    if (v === null || typeof v !== 'object') return v;
    const fields = world.entities[entity]?.fields ?? {};
    const o = v as Obj;
    const lists = Object.entries(fields).filter(([, f]) => f.type === 'list' && f.entity);
    const keys = Object.keys(o);
    const declared = Object.keys(fields).filter((f) => f in o);
    if (lists.length === 0 && declared.every((f, i) => keys[i] === f)) return o; // already in order
    const out: Obj = {};
    for (const [f, spec] of Object.entries(fields)) {
      if (!(f in o)) continue;
      out[f] = spec.type === 'list' && spec.entity ? ordered(spec.entity, o[f]) : o[f];
    }
    for (const [f, x] of Object.entries(o)) if (!(f in out)) out[f] = x;
    return out;
  };
  for (const [k, decl] of Object.entries(world.state)) if ('entity' in decl) state[k] = ordered(decl.entity, state[k]);
  return state;
}

/**
 * Where a generated state breaks its own declarations: each problem as `path: expected, got …`
 * (a field's type, an enum's values, a list's entity, a `digits` slot's value). Empty for a
 * well-formed world; the tests run it on every pack's worlds.
 */
export function worldStateProblems(world: WorldFile, state: PackWorldState): string[] {
  const out: string[] = [];
  const bad = (path: string, expected: string, v: unknown) => out.push(`${path}: ${expected}, got ${JSON.stringify(v)}`);
  const entity = (name: string, v: unknown, path: string) => {
    if (v === null || typeof v !== 'object' || Array.isArray(v)) return bad(path, `a ${name}`, v);
    for (const [f, spec] of Object.entries(world.entities[name]?.fields ?? {})) {
      const x = (v as Obj)[f];
      const at = `${path}.${f}`;
      if (x === undefined) continue; // a field no step set (tools may add it)
      if (x === null) {
        if (!spec.nullable) bad(at, `a ${spec.type} (the field is not nullable)`, x);
        continue;
      }
      switch (spec.type) {
        case 'id':
        case 'string':
        case 'ref':
          if (typeof x !== 'string') bad(at, 'a string', x);
          break;
        case 'number':
        case 'money':
          if (typeof x !== 'number' || !Number.isFinite(x)) bad(at, 'a number', x);
          else if (spec.type === 'money' && Math.abs(x * 100 - Math.round(x * 100)) > 1e-6) bad(at, 'an amount in whole cents', x);
          break;
        case 'integer':
          if (!Number.isInteger(x)) bad(at, 'an integer', x);
          break;
        case 'boolean':
          if (typeof x !== 'boolean') bad(at, 'a boolean', x);
          break;
        case 'date':
          if (typeof x !== 'string' || !/^\d{4}-\d{2}-\d{2}$/.test(x)) bad(at, 'an ISO date', x);
          break;
        case 'enum':
          if (!spec.values?.includes(x as string)) bad(at, `one of ${spec.values?.join(', ')}`, x);
          break;
        case 'list':
          if (!Array.isArray(x)) bad(at, 'a list', x);
          else if (spec.entity) x.forEach((item, i) => entity(spec.entity!, item, `${at}[${i}]`));
          break;
        case 'object':
          if (typeof x !== 'object' || Array.isArray(x)) bad(at, 'an object', x);
          break;
      }
    }
  };
  for (const [k, decl] of Object.entries(world.state)) {
    const v = state[k];
    if ('flag' in decl) {
      if (typeof v !== 'boolean') bad(k, 'a flag (boolean)', v);
    } else if (decl.list) {
      if (!Array.isArray(v)) bad(k, `a list of ${decl.entity}`, v);
      else v.forEach((item, i) => entity(decl.entity, item, `${k}[${i}]`));
    } else if (v === null) bad(k, `a ${decl.entity} (no step set it)`, v);
    else entity(decl.entity, v, k);
  }
  for (const slot of world.slots) {
    if (slot.format !== 'digits') continue;
    const [en, f] = slot.source.split('.') as [string, string];
    const holder = state[en];
    const v = holder && typeof holder === 'object' && !Array.isArray(holder) ? (holder as Obj)[f] : undefined;
    if (v !== undefined && !/^\d+$/.test(scalarText(v))) bad(slot.source, `digits (slot {${slot.name}})`, v);
  }
  return out;
}
