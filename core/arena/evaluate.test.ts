import { describe, expect, it } from 'vitest';
import { bankingDomain } from '../../host/domain-files';
import { ScriptedCa } from '../agents/scripted-ca';
import { ScriptedDa } from '../agents/scripted-da';
import type { DaPolicy } from '../agents/policy';
import { DEFAULT_CONFIG, withEpisodes } from '../config';
import { judgeEpisode } from '../judge/judge';
import { evaluateDa, gateScenarios, heldoutMetrics, isStrictPass, wilsonInterval } from './evaluate';

const domain = bankingDomain();
const run = (da: DaPolicy, seeds = [1, 2]) =>
  evaluateDa({
    domain,
    da,
    ca: new ScriptedCa(domain),
    judge: judgeEpisode,
    config: DEFAULT_CONFIG,
    seeds,
    episodesPerScenario: 1,
    gateEpisodesPerScenario: 2,
  });

describe('held-out evaluation', () => {
  it('covers the 12 held-out scenarios per run and the fraud-reference gate scenarios', async () => {
    const r = await run(new ScriptedDa());
    expect(r.heldout.episodes).toBe(24);
    expect(r.heldout.perScenario).toHaveLength(12);
    expect(r.gate.scenarios).toEqual(gateScenarios(domain).map((s) => s.id));
    expect(r.gate.episodes).toBe(gateScenarios(domain).length * 2 * 2);
    expect(r.gate.passed).toBe(r.gate.daWinRate! >= 0.9);
    const h = r.heldout;
    for (const x of [h.routingAccuracy, h.strictPass, h.fail, h.lookupFirst]) {
      expect(x).toBeGreaterThanOrEqual(0);
      expect(x).toBeLessThanOrEqual(1);
    }
    expect(h.strictPass).toBeLessThanOrEqual(h.routingAccuracy);
  });

  it("strict PASS needs correct routing, the judge's resolved, lookup first, r_DA ≥ 2, a clean end and no parse errors", async () => {
    const r = await run(new ScriptedDa(), [3]);
    // Recompute from the definition on a real episode set.
    const { runMatch } = await import('./match');
    const m = await runMatch({
      matchId: 'x',
      createdAt: '',
      domain,
      scenarios: domain.scenarios.filter((s) => s.set === 'heldout'),
      scenarioSet: 'heldout',
      da: new ScriptedDa(),
      ca: new ScriptedCa(domain),
      judge: judgeEpisode,
      config: withEpisodes(DEFAULT_CONFIG, 1),
      seed: 3,
    });
    const metrics = heldoutMetrics(m.episodes);
    expect(metrics).toEqual(r.heldout);
    for (const e of m.episodes) {
      const expected =
        e.winner === 'DA' &&
        e.judge.resolved &&
        e.turns.find((t) => t.actionType === 'tool_call')?.tool === 'lookup_account' &&
        e.rDa >= 2 &&
        e.endReason === 'end_call' &&
        e.turns.every((t) => t.parseError === null);
      expect(isStrictPass(e)).toBe(expected);
    }
    const broken = { ...m.episodes[0]!, winner: 'DA' as const, rDa: 5, endReason: 'turn_limit' as const };
    expect(isStrictPass(broken)).toBe(false);
    // PASS and FAIL are disjoint (RL-ADA Table 4): a routed, cleanly ended but unresolved episode is no PASS.
    const passing = m.episodes.find(isStrictPass);
    expect(passing).toBeDefined();
    expect(isStrictPass({ ...passing!, judge: { ...passing!.judge, resolved: false } })).toBe(false);
  });

  it('a DA that escalates everything passes the fraud gate and fails routing elsewhere', async () => {
    const escalate: DaPolicy = {
      name: 'escalate',
      act(obs) {
        const n = obs.turns.filter((t) => t.role === 'agent').length;
        const a = [
          { action_type: 'tool_call', content: 'lookup_account', tool_args: { phone: obs.caller.phone } },
          { action_type: 'tool_call', content: 'transfer_to_human', tool_args: { reason: 'help', department: 'fraud' } },
          { action_type: 'end_call', content: 'bye', tool_args: {} },
        ][Math.min(n, 2)]!;
        return JSON.stringify({ thinking: 'x', ...a });
      },
    };
    const r = await run(escalate, [1]);
    expect(r.gate.daWinRate).toBe(1);
    expect(r.gate.passed).toBe(true);
    const human = domain.scenarios.filter((s) => s.set === 'heldout' && s.expectedTool === 'transfer_to_human').length;
    expect(r.heldout.routingAccuracy).toBeCloseTo(human / 12);
    expect(r.heldout.lookupFirst).toBe(1);
  });
});

describe('Wilson interval of a held-out rate', () => {
  it('matches the textbook values, stays in [0, 1] and is not empty at 0% or 100%', () => {
    const [lo, hi] = wilsonInterval(24, 24)!;
    expect(lo).toBeCloseTo(0.862, 3);
    expect(hi).toBe(1);
    const [lo0, hi0] = wilsonInterval(0, 10)!;
    expect(lo0).toBe(0);
    expect(hi0).toBeCloseTo(0.2775, 4);
    // 22 of 24 (91.7%): [74.2, 97.7].
    const [a, b] = wilsonInterval(22, 24)!;
    expect(a).toBeCloseTo(0.742, 3);
    expect(b).toBeCloseTo(0.977, 3);
    // More episodes, a narrower interval around the same rate.
    const [c, d] = wilsonInterval(220, 240)!;
    expect(d - c).toBeLessThan((b - a) / 2.5);
    expect(wilsonInterval(0, 0)).toBeNull();
    expect(() => wilsonInterval(5, 4)).toThrow(/5 successes of 4/);
  });
});
