import { describe, expect, it } from 'vitest';
import { formatDaAction, parseDaOutput } from './wire';

describe('parseDaOutput', () => {
  it('accepts a well-formed action and round-trips it', () => {
    const raw = formatDaAction({ thinking: 'verify first', action_type: 'tool_call', content: 'lookup_account', tool_args: { phone: '+1 555 123 4567' } });
    const r = parseDaOutput(raw);
    expect(r).toEqual({
      ok: true,
      action: { thinking: 'verify first', action_type: 'tool_call', content: 'lookup_account', tool_args: { phone: '+1 555 123 4567' } },
    });
  });

  it('fills a missing thinking with "" and missing tool_args with {}', () => {
    const r = parseDaOutput('{"action_type":"speak","content":"Hello"}');
    expect(r).toEqual({ ok: true, action: { thinking: '', action_type: 'speak', content: 'Hello', tool_args: {} } });
  });

  it('allows surrounding whitespace', () => {
    expect(parseDaOutput('  {"action_type":"end_call","content":"bye"}\n').ok).toBe(true);
  });

  const bad: [string, string, RegExp][] = [
    ['truncated JSON', '{"thinking": "x", "action_type": "speak"', /not valid JSON/],
    ['trailing comma (never repaired)', '{"action_type":"speak","content":"hi",}', /not valid JSON/],
    ['prose around the JSON (never extracted)', 'Sure! {"action_type":"speak","content":"hi"}', /not valid JSON/],
    ['an array', '[1,2]', /expected a JSON object/],
    ['null', 'null', /expected a JSON object/],
    ['a string', '"speak"', /expected a JSON object/],
    ['unknown action type', '{"action_type":"shout","content":"hi"}', /action_type/],
    ['missing action type', '{"content":"hi"}', /action_type/],
    ['content not a string', '{"action_type":"speak","content":42}', /content/],
    ['thinking not a string', '{"thinking":["a"],"action_type":"speak","content":"hi"}', /thinking/],
    ['tool_args an array', '{"action_type":"tool_call","content":"lookup_account","tool_args":[]}', /tool_args/],
    ['tool_call with no tool name', '{"action_type":"tool_call","content":"  "}', /must name the tool/],
    ['unknown field', '{"action_type":"speak","content":"hi","tone":"warm"}', /unknown field "tone"/],
    ['empty output', '', /not valid JSON/],
  ];
  it.each(bad)('rejects %s', (_name, raw, why) => {
    const r = parseDaOutput(raw);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.error).toMatch(why);
  });
});
