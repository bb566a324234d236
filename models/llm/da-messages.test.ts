/**
 * The DA's chat form: messages ↔ observation round trips in both forms, native calls map into the
 * wire format verbatim (malformed arguments stay malformed), the CA's prompt carries intent,
 * persona and directive, prompts refuse a placeholder mismatch, the semaphore caps holders, and
 * the ledger answers identical requests from its cache.
 */
import { describe, expect, it } from 'vitest';
import { CustomerEnvironment } from '../../core/world/environment';
import { parseDaOutput } from '../../core/wire';
import { bankingDomain } from '../../test/support/banking-domain';
import type { ChatBackend, ChatRequest, ChatResult } from './chat-backend';
import { daMessages, observationFromMessages, wireFromNative, DaMessagesError } from './da-messages';
import { completeThrough, PendingLedger, requestKey } from './ledger';
import { caMessages, CALL_CONNECTS } from './llm-ca';
import { fillPrompt } from './prompts';
import { Semaphore } from './openai-backend';

const domain = bankingDomain();

/** An observation after lookup, a domain call, a speak, a customer reply and an unparseable turn. */
function observation() {
  const env = new CustomerEnvironment(12);
  env.reset(domain.scenarios.find((s) => s.expectedTool === 'get_transactions') ?? domain.scenarios[0]!, 11);
  const phone = env.observeAgent().caller.phone;
  env.step({ role: 'customer', text: 'Something odd on my statement.' });
  env.step({ role: 'agent', raw: JSON.stringify({ thinking: 'verify', action_type: 'tool_call', content: 'lookup_account', tool_args: { phone } }) });
  const acct = (env.state().turns[1] as unknown as { toolResult: { data: { accounts: { account_id: string }[] } } }).toolResult.data.accounts[0]!.account_id;
  env.step({ role: 'agent', raw: JSON.stringify({ thinking: '', action_type: 'tool_call', content: 'get_transactions', tool_args: { account_id: acct } }) });
  env.step({ role: 'agent', raw: JSON.stringify({ thinking: 'explain', action_type: 'speak', content: 'I see the charges.', tool_args: {} }) });
  env.step({ role: 'customer', text: 'The second one.' });
  env.step({ role: 'agent', raw: '{"thinking": oops' });
  return env.observeAgent();
}

describe('daMessages / observationFromMessages', () => {
  it.each(['native', 'text'] as const)('round-trips an observation in the %s form', (mode) => {
    const obs = observation();
    const back = observationFromMessages(daMessages(obs, mode));
    expect(back).toEqual(JSON.parse(JSON.stringify(obs)));
  });

  it("native form (the trained form): one call per move, thinking its first argument, the customer's answer as speak's result", () => {
    const msgs = daMessages(observation(), 'native');
    expect(msgs.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'tool', 'assistant', 'tool', 'assistant', 'tool', 'assistant']);
    const a = msgs[2]!;
    if (a.role !== 'assistant') throw new Error('expected assistant');
    expect(a.content).toBe('');
    expect(a.tool_calls![0]!.function.name).toBe('lookup_account');
    // Arguments are an object (a chat template encodes it once), thinking first.
    expect(Object.keys(a.tool_calls![0]!.function.arguments)).toEqual(['thinking', 'phone']);
    const b = msgs[4]!;
    if (b.role !== 'assistant') throw new Error('expected assistant');
    expect(b.tool_calls![0]!.function.arguments).not.toHaveProperty('thinking'); // empty thinking is left out
    expect(msgs[7]!.content).toBe('{"customer":"The second one."}');
    expect(msgs.at(-1)!.content).toBe('{"thinking": oops'); // an unparseable turn goes back as it was
  });

  it('refuses a system prompt without the caller ID, naming the message', () => {
    expect(() => observationFromMessages([{ role: 'system', content: 'Turn limit: 3' }])).toThrow(DaMessagesError);
    expect(() => observationFromMessages([{ role: 'system', content: 'Turn limit: 3' }])).toThrow(/messages\[0\].*Caller ID/);
  });
});

describe('wireFromNative', () => {
  const parse = (raw: string) => parseDaOutput(raw);
  it('maps a tool call, speak and end_call to the wire format', () => {
    expect(parse(wireFromNative('t', [{ name: 'dispute_charge', arguments: '{"account_id":"A","reason":"duplicate"}' }]))).toEqual({
      ok: true,
      action: { thinking: 't', action_type: 'tool_call', content: 'dispute_charge', tool_args: { account_id: 'A', reason: 'duplicate' } },
    });
    expect(parse(wireFromNative('', [{ name: 'speak', arguments: '{"message":"Hello"}' }]))).toEqual({
      ok: true,
      action: { thinking: '', action_type: 'speak', content: 'Hello', tool_args: {} },
    });
  });
  it('keeps malformed arguments malformed, several calls unparseable, unknown names a tool call', () => {
    const bad = parse(wireFromNative('t', [{ name: 'get_transactions', arguments: '{"account_id": ' }]));
    expect(bad.ok).toBe(false);
    const two = parse(
      wireFromNative('t', [
        { name: 'speak', arguments: '{"message":"a"}' },
        { name: 'end_call', arguments: '{"message":"b"}' },
      ]),
    );
    expect(two).toEqual({ ok: false, error: 'expected a JSON object' });
    const unknown = parse(wireFromNative('t', [{ name: 'refund_now', arguments: '{}' }]));
    expect(unknown.ok && unknown.action.action_type === 'tool_call' && unknown.action.content).toBe('refund_now');
    // A reply with no call is read as the text form: prose does not parse.
    expect(parse(wireFromNative('Sure, one moment.', [])).ok).toBe(false);
  });
});

describe('caMessages', () => {
  it('carries hidden intent, facts, persona and the adversity directive; the agent speaks as the user', () => {
    const env = new CustomerEnvironment(12);
    const scenario = domain.scenarios.find((s) => s.persona) ?? domain.scenarios[0]!;
    env.reset(scenario, 3);
    const obs = { ...env.observeCustomer(), adversity: { withhold: 'amount' as const } };
    const msgs = caMessages(obs);
    expect(msgs[0]!.content).toContain(`"${obs.intent}"`);
    expect(msgs[0]!.content).toContain(obs.facts.merchant);
    if (obs.persona) expect(msgs[0]!.content).toContain(obs.persona.style);
    expect(msgs[1]).toEqual({ role: 'user', content: `${CALL_CONNECTS}\n[For this reply: do not mention the amount yet.]` });
  });
});

describe('fillPrompt', () => {
  it('refuses a missing value or an unknown placeholder, naming the file', () => {
    expect(() => fillPrompt('da-system.v1', { caller_phone: '1' })).toThrow(/da-system\.v1\.txt: placeholder \{\{max_turns\}\}/);
    expect(() => fillPrompt('da-system.v1', { caller_phone: '1', max_turns: 3, extra: 1 })).toThrow(/no placeholder \{\{extra\}\}/);
  });
});

describe('Semaphore and the ledger', () => {
  it('never lets more than n run at once', async () => {
    const gate = new Semaphore(3);
    let active = 0;
    let peak = 0;
    await Promise.all(
      Array.from({ length: 12 }, () =>
        gate.run(async () => {
          peak = Math.max(peak, ++active);
          await new Promise((r) => setTimeout(r, 2));
          active--;
        }),
      ),
    );
    expect(peak).toBe(3);
  });

  it('answers an identical request from the cache, and records both calls', async () => {
    let calls = 0;
    const backend: ChatBackend = {
      id: 'e',
      model: 'm',
      maxConcurrency: 1,
      complete: async (): Promise<ChatResult> => ({
        text: `answer ${++calls}`,
        toolCalls: [],
        tokensIn: 3,
        tokensOut: 2,
        latencyMs: 5,
        model: 'm',
        finishReason: 'stop',
      }),
    };
    const ledger = new PendingLedger(() => undefined);
    const req: ChatRequest = { messages: [{ role: 'user', content: 'hi' }], temperature: 0, max_tokens: 8, seed: 1 };
    const a = await completeThrough(backend, ledger, req, null);
    const b = await completeThrough(backend, ledger, { ...req }, null);
    const c = await completeThrough(backend, ledger, { ...req, seed: 2 }, null);
    expect([a.text, b.text, c.text]).toEqual(['answer 1', 'answer 1', 'answer 2']);
    expect(ledger.records.map((r) => r.cached)).toEqual([false, true, false]);
    expect(ledger.answers.size).toBe(2);
    expect(requestKey(backend, req)).not.toBe(requestKey({ ...backend, model: 'other' }, req));
    // --no-cache: nothing is read, the backend is called again.
    const fresh = new PendingLedger((k) => ledger.answers.get(k), false);
    expect((await completeThrough(backend, fresh, req, null)).text).toBe('answer 3');
  });
});
