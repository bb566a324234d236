/**
 * MADS's two evaluation levels over played episodes, broken down by scenario complexity and by
 * the adversities that fired.
 *
 * L-1 (turn level), for scenarios with reference actions, aligning the DA's actions with the
 * reference by position (the k-th DA action against the k-th reference action; the k-th tool
 * call and the k-th message likewise):
 *  - action-type recall: reference actions whose type the DA's action at that position has;
 *  - tool-name F1: over the multisets of tool names called and referenced;
 *  - parameter exact match: reference tool calls whose tool the DA called (in order) with exactly
 *    the reference's arguments (`"*"` matches any present value: seeded ids);
 *  - response similarity: cosine of bag-of-words counts between the k-th DA message and the k-th
 *    reference message (MADS uses sentence embeddings; this build has no embedding model).
 * L-2 (trajectory level), stop at first error: an episode scores the share of its DA turns that
 * come before its first wrong turn (1 when none is wrong); the success rate is the mean score.
 * A DA turn is wrong when the syntax or faithfulness validator names it, when it calls a domain
 * tool other than the goal's (transfer_to_human is an allowed way out of an impossible goal),
 * calls an account tool before verification, claims success on an impossible goal, or ends the
 * call (or is the last turn) while the task validator fails.
 */
import type { AdversityKind, Complexity, ReferenceAction, Scenario } from '../domain/types';
import { ADVERSITY_KINDS, COMPLEXITIES, complexityOf, isDomainTool } from '../domain/types';
import type { AgentTurn, Transcript } from '../world/transcript';
import { validateFaithfulness, validateSyntax, validateTaskSuccess } from './validators';

export interface L1Scores {
  actionTypeRecall: number;
  toolF1: number;
  paramExactMatch: number;
  responseSimilarity: number;
}

const agentActions = (t: Transcript) => t.turns.filter((x): x is AgentTurn => x.role === 'agent');

function bag(s: string): Map<string, number> {
  const m = new Map<string, number>();
  for (const w of s.toLowerCase().match(/[a-z0-9$.]+/g) ?? []) m.set(w, (m.get(w) ?? 0) + 1);
  return m;
}

/** Cosine similarity of two texts' bag-of-words counts, in [0, 1]. */
export function textSimilarity(a: string, b: string): number {
  const x = bag(a);
  const y = bag(b);
  let dot = 0;
  for (const [w, n] of x) dot += n * (y.get(w) ?? 0);
  const norm = (m: Map<string, number>) => Math.sqrt([...m.values()].reduce((s, n) => s + n * n, 0));
  const d = norm(x) * norm(y);
  return d === 0 ? 0 : dot / d;
}

function argsMatch(got: Record<string, unknown>, want: Record<string, unknown>): boolean {
  const keys = Object.keys(want);
  if (Object.keys(got).length !== keys.length) return false;
  return keys.every((k) => (want[k] === '*' ? got[k] !== undefined && got[k] !== '' : JSON.stringify(got[k]) === JSON.stringify(want[k])));
}

export function l1Scores(t: Transcript, ref: readonly ReferenceAction[]): L1Scores {
  const acts = agentActions(t).map((x) => x.action);
  const typeHits = ref.filter((r, k) => acts[k]?.action_type === r.action_type).length;

  const calls = acts.filter((a) => a?.action_type === 'tool_call').map((a) => ({ tool: a!.content.trim(), args: a!.tool_args }));
  const refCalls = ref.filter((r) => r.action_type === 'tool_call').map((r) => ({ tool: r.content.trim(), args: r.tool_args ?? {} }));
  const pool = calls.map((c) => c.tool);
  let common = 0;
  for (const r of refCalls) {
    const i = pool.indexOf(r.tool);
    if (i >= 0) {
      common++;
      pool.splice(i, 1);
    }
  }
  const p = calls.length ? common / calls.length : 0;
  const rcl = refCalls.length ? common / refCalls.length : 0;
  const used = new Set<number>();
  const exact = refCalls.filter((r) => {
    const i = calls.findIndex((c, j) => !used.has(j) && c.tool === r.tool);
    if (i < 0) return false;
    used.add(i);
    return argsMatch(calls[i]!.args, r.args);
  }).length;

  const says = acts.filter((a) => a?.action_type === 'speak').map((a) => a!.content);
  const refSays = ref.filter((r) => r.action_type === 'speak').map((r) => r.content);
  const sim = refSays.reduce((s, r, k) => s + (says[k] !== undefined ? textSimilarity(says[k], r) : 0), 0);
  return {
    actionTypeRecall: ref.length ? typeHits / ref.length : 0,
    toolF1: p + rcl > 0 ? (2 * p * rcl) / (p + rcl) : 0,
    paramExactMatch: refCalls.length ? exact / refCalls.length : 0,
    responseSimilarity: refSays.length ? sim / refSays.length : 0,
  };
}

/** The first wrong DA turn (index in the transcript), or null; see the module comment. */
export function firstError(t: Transcript, scenario?: Pick<Scenario, 'task'>): number | null {
  const candidates: number[] = [];
  for (const v of [validateSyntax(t), validateFaithfulness(t)]) if (!v.ok && v.turn !== null) candidates.push(v.turn);
  let verified = false;
  t.turns.forEach((turn, i) => {
    if (turn.role !== 'agent' || turn.action?.action_type !== 'tool_call') return;
    const name = turn.action.content.trim();
    if (name === 'lookup_account') {
      if (turn.toolResult?.ok) verified = true;
      return;
    }
    if (!isDomainTool(name)) return;
    const wayOut = name === 'transfer_to_human' && t.impossible !== undefined;
    if (name !== t.expectedTool && !wayOut) candidates.push(i);
    else if (!verified && name !== 'transfer_to_human') candidates.push(i);
  });
  const task = validateTaskSuccess(t, scenario);
  if (!task.ok) {
    if (task.turn !== null && t.impossible) candidates.push(task.turn); // the claimed success
    const last = t.turns.findLastIndex((x) => x.role === 'agent');
    if (last >= 0) candidates.push(last);
  }
  return candidates.length ? Math.min(...candidates) : null;
}

/** L-2 score of one episode: the share of DA turns before the first wrong one. */
export function l2Score(t: Transcript, scenario?: Pick<Scenario, 'task'>): number {
  const agents = t.turns.flatMap((x, i) => (x.role === 'agent' ? [i] : []));
  if (agents.length === 0) return 0;
  const err = firstError(t, scenario);
  return err === null ? 1 : agents.filter((i) => i < err).length / agents.length;
}

export interface MadsGroup {
  episodes: number;
  /** Mean L-2 score (MADS's trajectory success rate). */
  l2: number;
  /** Share of episodes with no wrong turn at all. */
  l2Complete: number;
  /** Mean L-1 scores over the group's episodes with reference actions; null when none has them. */
  l1: (L1Scores & { episodes: number }) | null;
}

export interface MadsReport {
  overall: MadsGroup;
  byComplexity: Partial<Record<Complexity, MadsGroup>>;
  /** By adversity kind: the episodes in which it fired; `none`: episodes without any firing. */
  byAdversity: Partial<Record<AdversityKind | 'none', MadsGroup>>;
}

interface Scored {
  complexity: Complexity;
  fired: Set<AdversityKind>;
  l2: number;
  l1: L1Scores | null;
}

function group(xs: readonly Scored[]): MadsGroup {
  const mean = (f: (x: Scored) => number, ys: readonly Scored[] = xs) => (ys.length ? ys.reduce((s, x) => s + f(x), 0) / ys.length : 0);
  const withRef = xs.filter((x) => x.l1 !== null);
  return {
    episodes: xs.length,
    l2: mean((x) => x.l2),
    l2Complete: mean((x) => (x.l2 === 1 ? 1 : 0)),
    l1: withRef.length
      ? {
          episodes: withRef.length,
          actionTypeRecall: mean((x) => x.l1!.actionTypeRecall, withRef),
          toolF1: mean((x) => x.l1!.toolF1, withRef),
          paramExactMatch: mean((x) => x.l1!.paramExactMatch, withRef),
          responseSimilarity: mean((x) => x.l1!.responseSimilarity, withRef),
        }
      : null,
  };
}

/** L-1 and L-2 of played transcripts, with the scenario of each (looked up by id). */
export function madsReport(transcripts: readonly Transcript[], scenarios: readonly Scenario[]): MadsReport {
  const byId = new Map(scenarios.map((s) => [s.id, s]));
  const scored: Scored[] = transcripts.map((t) => {
    const s = byId.get(t.scenarioId);
    if (!s) throw new Error(`madsReport: scenario '${t.scenarioId}' is not in the domain`);
    return {
      complexity: complexityOf(s),
      fired: new Set((t.adversities ?? []).map((a) => a.kind)),
      l2: l2Score(t, s),
      l1: s.referenceActions ? l1Scores(t, s.referenceActions) : null,
    };
  });
  const byComplexity: MadsReport['byComplexity'] = {};
  for (const c of COMPLEXITIES) {
    const xs = scored.filter((x) => x.complexity === c);
    if (xs.length) byComplexity[c] = group(xs);
  }
  const byAdversity: MadsReport['byAdversity'] = {};
  for (const k of ADVERSITY_KINDS) {
    const xs = scored.filter((x) => x.fired.has(k));
    if (xs.length) byAdversity[k] = group(xs);
  }
  const none = scored.filter((x) => x.fired.size === 0);
  if (none.length) byAdversity.none = group(none);
  return { overall: group(scored), byComplexity, byAdversity };
}
