import { describe, expect, it } from 'vitest';
import { llmJudgeOf, llmRoleOf, managedTrainerOf, withLlmRole } from './llm-roles';

describe("the run's LLM role pickers", () => {
  const base = JSON.stringify({ arena: { episodesPerScenario: 3 }, schedule: { caGyms: true } }, null, 2);
  it('writes schedule.llm.da / .ca and reads them back, keeping the rest of the schedule', () => {
    const t = withLlmRole(withLlmRole(base, 'ca', 'qwen7b'), 'da', 'qwen3b');
    expect(JSON.parse(t)).toEqual({ arena: { episodesPerScenario: 3 }, schedule: { caGyms: true, llm: { ca: 'qwen7b', da: 'qwen3b' } } });
    expect(llmRoleOf(t, 'ca')).toBe('qwen7b');
    expect(llmRoleOf(t, 'da')).toBe('qwen3b');
  });
  it('the builtin choice removes the role, then the emptied blocks', () => {
    const t = withLlmRole(withLlmRole(JSON.stringify({ arena: {} }), 'ca', 'x'), 'ca', '');
    expect(JSON.parse(t)).toEqual({ arena: {} });
    expect(JSON.parse(withLlmRole(withLlmRole(base, 'da', 'x'), 'da', ''))).toEqual(JSON.parse(base));
  });
  it('leaves text that is not JSON alone and reads no role from it', () => {
    expect(withLlmRole('{ broken', 'da', 'x')).toBe('{ broken');
    expect(llmRoleOf('{ broken', 'da')).toBe('');
  });
  it("reads an LLM judge from the config's judge; the rule judge is none", () => {
    expect(llmJudgeOf(JSON.stringify({ judge: 'judge7b' }))).toBe('judge7b');
    expect(llmJudgeOf(JSON.stringify({ judge: 'rule' }))).toBe('');
    expect(llmJudgeOf(base)).toBe('');
    expect(llmJudgeOf('{ broken')).toBe('');
  });
  it("reads a role's managed trainer from gym.<role>.trainer; builtin and external gyms have none", () => {
    const trl = { kind: 'trl', python: '.venv/bin/python', model: '/models/qwen' };
    const t = JSON.stringify({ gym: { da: { steps: 1, trainer: trl }, ca: { steps: 1, trainer: 'external' } } });
    expect(managedTrainerOf(t, 'da')).toBe('TRL');
    expect(managedTrainerOf(t, 'ca')).toBe('');
    expect(managedTrainerOf(JSON.stringify({ gym: { da: { trainer: { kind: 'external' } } } }), 'da')).toBe('');
    expect(managedTrainerOf(base, 'da')).toBe('');
    expect(managedTrainerOf('{ broken', 'da')).toBe('');
  });
});
