/**
 * EAU's meta-agent as an LLM (seed 002, optional in Sparring): the latest diagnostics' evidence
 * and the run's knobs go to a chat endpoint of the lab (`sparring models add`), which answers one
 * proposed write with its reasoning. The answer becomes a `KnobProposal` with source.kind 'llm':
 * like every proposal it is never applied here; it goes through the knob registry's checked
 * writes and a person accepts, edits or dismisses it.
 *
 * `suggestForRun(db, runId, backend)` is what a CLI verb (`sparring knobs suggest RUN --model
 * NAME`) or the console calls; `suggestKnobWrite` takes the evidence and the knob list as
 * parameters (the knob registry, when present, supplies ranges and meanings; without it
 * `knobsOfRun` lists the knobs the diagnostics know with their current values).
 */
import type { Database } from 'better-sqlite3';
import { parseRunConfig, sparringConfigOf } from '../../core/coevolution/run-config';
import { knobValues } from '../../core/eau/diagnostics';
import type { Evidence, KnobProposal } from '../../core/eau/proposal';
import type { ChatBackend, ChatRequest } from '../../models/llm/chat-backend';
import { proposalStore } from './proposals-store';

/** A knob as the meta-agent sees it: id, current value, and where known its range and meaning. */
export interface KnobInfo {
  id: string;
  value: number | boolean | string;
  min?: number;
  max?: number;
  meaning?: string;
}

/** The meta-agent's answer could not be used: says what was wrong with it. */
export class MetaAgentError extends Error {
  override name = 'MetaAgentError';
}

const SYSTEM = [
  'You are the meta-agent of a co-evolution training run (EAU): a support agent (DA) and an adversarial customer (CA) train against each other.',
  'Diagnostics watched the run and found faults; each comes with its evidence and the write the diagnostic would make.',
  'Propose exactly one write to one of the listed knobs that would best fix the most serious fault, within its range.',
  'Answer with one JSON object and nothing else: {"knob": "<knob id>", "value": <number>, "reason": "<one line a person reads>", "reasoning": "<why, citing the figures>"}.',
].join(' ');

/** The JSON schema of the answer (grammar-constrained where the endpoint can). */
const ANSWER_SCHEMA = {
  type: 'object',
  properties: { knob: { type: 'string' }, value: { type: 'number' }, reason: { type: 'string' }, reasoning: { type: 'string' } },
  required: ['knob', 'value', 'reason', 'reasoning'],
  additionalProperties: false,
} as const;

/** At most this many points of a series go into the prompt (the latest ones). */
const MAX_POINTS = 12;

/** The request: the evidence of each diagnostic proposal and the knob list, as compact JSON. */
export function metaAgentRequest(evidence: readonly KnobProposal[], knobs: readonly KnobInfo[], seed = 1): ChatRequest {
  const findings = evidence.map((p) => ({
    diagnostic: p.source.kind === 'diagnostic' ? p.source.name : `llm:${p.source.model}`,
    at: p.at,
    proposedWrite: { knob: p.knob, value: p.value },
    reason: p.reason,
    figures: p.evidence.figures,
    series: p.evidence.series.map((s) => ({ name: s.name, points: s.points.slice(-MAX_POINTS) })),
    exampleEpisodes: p.evidence.episodes.slice(0, 5),
  }));
  return {
    messages: [
      { role: 'system', content: SYSTEM },
      { role: 'user', content: `Findings:\n${JSON.stringify(findings)}\n\nKnobs:\n${JSON.stringify(knobs)}` },
    ],
    temperature: 0,
    max_tokens: 400,
    seed,
    responseSchema: ANSWER_SCHEMA,
  };
}

/** The first JSON object of a reply (models wrap it in prose or code fences despite being asked not to). */
function jsonObjectOf(text: string): unknown {
  const start = text.indexOf('{');
  const end = text.lastIndexOf('}');
  if (start < 0 || end <= start) throw new MetaAgentError(`the reply holds no JSON object: ${JSON.stringify(text.slice(0, 200))}`);
  try {
    return JSON.parse(text.slice(start, end + 1));
  } catch (e) {
    throw new MetaAgentError(`the reply's JSON does not parse (${(e as Error).message}): ${JSON.stringify(text.slice(start, start + 200))}`);
  }
}

/** The evidence of the diagnostics behind the meta-agent's write: theirs, merged (figures prefixed by diagnostic). */
function mergedEvidence(evidence: readonly KnobProposal[]): Evidence {
  const episodes = [...new Set(evidence.flatMap((p) => p.evidence.episodes))].slice(0, 20);
  const figures: Record<string, number> = {};
  for (const p of evidence) {
    const tag = p.source.kind === 'diagnostic' ? p.source.name : 'llm';
    for (const [k, v] of Object.entries(p.evidence.figures)) figures[`${tag}.${k}`] = v;
  }
  return { episodes, series: evidence.flatMap((p) => p.evidence.series), figures };
}

/** The meta-agent's reply as a proposal, checked against the knob list; a MetaAgentError names what is wrong. */
export function parseSuggestion(text: string, evidence: readonly KnobProposal[], knobs: readonly KnobInfo[], model: string): KnobProposal {
  const v = jsonObjectOf(text);
  if (typeof v !== 'object' || v === null || Array.isArray(v)) throw new MetaAgentError('the reply is not a JSON object');
  const o = v as Record<string, unknown>;
  for (const f of ['knob', 'reason', 'reasoning'] as const) {
    if (typeof o[f] !== 'string' || !o[f].trim()) throw new MetaAgentError(`field "${f}": expected a non-empty string, got ${JSON.stringify(o[f])}`);
  }
  const knob = knobs.find((k) => k.id === o.knob);
  if (!knob) throw new MetaAgentError(`field "knob": "${String(o.knob)}" is not a knob of this run (known: ${knobs.map((k) => k.id).join(', ')})`);
  const value = o.value;
  if (typeof value !== 'number' || !Number.isFinite(value)) throw new MetaAgentError(`field "value": expected a number, got ${JSON.stringify(value)}`);
  if ((knob.min !== undefined && value < knob.min) || (knob.max !== undefined && value > knob.max)) {
    throw new MetaAgentError(`field "value": ${value} is outside ${knob.id}'s range [${knob.min ?? '−∞'}, ${knob.max ?? '∞'}]`);
  }
  const latest = evidence.at(-1)?.at ?? {};
  return {
    knob: knob.id,
    value,
    reason: (o.reason as string).trim(),
    source: { kind: 'llm', model, reasoning: (o.reasoning as string).trim() },
    evidence: mergedEvidence(evidence),
    at: latest,
  };
}

/** Hand the evidence and the knobs to the endpoint; its one proposed write, with its reasoning. */
export async function suggestKnobWrite(a: {
  backend: ChatBackend;
  evidence: readonly KnobProposal[];
  knobs: readonly KnobInfo[];
  seed?: number;
}): Promise<KnobProposal> {
  if (a.evidence.length === 0) throw new MetaAgentError('no diagnostic evidence to hand to the meta-agent: the diagnostics proposed nothing yet');
  const reply = await a.backend.complete(metaAgentRequest(a.evidence, a.knobs, a.seed));
  return parseSuggestion(reply.text, a.evidence, a.knobs, `${a.backend.id}/${reply.model}`);
}

/** The knobs the diagnostics know, with the run's current values (the fallback when no knob registry is at hand). */
export function knobsOfRun(configJson: string, source = 'run config'): KnobInfo[] {
  const config = parseRunConfig(configJson, source);
  return Object.entries(knobValues(config, sparringConfigOf(config))).map(([id, value]) => ({ id, value }));
}

/**
 * For a stored run: its latest diagnostics' proposals (those of its latest match or gym that had
 * any) and its knobs, handed to `backend`. The caller records the answer (e.g. through
 * proposalStore(db).recordProposals) for a person to decide on.
 */
export async function suggestForRun(db: Database, runId: string, backend: ChatBackend, knobs?: readonly KnobInfo[]): Promise<KnobProposal> {
  const run = db.prepare<[string], { config_json: string }>('SELECT config_json FROM runs WHERE id = ?').get(runId);
  if (!run) throw new MetaAgentError(`run ${runId} does not exist in this lab`);
  const all = proposalStore(db)
    .listProposals(runId)
    .map((p) => p.proposal)
    .filter((p) => p.source.kind === 'diagnostic');
  const last = all.at(-1);
  const latest = last ? all.filter((p) => p.at.matchIndex === last.at.matchIndex && p.at.gymId === last.at.gymId) : [];
  return suggestKnobWrite({ backend, evidence: latest, knobs: knobs ?? knobsOfRun(run.config_json, `run ${runId}`) });
}
