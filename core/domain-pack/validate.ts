/**
 * Validation of a domain pack: each file against its schema, then the references across files
 * (an intent's goal tool exists and is a goal tool, a scenario's intents route to its expected
 * tool, `{slot}`s name declared slots whose source is an entity field, the judge's fields exist
 * in the tools' result schemas, …). Every problem is reported at once, each naming the file, the
 * JSON path inside it and what was expected. Core does no I/O: a host reads the folder.
 */
import type { z } from 'zod';
import { checkValue, resolveFieldPath } from './json-schema';
import { compileProgram } from './tool-program';
import { DIRECTNESS, PACK_FILES, PACK_FILE_SCHEMAS, SCENARIO_SETS } from './schema';
import { checkWorldGenerator } from './validate-world';
import type { DomainPack, JsonSchemaNode, PackFileName, ScenarioFile } from './schema';

/** One problem of a pack: the file (relative to the pack folder), the JSON path in it, what was expected. */
export interface PackProblem {
  file: string;
  path: string;
  expected: string;
}

/** The texts of a pack folder, by path relative to it (`pack.json`, `scenarios/arena.json`). */
export type PackTexts = ReadonlyMap<string, string>;

/** Utterances an arena intent needs at least, and every other intent. */
export const MIN_ARENA_UTTERANCES = 20;
export const MIN_OTHER_UTTERANCES = 8;

/** A JSON path as people read it: `tools[2].arguments.properties.amount`. */
export function jsonPath(path: readonly PropertyKey[]): string {
  return path
    .map((p) => (typeof p === 'number' ? `[${p}]` : /^[A-Za-z_$][A-Za-z0-9_$]*$/.test(String(p)) ? `.${String(p)}` : `[${JSON.stringify(String(p))}]`))
    .join('')
    .replace(/^\./, '');
}

/** `problem` as one line: `file: path: expected`. */
export function formatProblem(p: PackProblem): string {
  return `${p.file}: ${p.path ? `${p.path}: ` : ''}${p.expected}`;
}

export class PackError extends Error {
  constructor(readonly problems: readonly PackProblem[]) {
    super(`${problems.length} problem${problems.length === 1 ? '' : 's'} in the domain pack:\n${problems.map(formatProblem).join('\n')}`);
    this.name = 'PackError';
  }
}

const SLOT_RE = /\{([a-z_0-9]+)\}/g;
const slotsOf = (s: string) => [...s.matchAll(SLOT_RE)].map((m) => m[1]!);

function compiles(pattern: string, flags: string): string | null {
  try {
    new RegExp(pattern, flags);
    return null;
  } catch (e) {
    return (e as Error).message;
  }
}

/**
 * Validate a pack's texts. Returns the parsed pack when there is no problem; otherwise every
 * problem found (schema ones for each file, cross-file ones for the files that parsed).
 */
export function validatePack(texts: PackTexts): { ok: true; pack: DomainPack } | { ok: false; problems: PackProblem[] } {
  const problems: PackProblem[] = [];
  const add = (file: string, path: string, expected: string) => problems.push({ file, path, expected });

  const parse = <T>(file: string, schema: z.ZodType<T>): T | undefined => {
    const text = texts.get(file);
    if (text === undefined) {
      add(file, '', 'the file is missing');
      return undefined;
    }
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (e) {
      add(file, '', `valid JSON (${(e as Error).message})`);
      return undefined;
    }
    const r = schema.safeParse(value);
    if (!r.success) {
      for (const issue of r.error.issues) add(file, jsonPath(issue.path), issue.message);
      return undefined;
    }
    return r.data;
  };

  const parsed: Partial<Record<PackFileName, unknown>> = {};
  for (const f of PACK_FILES) parsed[f] = parse(f, PACK_FILE_SCHEMAS[f] as z.ZodType<unknown>);
  const scenarioFiles: { file: string; data: ScenarioFile }[] = [];
  for (const set of SCENARIO_SETS) {
    const file = `scenarios/${set}.json`;
    if (!texts.has(file)) {
      if (set !== 'robustness') add(file, '', `the ${set} scenario file is missing`);
      continue;
    }
    const data = parse(file, PACK_FILE_SCHEMAS['scenarios.json']);
    if (!data) continue;
    if (data.set !== set) add(file, 'set', `"${set}" (the file's name)`);
    scenarioFiles.push({ file, data });
  }
  for (const file of texts.keys()) {
    const known = (PACK_FILES as readonly string[]).includes(file) || SCENARIO_SETS.some((s) => file === `scenarios/${s}.json`);
    if (!known && file.endsWith('.json')) add(file, '', `a pack file (${[...PACK_FILES, ...SCENARIO_SETS.map((s) => `scenarios/${s}.json`)].join(', ')})`);
  }

  const pack = parsed;
  const manifest = pack['pack.json'] as DomainPack['manifest'] | undefined;
  const world = pack['world.json'] as DomainPack['world'] | undefined;
  const tools = pack['tools.json'] as DomainPack['tools'] | undefined;
  const intents = pack['intents.json'] as DomainPack['intents'] | undefined;
  const utterances = pack['utterances.json'] as DomainPack['utterances'] | undefined;
  const customer = pack['customer.json'] as DomainPack['customer'] | undefined;
  const adversities = pack['adversities.json'] as DomainPack['adversities'] | undefined;
  const judge = pack['judge.json'] as DomainPack['judge'] | undefined;

  // ---------------------------------------------------------------- world
  const entities = world?.entities ?? {};
  const stateFlags = new Set(
    Object.entries(world?.state ?? {})
      .filter(([, v]) => 'flag' in v)
      .map(([k]) => k),
  );
  const slotNames = new Set((world?.slots ?? []).map((s) => s.name));
  if (world) {
    const W = 'world.json';
    for (const [en, e] of Object.entries(entities)) {
      for (const [fn, f] of Object.entries(e.fields)) {
        const at = `entities.${en}.fields.${fn}`;
        if ((f.type === 'list' || f.type === 'ref') && (f.entity === undefined || !(f.entity in entities)))
          add(W, `${at}.entity`, `an entity type (${Object.keys(entities).join(', ')}) for a ${f.type} field`);
        if (f.type === 'enum' && !f.values) add(W, `${at}.values`, 'the values of an enum field');
      }
    }
    for (const [sn, s] of Object.entries(world.state)) {
      if ('entity' in s && !(s.entity in entities)) add(W, `state.${sn}.entity`, `an entity type (${Object.keys(entities).join(', ')})`);
    }
    for (const [rn, r] of Object.entries(world.records)) {
      const ent = entities[r.entity];
      if (!ent) {
        add(W, `records.${rn}.entity`, `an entity type (${Object.keys(entities).join(', ')})`);
        continue;
      }
      for (const fn of Object.keys(r.fields)) {
        if (!(fn in ent.fields)) add(W, `records.${rn}.fields.${fn}`, `a field of entity ${r.entity} (${Object.keys(ent.fields).join(', ')})`);
      }
    }
    // ------------------------------------------------ world generator (records, steps, situations): validate-world.ts
    const situationNames = new Set<string>();
    world.situations.forEach((s, i) => {
      if (situationNames.has(s.name)) add(W, `situations[${i}].name`, `a unique situation name ("${s.name}" is repeated)`);
      situationNames.add(s.name);
    });
    checkWorldGenerator(world, (path, expected) => add(W, path, expected));
    // ------------------------------------------------ end of world generator
    const seenSlots = new Set<string>();
    world.slots.forEach((s, i) => {
      if (seenSlots.has(s.name)) add(W, `slots[${i}].name`, `a unique slot name ("${s.name}" is repeated)`);
      seenSlots.add(s.name);
      const [en, fn] = s.source.split('.') as [string, string];
      if (!(en in entities)) add(W, `slots[${i}].source`, `entity.field with an entity type of world.json (${Object.keys(entities).join(', ')}), got "${en}"`);
      else if (!(fn in entities[en]!.fields))
        add(W, `slots[${i}].source`, `a field of entity ${en} (${Object.keys(entities[en]!.fields).join(', ')}), got "${fn}"`);
    });
  }

  // ---------------------------------------------------------------- tools
  const toolByName = new Map((tools?.tools ?? []).map((t) => [t.name, t]));
  const goalTools = new Set((tools?.tools ?? []).filter((t) => t.goal).map((t) => t.name));
  const toolList = () => [...toolByName.keys()].join(', ');
  const goalList = () => [...goalTools].join(', ');
  if (tools) {
    const T = 'tools.json';
    const codes = new Set(tools.errorCodes.map((c) => c.code));
    const seen = new Set<string>();
    tools.tools.forEach((t, i) => {
      if (seen.has(t.name)) add(T, `tools[${i}].name`, `a unique tool name ("${t.name}" is repeated)`);
      seen.add(t.name);
      if (t.goal !== (t.role === 'goal' || t.role === 'escalation'))
        add(T, `tools[${i}].goal`, `${!t.goal} (role "${t.role}" ${t.goal ? 'is not' : 'is'} a goal role)`);
      if (t.arguments.type !== 'object') add(T, `tools[${i}].arguments.type`, '"object" (tool arguments are an object)');
      if (t.result.type !== 'object') add(T, `tools[${i}].result.type`, '"object" (a tool result is an object)');
      t.preconditions.forEach((p, j) => {
        if (world && !stateFlags.has(p.requires))
          add(T, `tools[${i}].preconditions[${j}].requires`, `a state flag of world.json (${[...stateFlags].join(', ') || 'none declared'})`);
        if (!codes.has(p.error)) add(T, `tools[${i}].preconditions[${j}].error`, `an error code listed in errorCodes (${[...codes].join(', ')})`);
      });
      t.errors.forEach((e, j) => {
        if (!codes.has(e.code)) add(T, `tools[${i}].errors[${j}].code`, `an error code listed in errorCodes (${[...codes].join(', ')})`);
      });
      if (world) {
        for (const [key, list] of [
          ['reads', t.reads],
          ['changes', t.changes],
        ] as const) {
          list.forEach((p, j) => {
            const root = p.split(/[.[]/)[0]!;
            if (!(root in world.state)) add(T, `tools[${i}].${key}[${j}]`, `a path into the state (${Object.keys(world.state).join(', ')})`);
          });
        }
      }
    });
    const stateNames = world ? new Set(Object.keys(world.state)) : undefined;
    tools.tools.forEach((t, i) => {
      if (!t.program) return;
      const c = compileProgram(t, { stateNames, errorCodes: codes });
      if (!c.ok) for (const p of c.problems) add(T, `tools[${i}].${p.path}`, p.expected);
    });
    if (!tools.tools.some((t) => t.goal)) add(T, 'tools', 'at least one goal tool');
  }

  // ---------------------------------------------------------------- manifest
  if (manifest && tools) {
    const P = 'pack.json';
    const v = manifest.verification;
    if (v) {
      const t = toolByName.get(v.tool);
      if (!t) add(P, 'verification.tool', `a tool of tools.json (${toolList()})`);
      else {
        if (t.role !== 'verification') add(P, 'verification.tool', `a tool whose role is "verification" (${v.tool} is "${t.role}")`);
        if (!t.arguments.properties?.[v.argument])
          add(P, 'verification.argument', `an argument of ${v.tool} (${Object.keys(t.arguments.properties ?? {}).join(', ')})`);
      }
      if (world) {
        if (!stateFlags.has(v.flag)) add(P, 'verification.flag', `a state flag of world.json (${[...stateFlags].join(', ') || 'none declared'})`);
        const [en, fn] = v.callerField.split('.');
        if (!en || !fn || !entities[en]?.fields[fn]) add(P, 'verification.callerField', 'entity.field of world.json (the caller ID the agent sees)');
      }
    }
    if (manifest.escalationTool !== null) {
      const t = toolByName.get(manifest.escalationTool);
      if (!t) add(P, 'escalationTool', `a tool of tools.json (${toolList()})`);
      else if (t.role !== 'escalation') add(P, 'escalationTool', `a tool whose role is "escalation" (${t.name} is "${t.role}")`);
    }
  }

  // ---------------------------------------------------------------- intents
  const intentByName = new Map((intents?.intents ?? []).map((x) => [x.name, x]));
  if (intents && tools) {
    const seen = new Set<string>();
    intents.intents.forEach((x, i) => {
      if (seen.has(x.name)) add('intents.json', `intents[${i}].name`, `a unique intent name ("${x.name}" is repeated)`);
      seen.add(x.name);
      if (!goalTools.has(x.goalTool)) add('intents.json', `intents[${i}].goalTool`, `a goal tool of tools.json (${goalList()}), got "${x.goalTool}"`);
    });
  }

  // ---------------------------------------------------------------- utterances
  const checkSlots = (file: string, path: string, s: string, allowed: ReadonlySet<string> = slotNames) => {
    if (!world) return;
    for (const slot of slotsOf(s)) if (!allowed.has(slot)) add(file, path, `{slot}s declared in world.json (${[...allowed].join(', ')}), got {${slot}}`);
  };
  if (utterances) {
    const U = 'utterances.json';
    const counts = new Map<string, Record<string, number>>();
    utterances.utterances.forEach((u, i) => {
      if (intents && !intentByName.has(u.intent)) add(U, `utterances[${i}].intent`, `an intent of intents.json, got "${u.intent}"`);
      checkSlots(U, `utterances[${i}].text`, u.text);
      const c = counts.get(u.intent) ?? { direct: 0, indirect: 0, vague: 0 };
      c[u.style]!++;
      counts.set(u.intent, c);
    });
    if (intents) {
      for (const x of intents.intents) {
        const c = counts.get(x.name) ?? { direct: 0, indirect: 0, vague: 0 };
        const total = DIRECTNESS.reduce((a, s) => a + c[s]!, 0);
        const min = x.arena ? MIN_ARENA_UTTERANCES : MIN_OTHER_UTTERANCES;
        if (total < min) add(U, 'utterances', `at least ${min} utterances for ${x.arena ? 'arena ' : ''}intent "${x.name}", found ${total}`);
        const missing = DIRECTNESS.filter((s) => c[s] === 0);
        if (missing.length) add(U, 'utterances', `utterances of every style for intent "${x.name}" (none ${missing.join(', ')})`);
      }
    }
    if (tools) {
      for (const k of Object.keys(utterances.decoys)) if (!goalTools.has(k)) add(U, `decoys.${k}`, `a goal tool of tools.json (${goalList()})`);
      for (const g of goalTools) if (!(g in utterances.decoys)) add(U, 'decoys', `decoy sentences for goal tool "${g}"`);
    }
    for (const [k, list] of Object.entries(utterances.decoys)) list.forEach((s, j) => checkSlots(U, `decoys.${k}[${j}]`, s));
    utterances.detailReplies.forEach((s, j) => checkSlots(U, `detailReplies[${j}]`, s));
    utterances.acknowledgements.forEach((s, j) => checkSlots(U, `acknowledgements[${j}]`, s));
  }

  // ---------------------------------------------------------------- customer
  const detailKinds = new Set((customer?.detailKinds ?? []).map((k) => k.name));
  if (customer) {
    const C = 'customer.json';
    customer.detailKinds.forEach((k, i) => {
      k.slots.forEach((s, j) => {
        if (world && !slotNames.has(s)) add(C, `detailKinds[${i}].slots[${j}]`, `a slot of world.json (${[...slotNames].join(', ')})`);
      });
      const own = new Set(k.slots);
      k.phrases.forEach((p, j) => checkSlots(C, `detailKinds[${i}].phrases[${j}].text`, p.text, own));
      for (const v of Object.keys(k.vague)) if (!own.has(v)) add(C, `detailKinds[${i}].vague.${v}`, `one of this kind's slots (${k.slots.join(', ')})`);
      const err = compiles(k.asked.pattern, k.asked.flags);
      if (err) add(C, `detailKinds[${i}].asked.pattern`, `a valid regular expression (${err})`);
    });
  }

  // ---------------------------------------------------------------- adversities (file and scenarios')
  type Adv = NonNullable<ScenarioFile['scenarios'][number]['adversities']>[number];
  const checkAdversity = (file: string, at: string, a: Adv) => {
    if (a.kind === 'partial_information' && customer && !detailKinds.has(a.slot))
      add(file, `${at}.slot`, `a detail kind of customer.json (${[...detailKinds].join(', ')})`);
    if (a.kind === 'incremental_constraints') a.reveals.forEach((s, j) => checkSlots(file, `${at}.reveals[${j}]`, s));
    if (a.kind === 'goal_revision' && intents && !intentByName.has(a.from)) add(file, `${at}.from`, `an intent of intents.json, got "${a.from}"`);
    if ('tool' in a && a.tool !== undefined && tools && !toolByName.has(a.tool)) add(file, `${at}.tool`, `a tool of tools.json (${toolList()})`);
    if ('turn' in a && 'rate' in a && a.turn !== undefined && a.rate !== undefined && a.kind !== 'goal_revision')
      add(file, `${at}.turn`, 'a rate or a turn, not both');
  };
  if (adversities) {
    adversities.defaultProfile.forEach((a, i) => checkAdversity('adversities.json', `defaultProfile[${i}]`, a));
    if (tools) {
      adversities.emptyResults.forEach((e, i) => {
        const t = toolByName.get(e.tool);
        if (!t) return add('adversities.json', `emptyResults[${i}].tool`, `a tool of tools.json (${toolList()})`);
        for (const f of [...e.keep, e.empty])
          if (!t.result.properties?.[f])
            add('adversities.json', `emptyResults[${i}]`, `fields of ${t.name}'s result (${Object.keys(t.result.properties ?? {}).join(', ')}), got "${f}"`);
      });
    }
  }

  // ---------------------------------------------------------------- judge
  if (judge) {
    const J = 'judge.json';
    const regexAt = (at: string, r: { pattern: string; flags: string }) => {
      const err = compiles(r.pattern, r.flags);
      if (err) add(J, `${at}.pattern`, `a valid regular expression (${err})`);
    };
    const fieldAt = (at: string, tool: string, path: string | undefined) => {
      if (!tools) return;
      if (tool === '*') return;
      const t = toolByName.get(tool);
      if (!t) return add(J, `${at}.tool`, `a tool of tools.json (${toolList()}) or "*"`);
      if (path !== undefined && !resolveFieldPath(t.result, path)) add(J, at, `a field of ${tool}'s result schema, got "${path}"`);
    };
    if (tools) {
      for (const k of Object.keys(judge.explainCues)) if (!goalTools.has(k)) add(J, `explainCues.${k}`, `a goal tool of tools.json (${goalList()})`);
      for (const g of goalTools) if (!(g in judge.explainCues)) add(J, 'explainCues', `explain cues for goal tool "${g}" (an empty list is allowed)`);
    }
    const c = judge.claims;
    regexAt('claims.amounts.keys.keyPattern', c.amounts.keys.keyPattern);
    regexAt('claims.amounts.balanceKeys.keyPattern', c.amounts.balanceKeys.keyPattern);
    regexAt('claims.dates.valuePattern', c.dates.valuePattern);
    c.statuses.forEach((s, i) => {
      s.fields.forEach((f, j) => {
        fieldAt(`claims.statuses[${i}].fields[${j}]`, f.tool, f.status);
        fieldAt(`claims.statuses[${i}].fields[${j}]`, f.tool, f.id);
      });
      if (world && !(s.entity in entities)) add(J, `claims.statuses[${i}].entity`, `an entity type of world.json (${Object.keys(entities).join(', ')})`);
      s.phrases?.forEach((p, j) => regexAt(`claims.statuses[${i}].phrases[${j}].pattern`, p.pattern));
    });
    c.flags.forEach((f, i) => {
      regexAt(`claims.flags[${i}].phrase`, f.phrase);
      fieldAt(`claims.flags[${i}].backedBy`, f.backedBy.tool, f.backedBy.path);
    });
    if (c.timelines.waitMinutes) fieldAt('claims.timelines.waitMinutes', c.timelines.waitMinutes.tool, c.timelines.waitMinutes.path);
    c.timelines.processBackedBy.forEach((p, i) => {
      regexAt(`claims.timelines.processBackedBy[${i}].cue`, p.cue);
      fieldAt(`claims.timelines.processBackedBy[${i}]`, p.tool, p.field);
    });
    c.actions.forEach((a, i) => {
      const at = `claims.actions[${i}]`;
      a.backedBy.forEach((b, j) => fieldAt(`${at}.backedBy[${j}]`, b.tool, b.field));
      if (tools) a.about.forEach((t, j) => !goalTools.has(t) && add(J, `${at}.about[${j}]`, `a goal tool of tools.json (${goalList()})`));
      regexAt(`${at}.cue`, a.cue);
      a.done.forEach((r, j) => regexAt(`${at}.done[${j}]`, r));
      a.promised.forEach((r, j) => regexAt(`${at}.promised[${j}]`, r));
    });
    if (c.departments) fieldAt('claims.departments.backedBy', c.departments.backedBy.tool, c.departments.backedBy.path);
    c.digits.forEach((d, i) => {
      if (tools && ![...toolByName.values()].some((t) => JSON.stringify(t.result).includes(`"${d.key}"`)))
        add(J, `claims.digits[${i}].key`, `a field name of some tool's result, got "${d.key}"`);
    });
  }

  // ---------------------------------------------------------------- scenarios
  const ids = new Map<string, string>();
  const arenaIntentsUsed = new Set<string>();
  for (const { file, data } of scenarioFiles) {
    data.scenarios.forEach((s, i) => {
      const at = `scenarios[${i}]`;
      const prev = ids.get(s.id);
      if (prev) add(file, `${at}.id`, `a unique scenario id ("${s.id}" is also in ${prev})`);
      else ids.set(s.id, file);
      if (tools && !goalTools.has(s.expectedTool)) add(file, `${at}.expectedTool`, `a goal tool of tools.json (${goalList()}), got "${s.expectedTool}"`);
      s.intents.forEach((name, j) => {
        if (data.set === 'arena') arenaIntentsUsed.add(name);
        const x = intentByName.get(name);
        if (!intents) return;
        if (!x) add(file, `${at}.intents[${j}]`, `an intent of intents.json, got "${name}"`);
        else if (x.goalTool !== s.expectedTool)
          add(file, `${at}.intents[${j}]`, `an intent that routes to ${s.expectedTool} ("${name}" routes to ${x.goalTool})`);
        else if (data.set === 'arena' && !x.arena) add(file, `${at}.intents[${j}]`, `an arena intent (intents.json marks "${name}" arena: false)`);
      });
      if (world) {
        const situation = s.setup.situation;
        if (typeof situation !== 'string') add(file, `${at}.setup.situation`, `a situation of world.json (${world.situations.map((x) => x.name).join(', ')})`);
        else if (!world.situations.some((x) => x.name === situation))
          add(file, `${at}.setup.situation`, `a situation of world.json (${world.situations.map((x) => x.name).join(', ')}), got "${situation}"`);
        for (const [k, v] of Object.entries(s.setup)) {
          if (k === 'situation') continue;
          const param: JsonSchemaNode | undefined = world.setupParams[k];
          if (!param) add(file, `${at}.setup.${k}`, `a parameter declared in world.json setupParams (${Object.keys(world.setupParams).join(', ')})`);
          else for (const p of checkValue(param, v)) add(file, `${at}.setup.${k}`, p.expected);
        }
      }
      s.adversities?.forEach((a, j) => checkAdversity(file, `${at}.adversities[${j}]`, a));
      if (s.complexity !== undefined && (s.complexity === 'impossible') !== (s.impossible !== undefined))
        add(file, `${at}.complexity`, "complexity 'impossible' together with the impossible block");
      s.referenceActions?.forEach((r, j) => {
        if (r.action_type === 'tool_call' && tools && !toolByName.has(r.content))
          add(file, `${at}.referenceActions[${j}].content`, `a tool of tools.json (${toolList()})`);
      });
    });
  }
  if (intents && scenarioFiles.some((f) => f.data.set === 'arena')) {
    intents.intents.forEach((x, i) => {
      if (x.arena && !arenaIntentsUsed.has(x.name)) add('intents.json', `intents[${i}].arena`, `false, or an arena scenario that uses "${x.name}"`);
    });
  }

  if (problems.length) return { ok: false, problems };
  return {
    ok: true,
    pack: {
      manifest: manifest!,
      world: world!,
      tools: tools!,
      intents: intents!,
      utterances: utterances!,
      customer: customer!,
      adversities: adversities!,
      judge: judge!,
      scenarios: scenarioFiles.map((f) => f.data),
    },
  };
}
