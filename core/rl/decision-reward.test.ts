import { describe, expect, it } from 'vitest';
import type { DaTerms } from '../rewards/terms';
import { decisionReward } from './da-rollout';

describe('decisionReward (r_DA of one GRPO completion)', () => {
  it('counts r_format and r_tool of the decision turn only, and every r_env and r_end term', () => {
    const perTurn = new Map<number, Partial<DaTerms>>([
      [1, { format: 0.5, env_lookup_first: 0.5, env_milestone: 0.35 }],
      [2, { format: 0.5, tool: 1, env_correct_tool: 2 }],
      [3, { format: 0.5, env_speak: -0.05 }],
      [5, { format: 0.5, env_late: -0.12, end: 1, env_judge: 2 }],
    ]);
    // decision at turn 2: its format and tool, plus all env and end terms
    expect(decisionReward(perTurn, 2)).toBeCloseTo(0.5 + 1 + 0.5 + 0.35 + 2 - 0.05 - 0.12 + 1 + 2);
    // a longer call earns no extra format bonus for the decision
    expect(decisionReward(perTurn, 3)).toBeCloseTo(0.5 + 0.5 + 0.35 + 2 - 0.05 - 0.12 + 1 + 2);
  });
});
