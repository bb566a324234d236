/**
 * The scenario editor's form ↔ a scenario draft. The form holds text as typed; `draftOf` turns it
 * into the JSON the engine checks with the scenario schema, and reports what it cannot read itself
 * (a number that is not one, a `key = value` line without `=`) by the same field paths the engine
 * uses, so every message lands next to its field.
 */
import type { AdversitySpec, FieldProblem, ScenarioDraft } from '../../../../core/contract/contract';

export interface AdversityForm {
  kind: AdversitySpec['kind'];
  /** partial_information: the withheld detail. */
  slot: string;
  /** incremental_constraints: one sentence a line. */
  reveals: string;
  /** goal_revision: the opening intent. */
  from: string;
  /** goal_revision: the customer utterance that revises; execution: the DA step it fires at. */
  turn: string;
  rate: string;
  /** execution: the tool whose calls it answers (empty: the expected tool). */
  tool: string;
  /** execution: what the backend says (e.g. which policy). */
  message: string;
}

export interface ScenarioForm {
  id: string;
  title: string;
  description: string;
  expectedTool: string;
  /** Comma-separated intents. */
  intents: string;
  situation: string;
  ambiguity: string;
  fraudReference: boolean;
  /** Empty: implied by the impossible flag and adversities. */
  complexity: string;
  personaName: string;
  personaStyle: string;
  /** One message a line. */
  personaSamples: string;
  objective: string;
  /** `key = value`, one a line. */
  hardConstraints: string;
  softPreferences: string;
  /** One criterion a line. */
  successCriteria: string;
  adversities: AdversityForm[];
  impossible: boolean;
  fallbackBehavior: string;
  impossibleReason: string;
  /** Fields the form does not edit (account details, reference actions), carried over unchanged. */
  carried: Pick<Partial<ScenarioDraft>, 'account' | 'referenceActions'>;
}

export const CONVERSATIONAL = ['partial_information', 'incremental_constraints', 'goal_revision', 'adversarial_tone'];

export function newAdversity(kind: AdversitySpec['kind']): AdversityForm {
  return {
    kind,
    slot: kind === 'partial_information' ? 'merchant' : '',
    reveals: '',
    from: '',
    turn: kind === 'goal_revision' ? '2' : '',
    rate: '',
    tool: '',
    message: '',
  };
}

export function emptyForm(): ScenarioForm {
  return {
    id: '',
    title: '',
    description: '',
    expectedTool: 'dispute_charge',
    intents: '',
    situation: 'unrecognized_charge',
    ambiguity: 'clear',
    fraudReference: false,
    complexity: 'unhappy',
    personaName: '',
    personaStyle: '',
    personaSamples: '',
    objective: '',
    hardConstraints: '',
    softPreferences: '',
    successCriteria: '',
    adversities: [],
    impossible: false,
    fallbackBehavior: 'explain',
    impossibleReason: '',
    carried: {},
  };
}

const lines = (s: string) =>
  s
    .split('\n')
    .map((x) => x.trim())
    .filter(Boolean);
const slotLines = (v: Record<string, string | number | boolean>) =>
  Object.entries(v)
    .map(([k, x]) => `${k} = ${String(x)}`)
    .join('\n');
const num = (n: number | undefined) => (n === undefined ? '' : String(n));

export function formOf(d: ScenarioDraft): ScenarioForm {
  return {
    id: d.id,
    title: d.title,
    description: d.description,
    expectedTool: d.expectedTool,
    intents: d.intents.join(', '),
    situation: d.account.situation,
    ambiguity: d.ambiguity,
    fraudReference: d.fraudReference,
    complexity: d.complexity ?? '',
    personaName: d.persona?.name ?? '',
    personaStyle: d.persona?.style ?? '',
    personaSamples: d.persona?.sampleMessages.join('\n') ?? '',
    objective: d.task?.objective ?? '',
    hardConstraints: slotLines(d.task?.hardConstraints ?? {}),
    softPreferences: slotLines(d.task?.softPreferences ?? {}),
    successCriteria: d.task?.successCriteria.join('\n') ?? '',
    adversities: (d.adversities ?? []).map((a) => ({
      ...newAdversity(a.kind),
      ...('slot' in a ? { slot: a.slot } : {}),
      ...('reveals' in a ? { reveals: a.reveals.join('\n') } : {}),
      ...('from' in a ? { from: a.from } : {}),
      ...('turn' in a ? { turn: num(a.turn) } : {}),
      ...('tool' in a ? { tool: a.tool ?? '' } : {}),
      ...('message' in a ? { message: a.message ?? '' } : {}),
      rate: num(a.rate),
    })),
    impossible: d.impossible !== undefined,
    fallbackBehavior: d.impossible?.fallback_behavior ?? 'explain',
    impossibleReason: d.impossible?.reason ?? '',
    carried: { account: d.account, ...(d.referenceActions ? { referenceActions: d.referenceActions } : {}) },
  };
}

/** `key = value` lines as slot values: numbers and booleans where they read as such. */
function slotValues(text: string, field: string, problems: FieldProblem[]): Record<string, string | number | boolean> {
  const out: Record<string, string | number | boolean> = {};
  text.split('\n').forEach((raw, i) => {
    const line = raw.trim();
    if (!line) return;
    const eq = line.indexOf('=');
    if (eq <= 0) {
      problems.push({ field, message: `line ${i + 1}: expected key = value, got "${line}"` });
      return;
    }
    const v = line.slice(eq + 1).trim();
    out[line.slice(0, eq).trim()] = /^-?\d+(\.\d+)?$/.test(v) ? Number(v) : v === 'true' ? true : v === 'false' ? false : v;
  });
  return out;
}

/** An optional number field: empty is absent; anything else must read as a number. */
function optionalNumber(text: string, field: string, problems: FieldProblem[]): number | undefined {
  if (!text.trim()) return undefined;
  const n = Number(text);
  if (!Number.isFinite(n)) problems.push({ field, message: `expected a number, got "${text}"` });
  return n;
}

/** The form as a scenario draft for `scenarios/save`, and the problems found before sending it. */
export function draftOf(f: ScenarioForm): { draft: Record<string, unknown>; problems: FieldProblem[] } {
  const problems: FieldProblem[] = [];
  const d: Record<string, unknown> = {
    id: f.id.trim(),
    title: f.title.trim(),
    fraudReference: f.fraudReference,
    ambiguity: f.ambiguity,
    intents: f.intents
      .split(',')
      .map((x) => x.trim())
      .filter(Boolean),
    expectedTool: f.expectedTool,
    account: { ...f.carried.account, situation: f.situation },
    description: f.description.trim(),
  };
  if (f.complexity) d.complexity = f.complexity;
  if (f.objective.trim() || f.hardConstraints.trim() || f.softPreferences.trim() || f.successCriteria.trim()) {
    d.task = {
      objective: f.objective.trim(),
      hardConstraints: slotValues(f.hardConstraints, 'task.hardConstraints', problems),
      softPreferences: slotValues(f.softPreferences, 'task.softPreferences', problems),
      successCriteria: lines(f.successCriteria),
    };
  }
  if (f.personaName.trim() || f.personaStyle.trim() || f.personaSamples.trim()) {
    d.persona = { name: f.personaName.trim(), style: f.personaStyle.trim(), sampleMessages: lines(f.personaSamples) };
  }
  if (f.adversities.length) {
    d.adversities = f.adversities.map((a, i) => {
      const at = `adversities[${i}]`;
      const out: Record<string, unknown> = { kind: a.kind };
      if (a.kind === 'partial_information') out.slot = a.slot;
      if (a.kind === 'incremental_constraints') out.reveals = lines(a.reveals);
      if (a.kind === 'goal_revision') {
        out.from = a.from.trim();
        out.turn = optionalNumber(a.turn, `${at}.turn`, problems);
      }
      if (!CONVERSATIONAL.includes(a.kind)) {
        if (a.tool) out.tool = a.tool;
        const turn = optionalNumber(a.turn, `${at}.turn`, problems);
        if (turn !== undefined) out.turn = turn;
        if (a.message.trim()) out.message = a.message.trim();
      }
      const rate = optionalNumber(a.rate, `${at}.rate`, problems);
      if (rate !== undefined) out.rate = rate;
      return out;
    });
  }
  if (f.impossible) d.impossible = { fallback_behavior: f.fallbackBehavior, reason: f.impossibleReason.trim() };
  if (f.carried.referenceActions) d.referenceActions = f.carried.referenceActions;
  return { draft: d, problems };
}

/** The problems that belong to `field`: the field itself and anything inside it. */
export function problemsOf(problems: readonly FieldProblem[], field: string): string[] {
  return problems.filter((p) => p.field === field || p.field.startsWith(`${field}.`) || p.field.startsWith(`${field}[`)).map((p) => p.message);
}

/**
 * The form's own problems and the engine's, in one list: where the form could not read a field
 * (a rate that is not a number) its message stands and the engine's on the same field is dropped,
 * since the engine saw a placeholder there.
 */
export function mergeProblems(local: readonly FieldProblem[], engine: readonly FieldProblem[]): FieldProblem[] {
  const mine = new Set(local.map((p) => p.field));
  return [...local, ...engine.filter((p) => !mine.has(p.field))];
}

/** The comma-separated intents with `intent` ticked or unticked, in the order they were picked. */
export function toggleIntent(intents: string, intent: string, on: boolean): string {
  const list = intents
    .split(',')
    .map((x) => x.trim())
    .filter(Boolean);
  const next = on ? (list.includes(intent) ? list : [...list, intent]) : list.filter((x) => x !== intent);
  return next.join(', ');
}

const FIELD_WORDS: Record<string, string> = {
  id: 'Id',
  title: 'Title',
  description: 'Description',
  intents: 'Intents',
  expectedTool: 'Expected tool',
  complexity: 'Complexity',
  'persona.name': 'Persona name',
  'persona.style': 'Persona style',
  'persona.sampleMessages': 'Sample messages',
  'task.objective': 'Objective',
  'task.hardConstraints': 'Hard constraints',
  'task.softPreferences': 'Soft preferences',
  'task.successCriteria': 'Success criteria',
  'impossible.reason': 'Why the goal cannot be met',
  'impossible.fallback_behavior': 'Fallback behaviour',
};

/** A problem's field in the form's words: "adversities[0].turn" → "Adversity 1 · turn", "intents[2]" → "Intents (3rd picked)". */
export function fieldLabel(field: string): string {
  if (!field) return 'Scenario';
  if (FIELD_WORDS[field]) return FIELD_WORDS[field];
  const adv = /^adversities\[(\d+)\](?:\.(\w+))?/.exec(field);
  if (adv) return `Adversity ${Number(adv[1]) + 1}${adv[2] ? ` · ${adv[2] === 'from' ? 'opening intent' : adv[2]}` : ''}`;
  const intent = /^intents\[(\d+)\]$/.exec(field);
  if (intent) return `Intent ${Number(intent[1]) + 1}`;
  const head = Object.keys(FIELD_WORDS).find((k) => field.startsWith(`${k}.`) || field.startsWith(`${k}[`));
  return head ? FIELD_WORDS[head]! : field;
}
