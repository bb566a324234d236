/**
 * The LLM meta-agent against a recorded-shape chat completion (no network): the request carries
 * the evidence and the knobs, the reply becomes an 'llm' proposal, and a reply that names an
 * unknown knob, a value out of range or no JSON is refused with what is wrong.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { PRESETS } from '../../core/presets';
import type { KnobProposal } from '../../core/eau/proposal';
import { OpenAiBackend } from '../../models/llm/openai-backend';
import { openSqliteStore } from '../store/sqlite-store';
import { knobsOfRun, MetaAgentError, metaAgentRequest, parseSuggestion, suggestForRun, suggestKnobWrite } from './meta-agent';
import { proposalStore } from './proposals-store';

const dir = mkdtempSync(join(tmpdir(), 'meta-agent-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const deadlock: KnobProposal = {
  knob: 'arena.maxDaTurns',
  value: 3,
  reason: "100.0% of match 1's episodes hit the turn limit of 1 DA turns without a domain tool call",
  source: { kind: 'diagnostic', name: 'deadlock' },
  evidence: { episodes: ['R1-M1:0', 'R1-M1:1'], series: [{ name: 'deadlock rate', points: [[1, 1]] }], figures: { deadlockRate: 1, maxDaTurns: 1 } },
  at: { matchIndex: 1 },
};
const knobs = [
  { id: 'arena.maxDaTurns', value: 1, min: 1, max: 50, meaning: "the DA's turn limit" },
  { id: 'gym.da.K', value: 16, min: 2, max: 64 },
];

/** A chat completion in the shape vLLM / llama.cpp return (choices[0].message.content, usage). */
function completion(content: string) {
  return {
    id: 'chatcmpl-1',
    object: 'chat.completion',
    created: 1764640007,
    model: 'qwen2.5-7b-instruct',
    choices: [{ index: 0, finish_reason: 'stop', message: { role: 'assistant', content } }],
    usage: { prompt_tokens: 812, completion_tokens: 64, total_tokens: 876 },
  };
}

function backendAnswering(content: string, sent: Record<string, unknown>[] = []) {
  const fakeFetch = (async (_url: string, init?: RequestInit) => {
    sent.push(JSON.parse(init?.body as string) as Record<string, unknown>);
    return new Response(JSON.stringify(completion(content)), { status: 200, headers: { 'content-type': 'application/json' } });
  }) as typeof fetch;
  return new OpenAiBackend(
    { name: 'local', baseUrl: 'http://127.0.0.1:9/v1', model: 'qwen', apiKeyEnv: null, toolCalls: 'native', maxConcurrency: 1 },
    { fetch: fakeFetch, maxRetries: 0 },
  );
}

describe('the LLM meta-agent', () => {
  it('hands the evidence and the knobs over and turns the reply into an llm proposal', async () => {
    const sent: Record<string, unknown>[] = [];
    const answer =
      '```json\n{"knob": "arena.maxDaTurns", "value": 6, "reason": "every episode deadlocks at one DA turn", "reasoning": "deadlockRate 1 at maxDaTurns 1: lookup alone uses the turn"}\n```';
    const p = await suggestKnobWrite({ backend: backendAnswering(answer, sent), evidence: [deadlock], knobs });
    expect(p).toEqual({
      knob: 'arena.maxDaTurns',
      value: 6,
      reason: 'every episode deadlocks at one DA turn',
      source: { kind: 'llm', model: 'local/qwen2.5-7b-instruct', reasoning: 'deadlockRate 1 at maxDaTurns 1: lookup alone uses the turn' },
      evidence: { episodes: ['R1-M1:0', 'R1-M1:1'], series: deadlock.evidence.series, figures: { 'deadlock.deadlockRate': 1, 'deadlock.maxDaTurns': 1 } },
      at: { matchIndex: 1 },
    });
    const user = (sent[0]!.messages as { role: string; content: string }[]).find((m) => m.role === 'user')!.content;
    expect(user).toContain('"diagnostic":"deadlock"');
    expect(user).toContain('"deadlockRate":1');
    expect(user).toContain('"id":"gym.da.K"');
    expect(sent[0]!.temperature).toBe(0);
  });

  it('refuses an unknown knob, a value out of range, a missing field and a reply without JSON, naming the problem', () => {
    const reply = (o: unknown) => JSON.stringify(o);
    const ok = { knob: 'gym.da.K', value: 32, reason: 'r', reasoning: 'why' };
    expect(parseSuggestion(reply(ok), [deadlock], knobs, 'm').value).toBe(32);
    expect(() => parseSuggestion(reply({ ...ok, knob: 'gym.da.temperature' }), [deadlock], knobs, 'm')).toThrow(
      /field "knob": "gym.da.temperature" is not a knob of this run/,
    );
    expect(() => parseSuggestion(reply({ ...ok, knob: 'arena.maxDaTurns', value: 80 }), [deadlock], knobs, 'm')).toThrow(
      /80 is outside arena.maxDaTurns's range \[1, 50\]/,
    );
    expect(() => parseSuggestion(reply({ ...ok, value: '32' }), [deadlock], knobs, 'm')).toThrow(/field "value": expected a number/);
    expect(() => parseSuggestion(reply({ ...ok, reasoning: '' }), [deadlock], knobs, 'm')).toThrow(/field "reasoning"/);
    expect(() => parseSuggestion('I would raise the turn limit.', [deadlock], knobs, 'm')).toThrow(MetaAgentError);
  });

  it('asks nothing without evidence', async () => {
    await expect(suggestKnobWrite({ backend: backendAnswering('{}'), evidence: [], knobs })).rejects.toThrow(/no diagnostic evidence/);
  });

  it("for a stored run: the latest match's proposals and the run's knobs", async () => {
    const store = openSqliteStore(join(dir, 'lab.db'));
    const config = { ...PRESETS.quick.config, arena: { episodesPerScenario: 3, maxDaTurns: 1 } };
    store.db
      .prepare("INSERT INTO runs (id, created_at, updated_at, status, seed, config_json) VALUES ('R1', 'now', 'now', 'finished', 1, ?)")
      .run(JSON.stringify(config));
    proposalStore(store.db).recordProposals('R1', [
      deadlock,
      { ...deadlock, at: { matchIndex: 2 }, evidence: { ...deadlock.evidence, episodes: ['R1-M2:4'] } },
    ]);
    const sent: Record<string, unknown>[] = [];
    const p = await suggestForRun(
      store.db,
      'R1',
      backendAnswering(JSON.stringify({ knob: 'arena.maxDaTurns', value: 4, reason: 'r', reasoning: 'why' }), sent),
    );
    expect(p.at).toEqual({ matchIndex: 2 });
    expect(p.evidence.episodes).toEqual(['R1-M2:4']);
    expect(knobsOfRun(JSON.stringify(config)).find((k) => k.id === 'arena.maxDaTurns')).toEqual({ id: 'arena.maxDaTurns', value: 1 });
    const user = (sent[0]!.messages as { role: string; content: string }[]).find((m) => m.role === 'user')!.content;
    expect(user).toContain('"id":"daReward.toolCorrect"');
    await expect(suggestForRun(store.db, 'R9', backendAnswering('{}'))).rejects.toThrow(/run R9 does not exist/);
    store.close();
  });

  it('asks for the answer schema', () => {
    expect(metaAgentRequest([deadlock], knobs).responseSchema).toMatchObject({ required: ['knob', 'value', 'reason', 'reasoning'] });
  });
});
