import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { fieldLabel, issueRule, issueSentence } from './issue-text';

const first = (schema: z.ZodType, value: unknown) => {
  const r = schema.safeParse(value);
  if (r.success) throw new Error('expected a failure');
  return r.error.issues[0]!;
};

describe('validator issues in plain words', () => {
  it('names a nested field as a person reads it, counting list items from 1', () => {
    expect(fieldLabel(['customArms', 0, 'name'])).toBe('custom arm 1 › name');
    expect(fieldLabel('tool_args.phone')).toBe('tool args › phone');
    expect(fieldLabel('gym.da.steps')).toBe('gym › DA › steps');
    expect(fieldLabel('scenarios.2')).toBe('scenario 3');
    expect(fieldLabel([])).toBe('the input');
  });

  it('words the issues the study, play and robustness screens showed raw', () => {
    const arms = z.object({ customArms: z.array(z.object({ name: z.string().min(1) })) });
    expect(issueSentence(first(arms, { customArms: [{ name: '' }] }))).toBe('Custom arm 1 › name must not be empty.');
    const phone = z.object({ phone: z.string().min(7) });
    expect(issueSentence(first(phone, { phone: '12' }))).toBe('Phone must be at least 7 characters long.');
    const episodes = z.object({ episodes: z.number().max(10_000) });
    expect(issueSentence(first(episodes, { episodes: 99_999 }))).toBe('Episodes must be at most 10,000.');
  });

  it('never returns zod wording for the common codes', () => {
    const cases: [z.ZodType, unknown, string][] = [
      [z.object({ seed: z.number() }), {}, 'is missing'],
      [z.object({ seed: z.number() }), { seed: 'x' }, 'must be a number'],
      [z.number().int(), 2.5, 'must be a whole number'],
      [z.number().min(1), 0, 'must be at least 1'],
      [z.number().positive(), 0, 'must be more than 0'],
      [z.number().lt(5), 5, 'must be less than 5'],
      [z.array(z.number()).min(1), [], 'needs at least one entry'],
      [z.array(z.number()).max(2), [1, 2, 3], 'may have at most 2 entries'],
      [z.string().max(3), 'abcd', 'must be at most 3 characters long'],
      [z.enum(['a', 'b']), 'c', 'must be one of "a", "b"'],
      [z.url(), 'nope', 'must be a valid URL'],
      [z.string().regex(/^x/), 'y', 'does not have the required form'],
      [z.strictObject({}), { colour: 1 }, 'has unknown field "colour"'],
      [z.union([z.number(), z.boolean()]), 'x', 'does not match any of the allowed forms'],
    ];
    for (const [schema, value, rule] of cases) {
      const text = issueRule(first(schema, value));
      expect(text).toBe(rule);
      expect(text).not.toMatch(/Too (small|big)|Invalid|expected [a-z]|>=|<=/);
    }
  });

  it("keeps a schema's own message, which is already written for a person", () => {
    expect(issueRule(first(z.number().int('must be an integer'), 1.5))).toBe('must be an integer');
    expect(issueSentence(first(z.object({ n: z.number().refine((v) => v > 2, 'needs more than two') }), { n: 1 }))).toBe('N: needs more than two.');
  });
});
