/**
 * The LLM judge against recorded-shape server responses (no network): each fixture is a chat
 * completion as vLLM returns it under `response_format: json_schema`, mapped to a verdict, or to
 * the infrastructure failure a malformed reply is.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { evaluateJudgeWith, parseJudgeSet } from '../../core/judge/judge-eval';
import type { JudgeVerdict } from '../../core/judge/types';
import { ChatBackendError } from './chat-backend';
import { JUDGE_REPLY_SCHEMA, LlmJudge, parseJudgeReply, renderTranscript } from './llm-judge';
import { OpenAiBackend } from './openai-backend';

interface Fixture {
  conversation: string;
  response: unknown;
  expect: { verdict?: Partial<JudgeVerdict>; error?: string };
}

const DIR = path.join(__dirname, 'judge-fixtures');
const SET = parseJudgeSet(readFileSync(path.join(__dirname, '..', '..', 'assets', 'judge', 'labelled-3.json'), 'utf8'));
const conv = (id: string) => SET.conversations.find((c) => c.id === id)!;

function judgeAnswering(responses: unknown[], sent: Record<string, unknown>[] = []) {
  let i = 0;
  const fakeFetch = (async (_url: string, init?: RequestInit) => {
    sent.push(JSON.parse(init?.body as string) as Record<string, unknown>);
    return new Response(JSON.stringify(responses[i++ % responses.length]), { status: 200, headers: { 'content-type': 'application/json' } });
  }) as typeof fetch;
  const backend = new OpenAiBackend(
    { name: 'judge7b', baseUrl: 'http://127.0.0.1:9/v1', model: 'Qwen/Qwen2.5-7B-Instruct', apiKeyEnv: null, toolCalls: 'native', maxConcurrency: 1 },
    { fetch: fakeFetch, maxRetries: 0 },
  );
  return new LlmJudge(backend);
}

describe('LlmJudge with recorded responses', () => {
  const files = readdirSync(DIR)
    .filter((f) => f.endsWith('.json'))
    .sort();

  it.each(files)('%s', async (file) => {
    const fx = JSON.parse(readFileSync(path.join(DIR, file), 'utf8')) as Fixture;
    const sent: Record<string, unknown>[] = [];
    const judge = judgeAnswering([fx.response], sent);
    const t = conv(fx.conversation).transcript;
    if (fx.expect.verdict) {
      const v = await judge.judge(t);
      expect(v).toMatchObject(fx.expect.verdict);
      expect(v.rationale.length).toBeGreaterThan(0);
    } else {
      const e = await judge.judge(t).then(
        () => null,
        (err: unknown) => err,
      );
      expect(e).toBeInstanceOf(ChatBackendError);
      expect((e as ChatBackendError).kind).toBe('bad_response');
      expect((e as Error).message).toContain(fx.expect.error!);
    }
    // The request: the versioned prompt, the conversation by turn index, greedy, the reply's schema.
    const body = sent[0]!;
    expect(body.temperature).toBe(0);
    expect((body.response_format as { json_schema: { schema: unknown } }).json_schema.schema).toEqual(JUDGE_REPLY_SCHEMA);
    const msgs = body.messages as { role: string; content: string }[];
    expect(msgs[0]!.content).toMatch(/^You are NeutralJudge/);
    expect(msgs[1]!.content).toBe(renderTranscript(t));
  });

  it('renders every turn with its index, tool results included, never the thinking', () => {
    const text = renderTranscript(conv('t03').transcript);
    expect(text).toMatch(/^Customer's actual need: transfer_to_human \(compromised card\)/);
    expect(text).toContain('[2] agent calls transfer_to_human');
    expect(text).toContain('"ticket_id":"tkt_a2d9gk"');
    expect(text).toContain("[3] agent (speak): I'm sorry, Marcus");
    expect(text).not.toContain('Compromised card: this is for the fraud team.');
  });

  it('parses strictly: extra fields, scores out of range, claims past the last turn are refused', () => {
    const good = { rationale: 'ok', resolved: true, tier: 4, hallucination: false, hallucinations: [], score: 2 };
    expect(parseJudgeReply(JSON.stringify(good), 5).ok).toBe(true);
    expect(parseJudgeReply(JSON.stringify({ ...good, confidence: 0.9 }), 5)).toMatchObject({ ok: false });
    expect(parseJudgeReply(JSON.stringify({ ...good, score: 3 }), 5)).toMatchObject({ ok: false, error: expect.stringMatching(/^field score/) });
    expect(parseJudgeReply(JSON.stringify({ ...good, tier: 1, hallucination: true, hallucinations: [{ turn: 9, claim: 'x' }], score: -2 }), 5)).toMatchObject({
      ok: false,
      error: expect.stringMatching(/turn 9 is past/),
    });
    expect(parseJudgeReply('```json\n' + JSON.stringify(good) + '\n```', 5).ok).toBe(false);
  });

  it('is measured by judge-eval through the port like the rule judge', async () => {
    const clean = JSON.parse(readFileSync(path.join(DIR, 'vllm-judge-clean.json'), 'utf8')) as Fixture;
    const judge = judgeAnswering([clean.response]);
    const set = { version: 1 as const, conversations: [conv('t14'), conv('t03')] };
    const r = await evaluateJudgeWith(set, judge);
    // The recorded judge calls both clean: it agrees on t14 and misses t03's invented lock.
    expect(r.n).toBe(2);
    expect(r.hallucination.recall).toBe(0);
    expect(r.disagreements.map((d) => `${d.id} ${d.field}`)).toEqual(['t03 tier', 't03 hallucination']);
  });
});
