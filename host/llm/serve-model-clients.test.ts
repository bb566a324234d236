/**
 * `serve-model` against clients Sparring did not write (issue 50, item 6): the official `openai`
 * SDK and the Vercel AI SDK (`ai` with `@ai-sdk/openai-compatible`), used as their documentation
 * shows, against a builtin DA checkpoint. A chat without Sparring's system prompt, content as parts,
 * a `developer` message, streaming with tool-call deltas, each `tool_choice`, 404 for another
 * model, OpenAI's error shape with a string code, and the browser check (403 for another origin).
 *
 * STRANGER_CHECKS counts the checks; the last test prints "stranger-client checks: P/T passed".
 */
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { APICallError, generateText, jsonSchema, streamText, tool } from 'ai';
import type { ToolSet } from 'ai';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BuiltinDa } from '../../models/builtin-da';
import { DaModel } from '../../models/da-model';
import { daTools } from '../../models/llm/da-messages';
import { bankingDomain } from '../domain-files';
import { serveModel } from './serve-model';
import type { ServedModel } from './serve-model';

const domain = bankingDomain();
let model: DaModel;
let served: ServedModel;
let client: OpenAI;
let passed = 0;
let total = 0;

/** One stranger-client check: counted, and passed only when its body does not throw. */
function check(name: string, body: () => Promise<void>) {
  it(
    name,
    async () => {
      total++;
      await body();
      passed++;
    },
    60_000,
  );
}

const TOOLS = daTools();
const FUNCTIONS = TOOLS.map((t) => t.function.name);
/** The DA's functions as the OpenAI SDK's `tools`. */
const openAiTools: OpenAI.Chat.Completions.ChatCompletionTool[] = TOOLS.map((t) => ({ type: 'function', function: t.function }));
/** The same as AI SDK tools (no execute: the calls come back to the caller). */
const aiTools: ToolSet = Object.fromEntries(
  TOOLS.map((t) => [t.function.name, tool({ description: t.function.description, inputSchema: jsonSchema(t.function.parameters) })]),
);

beforeAll(async () => {
  model = await DaModel.create({ intents: domain.taxonomy.map((e) => ({ intent: e.intent, tool: e.tool })), seed: 3 });
  served = await serveModel({ da: new BuiltinDa(model, { name: 'DA0' }), modelId: 'DA0' });
  client = new OpenAI({ baseURL: served.baseUrl, apiKey: served.token!, maxRetries: 0 });
}, 120_000);
afterAll(async () => {
  await served.close();
  await model.dispose();
  process.stdout.write(`stranger-client checks: ${passed}/${total} passed\n`);
});

const provider = () => createOpenAICompatible({ name: 'sparring', baseURL: served.baseUrl, apiKey: served.token!, includeUsage: true });

describe('serve-model answers the openai SDK', () => {
  check("a chat without Sparring's system prompt, content as parts: a tool call the SDK reads back", async () => {
    const r = await client.chat.completions.create({
      model: 'DA0',
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'Hi, my card was declined' },
            { type: 'text', text: 'at the grocery store.' },
          ],
        },
      ],
      tools: openAiTools,
    });
    const call = r.choices[0]!.message.tool_calls?.[0];
    expect(r.choices[0]!.finish_reason).toBe('tool_calls');
    expect(call?.type).toBe('function');
    if (call?.type !== 'function') throw new Error('no function call');
    expect(FUNCTIONS).toContain(call.function.name);
    expect(JSON.parse(call.function.arguments)).toBeTypeOf('object');
    expect(r.usage!.prompt_tokens).toBe(9);
  });

  check("a developer message carries Sparring's prompt lines; a named tool_choice is honoured", async () => {
    const r = await client.chat.completions.create({
      model: 'DA0',
      messages: [
        { role: 'developer', content: 'Caller ID: +1-555-0100\nTurn limit: 12' },
        { role: 'user', content: 'I want to dispute a charge' },
      ],
      tools: openAiTools,
      tool_choice: { type: 'function', function: { name: 'lookup_account' } },
    });
    const call = r.choices[0]!.message.tool_calls![0]!;
    if (call.type !== 'function') throw new Error('no function call');
    expect(call.function.name).toBe('lookup_account');
    expect(JSON.parse(call.function.arguments)).toStrictEqual({ phone: '+1-555-0100' });
  });

  check('tool_choice "none" answers in text; "required" with one tool offered calls it', async () => {
    const none = await client.chat.completions.create({
      model: 'DA0',
      messages: [{ role: 'user', content: 'hello' }],
      tools: openAiTools,
      tool_choice: 'none',
    });
    expect(none.choices[0]!.finish_reason).toBe('stop');
    expect(none.choices[0]!.message.tool_calls ?? []).toStrictEqual([]);
    expect(JSON.parse(none.choices[0]!.message.content!)).toMatchObject({ action_type: expect.any(String) });
    const required = await client.chat.completions.create({
      model: 'DA0',
      messages: [{ role: 'user', content: 'hello' }],
      tools: openAiTools.filter((t) => t.type === 'function' && t.function.name === 'end_call'),
      tool_choice: 'required',
    });
    const call = required.choices[0]!.message.tool_calls![0]!;
    expect(call.type === 'function' && call.function.name).toBe('end_call');
  });

  check('stream: true sends chat.completion.chunk events with tool-call deltas, usage, then [DONE]', async () => {
    const chunks: OpenAI.Chat.Completions.ChatCompletionChunk[] = [];
    const s = await client.chat.completions.create({
      model: 'DA0',
      messages: [{ role: 'user', content: 'my card does not work' }],
      tools: openAiTools,
      stream: true,
      stream_options: { include_usage: true },
    });
    for await (const c of s) chunks.push(c);
    expect(chunks.every((c) => c.object === 'chat.completion.chunk')).toBe(true);
    const deltas = chunks.flatMap((c) => c.choices.flatMap((ch) => ch.delta.tool_calls ?? []));
    expect(deltas.length).toBeGreaterThan(1);
    const args = deltas.map((d) => d.function?.arguments ?? '').join('');
    expect(FUNCTIONS).toContain(deltas[0]!.function!.name);
    expect(JSON.parse(args)).toBeTypeOf('object');
    expect(chunks.flatMap((c) => c.choices.map((ch) => ch.finish_reason)).filter(Boolean)).toStrictEqual(['tool_calls']);
    expect(chunks.at(-1)!.usage!.total_tokens).toBeGreaterThan(0);
    // The SDK's own accumulator agrees with the non-streamed answer.
    const final = await client.chat.completions
      .stream({ model: 'DA0', messages: [{ role: 'user', content: 'my card does not work' }], tools: openAiTools })
      .finalChatCompletion();
    const plain = await client.chat.completions.create({ model: 'DA0', messages: [{ role: 'user', content: 'my card does not work' }], tools: openAiTools });
    expect(final.choices[0]!.message.tool_calls).toStrictEqual(plain.choices[0]!.message.tool_calls);
    expect(final.choices[0]!.message.content).toStrictEqual(plain.choices[0]!.message.content);
  });

  check("another model is a NotFoundError; errors carry OpenAI's shape with a string code", async () => {
    const e = await client.chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }] }).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(OpenAI.NotFoundError);
    expect(e).toMatchObject({ status: 404, code: 'model_not_found', param: 'model' });
    const auth = await new OpenAI({ baseURL: served.baseUrl, apiKey: 'wrong', maxRetries: 0 }).models.list().catch((x: unknown) => x);
    expect(auth).toBeInstanceOf(OpenAI.AuthenticationError);
    expect(auth).toMatchObject({ code: 'invalid_api_key' });
    const image = await client.chat.completions
      .create({
        model: 'DA0',
        messages: [
          {
            role: 'user',
            content: [
              { type: 'text', text: 'see' },
              { type: 'image_url', image_url: { url: 'data:image/png;base64,AA==' } },
            ],
          },
        ],
      })
      .catch((x: unknown) => x);
    expect(image).toBeInstanceOf(OpenAI.BadRequestError);
    expect(image).toMatchObject({ code: 'unsupported_content', param: 'messages[0].content[1].type' });
    const raw = await fetch(`${served.baseUrl}/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${served.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'DA0', messages: [{ role: 'wizard', content: 'x' }] }),
    });
    expect(raw.status).toBe(400);
    const body = (await raw.json()) as { error: Record<string, unknown> };
    expect(Object.keys(body.error).sort()).toStrictEqual(['code', 'message', 'param', 'type']);
    expect(body.error).toMatchObject({ type: 'invalid_request_error', param: 'messages[0].role', code: 'invalid_value' });
    expect(typeof body.error.code).toBe('string');
  });

  check('a browser page of another origin is refused 403 with the reason, before the token', async () => {
    const r = await fetch(`${served.baseUrl}/models`, {
      headers: { authorization: `Bearer ${served.token}`, origin: 'http://localhost:3000', 'sec-fetch-site': 'same-site' },
    });
    expect(r.status).toBe(403);
    expect(await r.json()).toMatchObject({ error: { code: 'forbidden_origin', message: expect.stringMatching(/Sec-Fetch-Site: same-site/) } });
  });
});

it('lets the origins it is told to allow (--allow-origin) call from a browser page', async () => {
  const open = await serveModel({ da: new BuiltinDa(model, { name: 'DA0' }), modelId: 'DA0', allowOrigins: ['http://localhost:3000'] });
  try {
    const get = (origin: string) =>
      fetch(`${open.baseUrl}/models`, { headers: { authorization: `Bearer ${open.token}`, origin, 'sec-fetch-site': 'same-site' } });
    expect((await get('http://localhost:3000')).status).toBe(200);
    expect((await get('http://localhost:3001')).status).toBe(403);
  } finally {
    await open.close();
  }
});

describe('serve-model answers the Vercel AI SDK', () => {
  check('generateText with tools: the tool call comes back parsed, with usage', async () => {
    const r = await generateText({ model: provider()('DA0'), prompt: 'Someone took money from my account', tools: aiTools, maxRetries: 0 });
    expect(r.finishReason).toBe('tool-calls');
    expect(r.toolCalls).toHaveLength(1);
    expect(FUNCTIONS).toContain(r.toolCalls[0]!.toolName);
    expect(r.toolCalls[0]!.input).toBeTypeOf('object');
    expect(r.usage.inputTokens).toBeGreaterThan(0);
  });

  check('generateText with a system prompt and toolChoice naming a tool; a tool result goes back in the next turn', async () => {
    const first = await generateText({
      model: provider()('DA0'),
      system: 'You are a helpful bank agent.\nCaller ID: +1-555-0199',
      prompt: 'Hello',
      tools: aiTools,
      toolChoice: { type: 'tool', toolName: 'lookup_account' },
      maxRetries: 0,
    });
    const call = first.toolCalls[0]!;
    expect(call).toMatchObject({ toolName: 'lookup_account', input: { phone: '+1-555-0199' } });
    const second = await generateText({
      model: provider()('DA0'),
      system: 'Caller ID: +1-555-0199',
      messages: [
        { role: 'user', content: 'Hello' },
        { role: 'assistant', content: [{ type: 'tool-call', toolCallId: call.toolCallId, toolName: call.toolName, input: call.input }] },
        {
          role: 'tool',
          content: [
            {
              type: 'tool-result',
              toolCallId: call.toolCallId,
              toolName: call.toolName,
              output: { type: 'json', value: { ok: false, error: 'no account for +1-555-0199' } },
            },
          ],
        },
      ],
      tools: aiTools,
      maxRetries: 0,
    });
    expect(FUNCTIONS).toContain(second.toolCalls[0]!.toolName);
  });

  check('streamText: tool calls read back from the stream; text without tools', async () => {
    const s = streamText({ model: provider()('DA0'), prompt: 'I need to move money to savings', tools: aiTools, maxRetries: 0 });
    const calls = await s.toolCalls;
    expect(calls).toHaveLength(1);
    expect(FUNCTIONS).toContain(calls[0]!.toolName);
    expect(await s.finishReason).toBe('tool-calls');
    const text = streamText({ model: provider()('DA0'), prompt: 'hello', maxRetries: 0 });
    let out = '';
    for await (const piece of text.textStream) out += piece;
    expect(JSON.parse(out)).toMatchObject({ action_type: expect.any(String) });
  });

  check('another model, or a wrong key, is an APICallError with the status and the message', async () => {
    const e = await generateText({ model: provider()('llama-3'), prompt: 'hi', maxRetries: 0 }).catch((x: unknown) => x);
    expect(APICallError.isInstance(e)).toBe(true);
    expect(e).toMatchObject({ statusCode: 404, message: expect.stringMatching(/"llama-3" does not exist/) });
    const auth = await generateText({
      model: createOpenAICompatible({ name: 'x', baseURL: served.baseUrl, apiKey: 'nope' })('DA0'),
      prompt: 'hi',
      maxRetries: 0,
    }).catch((x: unknown) => x);
    expect(APICallError.isInstance(auth)).toBe(true);
    expect(auth).toMatchObject({ statusCode: 401 });
  });
});
