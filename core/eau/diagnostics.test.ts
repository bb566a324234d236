import { describe, expect, it } from 'vitest';
import { DEFAULT_CONFIG } from '../config';
import { PRESETS } from '../presets';
import { zeroCaTerms, zeroDaTerms } from '../rewards/terms';
import type { CaTerms, DaTerms } from '../rewards/terms';
import {
  DEFAULT_THRESHOLDS,
  diagnoseDeadlock,
  diagnoseDegenerateGym,
  diagnoseLeakage,
  diagnoseMatch,
  diagnoseRewardHacking,
  diagnoseTemplateCollapse,
  digestMatch,
  distinctN,
  knobValues,
  slope,
} from './diagnostics';
import type { DiagnosticEpisode } from './diagnostics';

const quick = PRESETS.quick.config;
const knobs = knobValues(quick, { ...DEFAULT_CONFIG, arena: { ...quick.arena } });
const taxonomy = [
  { intent: 'card_arrival', reveals: ['my card has not arrived'] },
  { intent: 'transaction_charged_twice', reveals: ['charged twice'] },
];

const agent = (actionType: 'speak' | 'tool_call' | 'end_call', content: string) => ({
  role: 'agent' as const,
  actionType,
  text: JSON.stringify({ thinking: 't', action_type: actionType, content, tool_args: {} }),
});
const customer = (text: string) => ({ role: 'customer' as const, actionType: null, text });

function episode(id: string, o: Partial<DiagnosticEpisode> & { da?: Partial<DaTerms>; ca?: Partial<CaTerms> } = {}): DiagnosticEpisode {
  const { da, ca, ...rest } = o;
  return {
    id,
    intent: 'card_arrival',
    expectedTool: 'check_card_status',
    routedTool: 'check_card_status',
    endReason: 'end_call',
    fraudReference: false,
    rDa: 1,
    rCa: 0,
    daTerms: { ...zeroDaTerms(), ...da },
    caTerms: { ...zeroCaTerms(), ...ca },
    judge: { score: 1 },
    turns: [customer(`hello there number ${id} with some words`), agent('tool_call', 'lookup_account'), agent('speak', `done for you ${id} today`)],
    ...rest,
  };
}

describe('distinct-n and slope', () => {
  it('distinct-n is distinct n-grams over all n-grams', () => {
    expect(distinctN(['a b c', 'a b c'], 2)).toBe(2 / 4);
    expect(distinctN(['a b c', 'd e f'], 2)).toBe(1);
    expect(distinctN(['a'], 2)).toBeNull();
  });
  it('slope is the least-squares one', () => {
    expect(
      slope([
        [1, 1],
        [2, 3],
        [3, 5],
      ]),
    ).toBeCloseTo(2);
    expect(slope([[1, 2]])).toBe(0);
  });
});

describe('deadlock', () => {
  it('fires above 20% of episodes at the turn limit without a domain tool, and proposes a higher limit', () => {
    const eps = Array.from({ length: 10 }, (_, i) => episode(`M1:${i}`, i < 4 ? { endReason: 'turn_limit', routedTool: null } : {}));
    const [p, ...rest] = diagnoseDeadlock(1, eps, { ...knobs, 'arena.maxDaTurns': 2 });
    expect(rest).toEqual([]);
    expect(p!.knob).toBe('arena.maxDaTurns');
    expect(p!.value).toBe(4); // max(2 + 2, ceil(2 × 1.5))
    expect(p!.source).toEqual({ kind: 'diagnostic', name: 'deadlock' });
    expect(p!.evidence.episodes).toEqual(['M1:0', 'M1:1', 'M1:2', 'M1:3']);
    expect(p!.evidence.figures.deadlockRate).toBe(0.4);
    expect(p!.at).toEqual({ matchIndex: 1 });
  });
  it('does not fire at 20%, nor for turn-limit episodes that routed', () => {
    const eps = Array.from({ length: 10 }, (_, i) =>
      episode(`M1:${i}`, i < 2 ? { endReason: 'turn_limit', routedTool: null } : i < 8 ? { endReason: 'turn_limit' } : {}),
    );
    expect(diagnoseDeadlock(1, eps, knobs)).toEqual([]);
  });
  it('never proposes past the config bound of 50 turns', () => {
    const eps = [episode('M1:0', { endReason: 'turn_limit', routedTool: null })];
    expect(diagnoseDeadlock(1, eps, { ...knobs, 'arena.maxDaTurns': 50 })).toEqual([]);
  });
});

describe('reward hacking', () => {
  /** A match of 30 episodes whose r_DA, routing, J and the milestone term follow the given values, with a little spread. */
  function match(i: number, rDa: number, routed: number, judge: number, milestone: number) {
    const eps = Array.from({ length: 30 }, (_, k) =>
      episode(`M${i}:${k}`, {
        rDa: rDa + (k % 2 ? 0.1 : -0.1),
        judge: { score: judge + (k % 2 ? 0.05 : -0.05) },
        da: { env_milestone: milestone },
        routedTool: k < routed * 30 ? 'check_card_status' : 'dispute_charge',
      }),
    );
    return digestMatch(i, eps);
  }
  it('fires when r_DA rises while routing falls beyond noise, and halves the weight of the term that rose most', () => {
    const digests = [match(1, 1.0, 0.9, 1.0, 0.3), match(2, 1.5, 0.6, 0.5, 0.7), match(3, 2.0, 0.3, 0.0, 1.05)];
    const ps = diagnoseRewardHacking(digests, knobs);
    expect(ps).toHaveLength(1);
    expect(ps[0]!.knob).toBe('daReward.milestoneCap');
    expect(ps[0]!.value).toBeCloseTo(DEFAULT_CONFIG.daReward.milestoneCap / 2);
    expect(ps[0]!.source).toEqual({ kind: 'diagnostic', name: 'reward-hacking' });
    expect(ps[0]!.evidence.figures.rewardChange).toBeCloseTo(1.0);
    expect(ps[0]!.evidence.figures.routingChange).toBeCloseTo(-0.6);
    expect(ps[0]!.evidence.series.map((s) => s.name)).toEqual(['mean r_DA', 'routing success', 'mean judge J', 'mean env_milestone (DA)']);
  });
  it('does not fire when reward and routing rise together, nor on changes within noise, nor before the window fills', () => {
    expect(diagnoseRewardHacking([match(1, 1.0, 0.3, 0, 0.3), match(2, 1.5, 0.6, 0.5, 0.7), match(3, 2.0, 0.9, 1.0, 1.05)], knobs)).toEqual([]);
    // Routing 0.9 → 0.87 over 30 episodes a match is inside two standard errors.
    expect(diagnoseRewardHacking([match(1, 1.0, 0.9, 1, 0.3), match(2, 1.5, 0.9, 1, 0.7), match(3, 2.0, 0.87, 1, 1.05)], knobs)).toEqual([]);
    expect(diagnoseRewardHacking([match(1, 1.0, 0.9, 1, 0.3), match(2, 2.0, 0.3, 0, 1.05)], knobs)).toEqual([]);
  });
});

describe('template collapse', () => {
  const varied = (i: number) =>
    Array.from({ length: 12 }, (_, k) =>
      episode(`M${i}:${k}`, {
        turns: [customer(`opening ${k} about the parcel ${k * 7} from shop ${k * 3} yesterday`), agent('speak', `answer ${k} for case ${k * 5}`)],
      }),
    );
  const same = (i: number) =>
    Array.from({ length: 12 }, (_, k) =>
      episode(`M${i}:${k}`, {
        turns: [customer('my card my card my card is late'), agent('speak', `answer ${k} for case ${k * 5}`)],
      }),
    );
  it("fires when the CA's openings lose their distinct n-grams, proposing a larger β for the CA", () => {
    const ps = diagnoseTemplateCollapse([digestMatch(1, varied(1)), digestMatch(2, same(2))], knobs);
    expect(ps).toHaveLength(1);
    expect(ps[0]!.knob).toBe('gym.ca.klBeta');
    expect(ps[0]!.value).toBeCloseTo(quick.gym.ca.klBeta * 2);
    expect(ps[0]!.evidence.figures.distinct2).toBeLessThan(DEFAULT_THRESHOLDS.templateCollapse.floor);
    expect(ps[0]!.evidence.series[0]!.points).toHaveLength(2);
  });
  it('measures every match on the same number of texts, evenly spaced', () => {
    const big = Array.from({ length: 90 }, (_, k) => episode(`M1:${k}`, { turns: [customer(`opening ${k} about ${k * 7}`), agent('speak', `answer ${k}`)] }));
    const d = digestMatch(1, big);
    expect([d.caOpenings.texts, d.daSpeeches.texts]).toEqual([30, 30]);
    expect(d.caOpenings.distinct2).toBe(
      distinctN(
        big.filter((_, k) => k % 3 === 0).map((e) => e.turns[0]!.text),
        2,
      ),
    );
  });
  it('does not fire on varied openings and speeches', () => {
    expect(diagnoseTemplateCollapse([digestMatch(1, varied(1)), digestMatch(2, varied(2))], knobs)).toEqual([]);
  });
  it('fires on a relative drop against the first match even above the floor', () => {
    const half = (i: number) =>
      Array.from({ length: 12 }, (_, k) =>
        episode(`M${i}:${k}`, {
          turns: [customer(`opening ${k % 3} about the parcel ${k % 3} from shop ${k % 3} yesterday`), agent('speak', `answer ${k} for case ${k * 5}`)],
        }),
      );
    const ps = diagnoseTemplateCollapse([digestMatch(1, varied(1)), digestMatch(2, half(2))], knobs);
    expect(ps.map((p) => p.knob)).toEqual(['gym.ca.klBeta']);
    expect(ps[0]!.reason).toMatch(/≤ 0\.60 × match 1's/);
  });
});

describe('leakage', () => {
  const eps = (leaks: number, arm?: (k: number) => 'symbolic' | 'learned') =>
    Array.from({ length: 10 }, (_, k) =>
      episode(`M1:${k}`, {
        turns: [customer(k < leaks ? 'hi, my card has not arrived yet' : 'hi, something about the thing I ordered'), agent('speak', 'ok')],
        ...(arm ? { customer: arm(k) } : {}),
      }),
    );
  it('fires above 10% of episodes stating the intent, proposing a stronger concealment penalty', () => {
    const [p, ...rest] = diagnoseLeakage(1, eps(3), taxonomy, knobs);
    expect(rest).toEqual([]);
    expect(p!.knob).toBe('caReward.concealPenalty');
    expect(p!.value).toBe(DEFAULT_CONFIG.caReward.concealPenalty * 2);
    expect(p!.evidence.episodes).toEqual(['M1:0', 'M1:1', 'M1:2']);
  });
  it('matches the intent label with spaces too', () => {
    const e = eps(0).map((x, k) => (k < 5 ? { ...x, turns: [customer('a Card Arrival question'), agent('speak', 'ok')] } : x));
    expect(diagnoseLeakage(1, e, taxonomy, knobs)).toHaveLength(1);
  });
  it('proposes a smaller ε when the symbolic customer is the one that leaks', () => {
    const [p] = diagnoseLeakage(
      1,
      eps(3, (k) => (k < 4 ? 'symbolic' : 'learned')),
      taxonomy,
      { ...knobs, 'customer.symbolicMix': 0.4 },
    );
    expect(p!.knob).toBe('customer.symbolicMix');
    expect(p!.value).toBe(0.2);
    expect(p!.evidence.figures.symbolicLeakRate).toBe(0.75);
  });
  it('does not fire at 10% or below', () => {
    expect(diagnoseLeakage(1, eps(1), taxonomy, knobs)).toEqual([]);
  });
});

describe('degenerate gym', () => {
  it('fires above half the groups with zero variance, proposing a doubled K', () => {
    const [p] = diagnoseDegenerateGym({ gymId: 'DA1', role: 'DA', groupsPerStep: 8, skippedGroups: [6, 5, 7, 4] }, knobs);
    expect(p!.knob).toBe('gym.da.K');
    expect(p!.value).toBe(quick.gym.da.K * 2);
    expect(p!.evidence.figures.zeroVarianceShare).toBeCloseTo(22 / 32);
    expect(p!.at).toEqual({ gymId: 'DA1' });
  });
  it('moves the failure share at a large K', () => {
    const [p] = diagnoseDegenerateGym({ gymId: 'CA1', role: 'CA', groupsPerStep: 4, skippedGroups: [4, 4] }, { ...knobs, 'gym.ca.K': 32 });
    expect([p!.knob, p!.value]).toEqual(['gym.failureShare', 0.5]);
  });
  it('does not fire at half or below', () => {
    expect(diagnoseDegenerateGym({ gymId: 'DA1', role: 'DA', groupsPerStep: 8, skippedGroups: [4, 4] }, knobs)).toEqual([]);
  });
});

describe('a healthy match', () => {
  it('proposes nothing', () => {
    const eps = Array.from({ length: 12 }, (_, k) =>
      episode(`M1:${k}`, {
        turns: [
          customer(`opening ${k} about the parcel ${k * 7} from shop ${k * 3}`),
          agent('tool_call', 'lookup_account'),
          agent('speak', `answer ${k} for case ${k * 5}`),
        ],
      }),
    );
    const r = diagnoseMatch({ matchIndex: 1, episodes: eps, earlier: [], taxonomy, knobs });
    expect(r.proposals).toEqual([]);
    expect(r.digest.episodes).toBe(12);
  });
});
