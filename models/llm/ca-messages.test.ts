/**
 * The customer's trained form (`ca-messages.ts`): the customer's lines as `say` calls, the agent's
 * words as their results, the directive on the last message, the end of the call; and how a reply
 * comes back as the customer's words. (That training renders the same tokens is
 * host/llm/trained-form.test.ts.)
 */
import { describe, expect, it } from 'vitest';
import type { CaObservation } from '../../core/world/environment';
import { CustomerEnvironment } from '../../core/world/environment';
import { bankingDomain } from '../../test/support/banking-domain';
import { CALL_CONNECTS, caCallGrammarSchema, caMessages, caObservationFromMessages, caTools, utteranceFromReply } from './ca-messages';

const domain = bankingDomain();

function observation(): CaObservation {
  const env = new CustomerEnvironment(12);
  env.reset(domain.scenarios.find((s) => s.persona) ?? domain.scenarios[0]!, 3);
  return env.observeCustomer();
}

describe('caMessages in the trained form', () => {
  const base = observation();
  const said = (utterance: string, id: string) => ({
    role: 'assistant',
    content: '',
    tool_calls: [{ id, type: 'function', function: { name: 'say', arguments: { utterance } } }],
  });

  it("opens with the call connecting, then one say call per customer line and the agent's words as its result", () => {
    const obs: CaObservation = {
      ...base,
      dialogue: [
        { role: 'customer', text: 'My card got charged twice.' },
        { role: 'agent', text: 'Which account?' },
        { role: 'customer', text: 'Checking.' },
        { role: 'agent', text: 'One moment.' },
      ],
    };
    const msgs = caMessages(obs, 'native');
    expect(msgs[0]!.content).toContain(`"${obs.intent}"`);
    expect(msgs[0]!.content).toMatch(/calling say/);
    expect(msgs.slice(1)).toEqual([
      { role: 'user', content: CALL_CONNECTS },
      said('My card got charged twice.', 'call_0'),
      { role: 'tool', tool_call_id: 'call_0', content: '{"agent":"Which account?"}' },
      said('Checking.', 'call_2'),
      { role: 'tool', tool_call_id: 'call_2', content: '{"agent":"One moment."}' },
    ]);
    // The episode's end: the last result says so, and carries no directive.
    const ended = caMessages({ ...obs, adversity: { withhold: 'amount' } }, 'native', true);
    expect(ended.at(-1)).toEqual({ role: 'tool', tool_call_id: 'call_2', content: '{"agent":"One moment.","call_ended":true}' });
    // A customer line the agent has not answered in words: an empty answer (or the end).
    const unanswered = { ...obs, dialogue: obs.dialogue.slice(0, 3) };
    expect(caMessages(unanswered, 'native').at(-1)!.content).toBe('{"agent":""}');
    expect(caMessages(unanswered, 'native', true).at(-1)!.content).toBe('{"call_ended":true}');
  });

  it('puts the directive on the last message: the opening note, or for_this_reply in the result', () => {
    const opening = caMessages({ ...base, dialogue: [], adversity: { withhold: 'amount' } }, 'native');
    expect(opening.at(-1)).toEqual({ role: 'user', content: `${CALL_CONNECTS}\n[For this reply: do not mention the amount yet.]` });
    const later = caMessages(
      {
        ...base,
        dialogue: [
          { role: 'customer', text: 'Hi.' },
          { role: 'agent', text: 'How can I help?' },
        ],
        adversity: { revise: true, reveal: 'It was in Ohio.' },
      },
      'native',
    );
    expect(JSON.parse(later.at(-1)!.content!)).toEqual({
      agent: 'How can I help?',
      for_this_reply: 'drop what you asked before and state what you really need now; add: "It was in Ohio."',
    });
  });

  it('maps back to the observation (serve-model), either form, and refuses what it is not', () => {
    const obs: CaObservation = {
      ...base,
      dialogue: [
        { role: 'agent', text: 'Thanks for calling.' },
        { role: 'customer', text: 'Hello.' },
        { role: 'agent', text: 'What happened?' },
      ],
      adversity: { hostile: 'This is ridiculous!', withhold: 'merchant' },
    };
    const want = obs.persona ? { ...obs, persona: { ...obs.persona, sampleMessages: [] } } : obs;
    expect(caObservationFromMessages(caMessages(obs, 'native'))).toEqual(want);
    expect(caObservationFromMessages(caMessages(obs, 'text'))).toEqual(want);
    const bad = caMessages(obs, 'native');
    bad[2] = { role: 'assistant', content: 'Hello.' };
    expect(() => caObservationFromMessages(bad)).toThrow(/messages\[2\]: a customer line in the trained form is one call of say/);
  });
});

describe('utteranceFromReply', () => {
  const reply = (text: string, toolCalls: { name: string; arguments: string }[]) => ({ text, toolCalls });
  it("reads the say call's utterance; text when there is no call; nothing from another function or bad arguments", () => {
    expect(utteranceFromReply(reply('', [{ name: 'say', arguments: '{"utterance":" I was charged twice. "}' }]), 'native')).toBe('I was charged twice.');
    expect(utteranceFromReply(reply(' Hello? ', []), 'native')).toBe('Hello?');
    expect(utteranceFromReply(reply('', [{ name: 'speak', arguments: '{"message":"hi"}' }]), 'native')).toBe('');
    expect(utteranceFromReply(reply('', [{ name: 'say', arguments: '{"utterance": ' }]), 'native')).toBe('');
    expect(
      utteranceFromReply(
        reply('', [
          { name: 'say', arguments: '{"utterance":"a"}' },
          { name: 'say', arguments: '{"utterance":"b"}' },
        ]),
        'native',
      ),
    ).toBe('');
    expect(utteranceFromReply(reply(' words ', [{ name: 'say', arguments: '{}' }]), 'text')).toBe('words');
  });
  it('offers one function, say, and its grammar fixes the name', () => {
    expect(caTools().map((t) => t.function.name)).toEqual(['say']);
    expect(caCallGrammarSchema()).toMatchObject({ properties: { name: { const: 'say' } } });
  });
});
