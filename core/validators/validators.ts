/**
 * MADS's four validators, rule-based, over any transcript — generated, arena or human-played,
 * live or read back from the store. Each returns a verdict naming the first offending turn.
 *
 * - syntax: every DA output parses; every tool call names a tool and its arguments match the
 *   tool's schema; the agent says at most one message between two customer utterances.
 * - faithfulness: no tool argument the dialogue or earlier tool results do not support (ids come
 *   from results, merchants and amounts from the customer or results, the phone from caller ID —
 *   which the backend confirms by finding the customer), and no statement the judge finds
 *   unsupported.
 * - role confusion: the customer talks like the agent ("let me look that up", "is there anything
 *   else I can help with") or emits agent wire-format JSON.
 * - task success: a possible goal's tool succeeded and met every hard constraint (soft
 *   preferences are reported, never failed); an impossible goal got its fallback without a
 *   claimed success.
 */
import type { Scenario, SlotValues } from '../domain/types';
import { isToolName } from '../domain/types';
import { impossibleOutcome } from '../judge/fallback';
import { effectAchieved, findHallucinations } from '../judge/judge';
import type { EpisodeRecord } from '../store/port';
import { parseDaOutput } from '../wire';
import { toolArgSchemas } from '../world/backend';
import type { AgentTurn, ToolResult, Transcript, Turn } from '../world/transcript';
import { issueRule } from '../issue-text';

export const VALIDATORS = ['syntax', 'faithfulness', 'role_confusion', 'task_success'] as const;
export type ValidatorName = (typeof VALIDATORS)[number];

export interface ValidatorVerdict {
  validator: ValidatorName;
  ok: boolean;
  /** The first offending turn (index in the transcript), or null when passed or no turn is at fault. */
  turn: number | null;
  /** Why it failed, or what passed. */
  reason: string;
  /** Task success only: each soft preference and whether it was honoured. */
  soft?: { key: string; honoured: boolean }[];
}

const pass = (validator: ValidatorName, reason: string): ValidatorVerdict => ({ validator, ok: true, turn: null, reason });
const fail = (validator: ValidatorName, turn: number | null, reason: string): ValidatorVerdict => ({ validator, ok: false, turn, reason });

// ------------------------------------------------------------------------------------ syntax

export function validateSyntax(t: Transcript): ValidatorVerdict {
  let speaks = 0;
  for (const [i, turn] of t.turns.entries()) {
    if (turn.role === 'customer') {
      speaks = 0;
      continue;
    }
    const a = turn.action;
    if (!a) return fail('syntax', i, `unparseable DA output: ${turn.parseError ?? 'no action'}`);
    if (a.action_type === 'tool_call') {
      const name = a.content.trim();
      if (!isToolName(name)) return fail('syntax', i, `tool "${name}" does not exist`);
      const r = toolArgSchemas[name].safeParse(a.tool_args);
      if (!r.success) {
        const issue = r.error.issues[0]!;
        return fail('syntax', i, `${name} arguments: ${issue.path.length ? issue.path.join('.') : '(arguments)'}: ${issueRule(issue)}`);
      }
    } else if (a.action_type === 'speak' && ++speaks > 1) {
      return fail('syntax', i, 'a second message before the customer spoke (a turn ends in at most one speak)');
    }
  }
  return pass('syntax', 'every DA output parses, tool calls match their schemas, one message per turn');
}

// ------------------------------------------------------------------------------ faithfulness

const norm = (s: string) => s.toLowerCase().replace(/[^a-z0-9]/g, '');
const AMOUNT_RE = /\$?\s?(\d{1,3}(?:,\d{3})+(?:\.\d{1,2})?|\d+(?:\.\d{1,2})?)/g;
const cents = (x: number) => Math.round(x * 100);
const ID_KEYS = new Set(['account_id', 'card_id', 'transaction_id', 'from_account_id', 'to_account_id']);

/** Every string and number in a tool result's data. */
function leaves(v: unknown, out: { strings: Set<string>; numbers: Set<number> }): void {
  if (typeof v === 'string') out.strings.add(v);
  else if (typeof v === 'number') out.numbers.add(cents(v));
  else if (Array.isArray(v)) v.forEach((x) => leaves(x, out));
  else if (v && typeof v === 'object') Object.values(v).forEach((x) => leaves(x, out));
}

export function validateFaithfulness(t: Transcript): ValidatorVerdict {
  const seen = { strings: new Set<string>(), numbers: new Set<number>() };
  let said = '';
  for (const [i, turn] of t.turns.entries()) {
    if (turn.role === 'customer') {
      said += ` ${turn.text}`;
      for (const m of turn.text.matchAll(AMOUNT_RE)) seen.numbers.add(cents(Number(m[1]!.replace(/,/g, ''))));
      continue;
    }
    const a = turn.action;
    if (a?.action_type === 'tool_call') {
      for (const [key, value] of Object.entries(a.tool_args)) {
        const bad = unsupportedArg(key, value, turn, seen, said);
        if (bad) return fail('faithfulness', i, `${a.content.trim()} argument ${key} = ${JSON.stringify(value)} ${bad}`);
      }
    }
    if (turn.toolResult?.ok) leaves(turn.toolResult.data, seen);
  }
  const f = findHallucinations(t)[0];
  if (f) return fail('faithfulness', f.turn, `unsupported statement "${f.claim}": ${f.reason}`);
  return pass('faithfulness', 'every argument and statement is supported by the dialogue or tool results');
}

function unsupportedArg(key: string, value: unknown, turn: AgentTurn, seen: { strings: Set<string>; numbers: Set<number> }, said: string): string | null {
  if (key === 'phone') return turn.toolResult?.ok === false && turn.toolResult.error.code === 'NOT_FOUND' ? "is not the caller's number" : null;
  if (ID_KEYS.has(key)) return typeof value === 'string' && seen.strings.has(value) ? null : 'appears in no earlier tool result';
  if (key === 'merchant' && typeof value === 'string') {
    const v = norm(value);
    return norm(said).includes(v) || [...seen.strings].some((s) => norm(s).includes(v)) ? null : 'was never mentioned or returned';
  }
  if (key === 'amount' && typeof value === 'number') return seen.numbers.has(cents(value)) ? null : 'was never mentioned or returned';
  return null;
}

// ----------------------------------------------------------------------------- role confusion

/** Phrases an agent says and a customer does not. */
export const AGENT_PHRASES: readonly RegExp[] = [
  /\bhow (?:can|may) I (?:help|assist) you\b/i,
  /\bis there anything else I can (?:help|do|assist)\b/i,
  /\bthank you for calling\b/i,
  /\blet me (?:check|look (?:that|this|it) up|pull up|verify|look into your account)\b/i,
  /\bI(?:'ve| have) (?:filed|opened|lifted|escalated|unblocked) (?:a|the|your)\b/i,
  /\bcan you (?:please )?(?:verify|confirm) your (?:identity|phone|account)\b/i,
  /"action_type"\s*:/,
];

export function validateRoleConfusion(t: Transcript): ValidatorVerdict {
  for (const [i, turn] of t.turns.entries()) {
    if (turn.role !== 'customer') continue;
    const hit = AGENT_PHRASES.find((re) => re.test(turn.text));
    if (hit) return fail('role_confusion', i, `the customer talks like the agent: "${turn.text.match(hit)![0]}"`);
  }
  return pass('role_confusion', 'the customer stays the customer');
}

// ------------------------------------------------------------------------------- task success

/** Does `want` hold of the call's arguments or result? Numbers to the cent, strings punctuation-blind. */
function holds(key: string, want: string | number | boolean, args: Record<string, unknown>, r: ToolResult): boolean {
  const got = key in args ? args[key] : r.ok ? r.data[key] : undefined;
  if (typeof want === 'number') return typeof got === 'number' && cents(got) === cents(want);
  if (typeof want === 'string') return typeof got === 'string' && norm(got) === norm(want);
  return got === want;
}

export function validateTaskSuccess(t: Transcript, scenario?: Pick<Scenario, 'task'>): ValidatorVerdict {
  const fb = impossibleOutcome(t, t.impossible ? findHallucinations(t) : []);
  if (fb) {
    if (fb.claimTurn !== null) return fail('task_success', fb.claimTurn, 'claimed success on an impossible request');
    if (fb.fallbackTurn === null) return fail('task_success', null, `impossible request without the ${fb.behavior} fallback`);
    return pass('task_success', `impossible request handled: ${fb.behavior} at turn ${fb.fallbackTurn}`);
  }
  const calls = t.turns.flatMap((turn, i) =>
    turn.role === 'agent' && turn.action?.action_type === 'tool_call' && turn.action.content.trim() === t.expectedTool && turn.toolResult
      ? [{ i, args: turn.action.tool_args, result: turn.toolResult }]
      : [],
  );
  const goal = calls.find((c) => effectAchieved(c.result));
  if (!goal) return fail('task_success', calls.at(-1)?.i ?? null, `${t.expectedTool} never succeeded`);
  const hard: SlotValues = scenario?.task?.hardConstraints ?? {};
  const broken = Object.entries(hard).find(([k, v]) => !holds(k, v, goal.args, goal.result));
  if (broken) return fail('task_success', goal.i, `hard constraint ${broken[0]} = ${JSON.stringify(broken[1])} not met`);
  const soft = Object.entries(scenario?.task?.softPreferences ?? {}).map(([key, v]) => ({ key, honoured: holds(key, v, goal.args, goal.result) }));
  return { ...pass('task_success', `${t.expectedTool} succeeded at turn ${goal.i}${Object.keys(hard).length ? ' meeting every hard constraint' : ''}`), soft };
}

// ---------------------------------------------------------------------------------- together

export function validateTranscript(t: Transcript, scenario?: Pick<Scenario, 'task'>): ValidatorVerdict[] {
  return [validateSyntax(t), validateFaithfulness(t), validateRoleConfusion(t), validateTaskSuccess(t, scenario)];
}

/** A stored episode as a transcript; the scenario (looked up by the caller) supplies the impossible flag. */
export function transcriptOfEpisode(e: EpisodeRecord, scenario?: Pick<Scenario, 'impossible'>): Transcript {
  const turns: Turn[] = e.turns.map((r) => {
    if (r.role === 'customer') return { role: 'customer', text: r.text };
    const p = parseDaOutput(r.text);
    const turn: AgentTurn = p.ok
      ? { role: 'agent', raw: r.text, action: p.action }
      : { role: 'agent', raw: r.text, action: null, parseError: r.parseError ?? p.error };
    if (r.toolResult) turn.toolResult = r.toolResult;
    return turn;
  });
  const t: Transcript = { scenarioId: e.scenarioId, expectedTool: e.expectedTool, intent: e.intent, turns, endReason: e.endReason };
  if (e.adversities) t.adversities = e.adversities;
  if (scenario?.impossible) t.impossible = scenario.impossible;
  return t;
}
