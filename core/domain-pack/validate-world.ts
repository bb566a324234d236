/**
 * The checks of world.json's generator (records, steps, situations) that its schema cannot make:
 * pools, ranges and template holes exist; a `ref` names a declared scenario parameter, the
 * persona's name or style, or a field of a record drawn before it (in every situation's order of
 * steps); faker is seeded before its first draw; a step's path leads into the state through the
 * declared entities, and a record is added only to a list of its own entity. Each problem names
 * the JSON path in world.json and what was expected; `validatePack` reports them with the rest.
 */
import { parseStatePath } from './state-path';
import type { Generator, WorldFile } from './schema';

type Effect = WorldFile['initial'][number];
type EffectValue = Extract<Effect, { op: 'set' }>['value'];
type FieldSpec = WorldFile['entities'][string]['fields'][string];

/** Where a state path leads: a list of an entity, an entity, a field of a given spec, a flag, anything (inside an `object` field), or nowhere. */
type Place =
  | { kind: 'list'; entity: string }
  | { kind: 'entity'; entity: string }
  | { kind: 'value'; field: FieldSpec }
  | { kind: 'flag' }
  | { kind: 'free' }
  | { kind: 'error'; expected: string };

const PERSONA_FIELDS = ['name', 'style'];
const RESERVED_RECORDS = ['setup', 'persona'];

export function checkWorldGenerator(world: WorldFile, add: (path: string, expected: string) => void): void {
  const seen = new Set<string>();
  /** Problems of steps shared by every situation (initial, final) are reported once. */
  const once = (path: string, expected: string) => {
    const key = `${path}\n${expected}`;
    if (seen.has(key)) return;
    seen.add(key);
    add(path, expected);
  };
  const list = (xs: Iterable<string>) => [...xs].join(', ') || 'none';
  const entities = world.entities;
  const records = world.records;
  const params = new Set(['situation', ...Object.keys(world.setupParams)]);
  const drawnAnywhere = new Set<string>();

  const place = (path: string): Place => {
    const keys = parseStatePath(path);
    if (keys.length === 0 || typeof keys[0] !== 'string') return { kind: 'error', expected: `a path into the state (${list(Object.keys(world.state))})` };
    const decl = world.state[keys[0]];
    if (!decl) return { kind: 'error', expected: `a path into the state (${list(Object.keys(world.state))}), got "${keys[0]}"` };
    let at: Place = 'flag' in decl ? { kind: 'flag' } : decl.list ? { kind: 'list', entity: decl.entity } : { kind: 'entity', entity: decl.entity };
    for (const k of keys.slice(1)) {
      if (at.kind === 'free') break;
      if (typeof k === 'number') {
        if (at.kind !== 'list') return { kind: 'error', expected: `an index [${k}] only after a list (in "${path}")` };
        at = { kind: 'entity', entity: at.entity };
        continue;
      }
      if (at.kind !== 'entity') return { kind: 'error', expected: `a field "${k}" only after an entity (in "${path}")` };
      const field: FieldSpec | undefined = entities[at.entity]?.fields[k];
      if (!field)
        return { kind: 'error', expected: `a field of entity ${at.entity} (${list(Object.keys(entities[at.entity]?.fields ?? {}))}), got "${k}" in "${path}"` };
      at =
        field.type === 'list' && field.entity ? { kind: 'list', entity: field.entity } : field.type === 'object' ? { kind: 'free' } : { kind: 'value', field };
    }
    return at;
  };

  for (const rn of Object.keys(records))
    if (RESERVED_RECORDS.includes(rn)) add(`records.${rn}`, `a record name other than ${RESERVED_RECORDS.join(' and ')} (refs use them)`);

  /** A ref's target, given the records drawn so far and the one being drawn (with the fields before this one). */
  const checkRef = (at: string, ref: string, drawn: ReadonlySet<string>, self?: { record: string; before: readonly string[] }) => {
    const [head, ...rest] = ref.split('.');
    const field = rest.join('.');
    if (head === 'setup') {
      if (!params.has(field)) once(at, `a parameter declared in setupParams (${list(params)}), got "${ref}"`);
      return;
    }
    if (head === 'persona') {
      if (!PERSONA_FIELDS.includes(field)) once(at, `persona.name or persona.style, got "${ref}"`);
      return;
    }
    const r = records[head!];
    if (!r) return once(at, `setup.X, persona.X or record.field with a record of world.json (${list(Object.keys(records))}), got "${ref}"`);
    const first = rest[0];
    if (first === undefined || !(first in r.fields)) return once(at, `a field record ${head} draws (${list(Object.keys(r.fields))}), got "${ref}"`);
    if (r.count !== undefined) return once(at, `a record that draws one copy ("${head}" draws ${r.count})`);
    if (self && self.record === head) {
      if (!self.before.includes(first)) once(at, `a field listed before this one in record ${head} (fields draw in listing order), got "${ref}"`);
    } else if (!drawn.has(head!)) once(at, `a record a step draws before this point ("${head}" is not drawn yet)`);
  };

  /** One generator at `at`; `faker`: whether the fake-name generator is seeded by now. */
  const checkGenerator = (at: string, g: Generator, drawn: ReadonlySet<string>, faker: boolean, self?: { record: string; before: readonly string[] }) => {
    switch (g.kind) {
      case 'int':
      case 'money':
      case 'daysAgo':
        if (g.min > g.max) once(`${at}.max`, `at least min (${g.min})`);
        return;
      case 'pick':
        if (!(g.pool in world.pools)) once(`${at}.pool`, `a pool of world.json (${list(Object.keys(world.pools))})`);
        if (g.excluding !== undefined) checkRef(`${at}.excluding`, g.excluding, drawn, self);
        return;
      case 'faker':
        if (!faker) once(at, 'a seed-faker step before the first faker draw (an unseeded fake name differs from run to run)');
        return;
      case 'format': {
        g.parts.forEach((p, j) => p.min > p.max && once(`${at}.parts[${j}].max`, `at least min (${p.min})`));
        for (const m of g.template.matchAll(/\{(\d+)\}/g))
          if (Number(m[1]) >= g.parts.length) once(`${at}.template`, `holes {0}…{${g.parts.length - 1}} (one per part), got {${m[1]}}`);
        return;
      }
      case 'ref':
        checkRef(`${at}.ref`, g.ref, drawn, self);
        if (g.fallback) checkGenerator(`${at}.fallback`, g.fallback, drawn, faker, self);
        if (g.drawAlways && !g.fallback) once(`${at}.drawAlways`, 'a fallback to draw (drawAlways draws it)');
        return;
      case 'id':
      case 'const':
        return;
    }
  };

  const checkValue = (at: string, v: EffectValue, drawn: ReadonlySet<string>) => {
    if (v === null || typeof v !== 'object') return;
    if ('param' in v) {
      if (!params.has(v.param)) once(`${at}.param`, `a parameter declared in setupParams (${list(params)}), got "${v.param}"`);
    } else if ('ref' in v) checkRef(`${at}.ref`, v.ref, drawn);
    else if ('record' in v) {
      if (!(v.record in records)) once(`${at}.record`, `a record of world.json (${list(Object.keys(records))}), got "${v.record}"`);
      else if (!drawn.has(v.record)) once(`${at}.record`, `a record a step draws before this point ("${v.record}" is not drawn yet)`);
    } else if ('switch' in v) {
      if (!params.has(v.switch)) once(`${at}.switch`, `a parameter declared in setupParams (${list(params)}), got "${v.switch}"`);
    } else if (typeof v.daysAgo === 'object') {
      if ('param' in v.daysAgo) {
        if (!params.has(v.daysAgo.param)) once(`${at}.daysAgo.param`, `a parameter declared in setupParams (${list(params)}), got "${v.daysAgo.param}"`);
      } else checkRef(`${at}.daysAgo.ref`, v.daysAgo.ref, drawn);
    }
  };

  /** A date field drawn from a number-of-days parameter must say so (`format: days-ago`), else the state holds a number. */
  const checkFieldKind = (at: string, rn: string, fn: string, g: Generator) => {
    const field = entities[records[rn]?.entity ?? '']?.fields[fn];
    if (field?.type !== 'date' || g.kind !== 'ref' || !g.ref.startsWith('setup.') || g.format === 'days-ago') return;
    const param = world.setupParams[g.ref.slice('setup.'.length)];
    const types = param?.type === undefined ? [] : Array.isArray(param.type) ? param.type : [param.type];
    if (types.includes('integer') || types.includes('number')) once(`${at}.format`, `"days-ago" (${g.ref} is a number of days; ${rn}.${fn} is a date)`);
  };

  /** Run the steps of one situation in order, as the generator does, checking each against what is drawn by then. */
  const walk = (situation: WorldFile['situations'][number], si: number) => {
    const drawn = new Set<string>();
    let faker = false;
    const generatorsOf = (rn: string): [string, Generator, string][] => {
      const own = records[rn]?.fields ?? {};
      const over = situation.recordOverrides?.[rn] ?? {};
      return Object.keys({ ...own, ...over }).map((fn) =>
        fn in over ? [fn, over[fn]!, `situations[${si}].recordOverrides.${rn}.${fn}`] : [fn, own[fn]!, `records.${rn}.fields.${fn}`],
      );
    };
    const steps: [Effect, string][] = [
      ...world.initial.map((e, j): [Effect, string] => [e, `initial[${j}]`]),
      ...situation.effects.map((e, j): [Effect, string] => [e, `situations[${si}].effects[${j}]`]),
      ...world.final.map((e, j): [Effect, string] => [e, `final[${j}]`]),
    ];
    for (const [e, at] of steps) {
      switch (e.op) {
        case 'seed-faker':
          faker = true;
          break;
        case 'draw': {
          if (!(e.record in records)) {
            once(`${at}.record`, `a record of world.json (${list(Object.keys(records))})`);
            break;
          }
          const before: string[] = [];
          for (const [fn, g, gat] of generatorsOf(e.record)) {
            checkGenerator(gat, g, drawn, faker, { record: e.record, before });
            checkFieldKind(gat, e.record, fn, g);
            before.push(fn);
          }
          drawn.add(e.record);
          drawnAnywhere.add(e.record);
          break;
        }
        case 'add': {
          const r = records[e.record];
          if (!r) {
            once(`${at}.record`, `a record of world.json (${list(Object.keys(records))})`);
            break;
          }
          if (!drawn.has(e.record)) once(`${at}.record`, `a record a step draws before this point ("${e.record}" is not drawn yet)`);
          const p = place(e.to);
          if (p.kind === 'error') once(`${at}.to`, p.expected);
          else if (p.kind !== 'list' && p.kind !== 'free') once(`${at}.to`, `a list in the state, got "${e.to}"`);
          else if (p.kind === 'list' && p.entity !== r.entity)
            once(`${at}.to`, `a list of ${r.entity} (record ${e.record}'s entity), got a list of ${p.entity}`);
          e.fresh?.forEach((f, j) => !(f in r.fields) && once(`${at}.fresh[${j}]`, `a field record ${e.record} draws (${list(Object.keys(r.fields))})`));
          for (const [f, v] of Object.entries(e.set ?? {})) {
            if (!(f in (entities[r.entity]?.fields ?? {})))
              once(`${at}.set.${f}`, `a field of entity ${r.entity} (${list(Object.keys(entities[r.entity]?.fields ?? {}))})`);
            checkValue(`${at}.set.${f}`, v, drawn);
          }
          break;
        }
        case 'set': {
          const p = place(e.path);
          if (p.kind === 'error') once(`${at}.path`, p.expected);
          else if (p.kind === 'list') once(`${at}.path`, `a field or entity to set (use an add step to append to the list "${e.path}")`);
          checkValue(`${at}.value`, e.value, drawn);
          const v = e.value;
          if (p.kind === 'entity' && v && typeof v === 'object' && 'record' in v && records[v.record] && records[v.record]!.entity !== p.entity)
            once(`${at}.value.record`, `a record of entity ${p.entity}, got "${v.record}" (${records[v.record]!.entity})`);
          break;
        }
        case 'sort': {
          const p = place(e.path);
          if (p.kind === 'error') once(`${at}.path`, p.expected);
          else if (p.kind !== 'list') once(`${at}.path`, `a list in the state, got "${e.path}"`);
          else if (!(e.by in (entities[p.entity]?.fields ?? {})))
            once(`${at}.by`, `a field of entity ${p.entity} (${list(Object.keys(entities[p.entity]?.fields ?? {}))})`);
          break;
        }
      }
    }
  };

  world.situations.forEach((s, i) => {
    for (const [rn, fields] of Object.entries(s.recordOverrides ?? {})) {
      const r = records[rn];
      if (!r) add(`situations[${i}].recordOverrides.${rn}`, `a record of world.json (${list(Object.keys(records))})`);
      else
        for (const fn of Object.keys(fields))
          if (!(fn in r.fields)) add(`situations[${i}].recordOverrides.${rn}.${fn}`, `a field record ${rn} draws (${list(Object.keys(r.fields))})`);
    }
    walk(s, i);
  });
  // A record no situation's steps draw is still checked on its own (pools, ranges, refs' targets).
  const all = new Set(Object.keys(records));
  for (const [rn, r] of Object.entries(records)) {
    if (drawnAnywhere.has(rn)) continue;
    const before: string[] = [];
    for (const [fn, g] of Object.entries(r.fields)) {
      checkGenerator(`records.${rn}.fields.${fn}`, g, all, true, { record: rn, before });
      checkFieldKind(`records.${rn}.fields.${fn}`, rn, fn, g);
      before.push(fn);
    }
  }
}
