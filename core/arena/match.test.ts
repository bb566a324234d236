import { describe, expect, it } from 'vitest';
import { bankingDomain } from '../../host/domain-files';
import { ScriptedCa } from '../agents/scripted-ca';
import { ScriptedDa } from '../agents/scripted-da';
import type { CaPolicy, DaPolicy } from '../agents/policy';
import { DEFAULT_CONFIG, withEpisodes } from '../config';
import type { SparringConfig } from '../config';
import { judgeEpisode } from '../judge/judge';
import { createMemoryStore } from '../store/memory-store';
import { sumTerms } from '../rewards/terms';
import { runMatch, summarise } from './match';
import { selectScenarios } from './scenarios';

const domain = bankingDomain();
const config = (n: number): SparringConfig => withEpisodes(DEFAULT_CONFIG, n);
const play = (seed: number, n = 3, da: DaPolicy = new ScriptedDa(), ca: CaPolicy = new ScriptedCa(domain)) =>
  runMatch({
    matchId: 'M1',
    createdAt: '2026-01-01T00:00:00.000Z',
    domain,
    scenarios: selectScenarios(domain, 'arena'),
    scenarioSet: 'arena',
    da,
    ca,
    judge: judgeEpisode,
    config: config(n),
    seed,
  });

describe('runMatch', () => {
  it('plays N episodes per scenario and is deterministic for a seed', async () => {
    const a = await play(7);
    const b = await play(7);
    expect(a.episodes).toHaveLength(30);
    expect(a).toEqual(b);
    const c = await play(8);
    expect(c.episodes.map((e) => e.turns.map((t) => t.text))).not.toEqual(a.episodes.map((e) => e.turns.map((t) => t.text)));
  });

  it('computes W_DA over the CA-winnable scenarios only and the fraud rate apart', async () => {
    const { match, episodes } = await play(3);
    const ordinary = episodes.filter((e) => !e.fraudReference);
    const fraud = episodes.filter((e) => e.fraudReference);
    expect(ordinary.length).toBe(24);
    expect(fraud.length).toBe(6);
    expect(match.wDa).toBeCloseTo(ordinary.filter((e) => e.winner === 'DA').length / ordinary.length);
    expect(match.fraudRate).toBeCloseTo(fraud.filter((e) => e.winner === 'DA').length / fraud.length);
    for (const s of match.perScenario) expect(s.daWinRate).toBeCloseTo(s.daWins / s.episodes);
  });

  it('stores each reward term so that turns add up to the episode and terms to r_DA / r_CA', async () => {
    const { episodes } = await play(5, 2);
    for (const e of episodes) {
      expect(e.rDa).toBeCloseTo(sumTerms(e.daTerms));
      expect(e.rCa).toBeCloseTo(sumTerms(e.caTerms));
      const agentSum = e.turns.filter((t) => t.role === 'agent').reduce((s, t) => s + sumTerms(t.rewards as Record<string, number>), 0);
      const customerSum = e.turns.filter((t) => t.role === 'customer').reduce((s, t) => s + sumTerms(t.rewards as Record<string, number>), 0);
      expect(agentSum).toBeCloseTo(e.rDa);
      expect(customerSum).toBeCloseTo(e.rCa);
      expect(e.winner === 'DA').toBe(e.routedTool === e.expectedTool);
      expect(e.caTerms.inv_da).toBe(e.winner === 'DA' ? -1 : 1);
    }
  });

  it('a DA that never routes wins nothing; one that always escalates wins only the escalation scenarios', async () => {
    const lookupOnly: DaPolicy = {
      name: 'lookup-only',
      act(obs) {
        const called = obs.turns.filter((t) => t.role === 'agent').length;
        return called === 0
          ? JSON.stringify({ thinking: 'x', action_type: 'tool_call', content: 'lookup_account', tool_args: { phone: obs.caller.phone } })
          : JSON.stringify({ thinking: 'x', action_type: 'end_call', content: 'bye', tool_args: {} });
      },
    };
    // Without any domain tool the DA never wins.
    const none = await play(1, 1, lookupOnly);
    expect(none.match.wDa).toBe(0);
    expect(none.episodes.every((e) => e.daTerms.env_missing_tool === DEFAULT_CONFIG.daReward.missingDomainTool)).toBe(true);

    const escalate: DaPolicy = {
      name: 'escalate',
      act(obs) {
        const called = obs.turns.filter((t) => t.role === 'agent').length;
        return JSON.stringify(
          called === 0
            ? { thinking: 'x', action_type: 'tool_call', content: 'transfer_to_human', tool_args: { reason: 'anything' } }
            : { thinking: 'x', action_type: 'end_call', content: 'bye', tool_args: {} },
        );
      },
    };
    const esc = await play(1, 2, escalate);
    for (const s of esc.match.perScenario) {
      const expected = domain.scenarios.find((x) => x.id === s.scenarioId)!.expectedTool;
      expect(s.daWinRate).toBe(expected === 'transfer_to_human' ? 1 : 0);
    }
    expect(esc.match.fraudRate).toBe(1);
  });

  it('is stored atomically: a failing policy stores nothing, and a stored match reads back whole', async () => {
    const store = createMemoryStore();
    const ok = await play(2, 2);
    store.saveMatch(ok.match, ok.episodes);
    let calls = 0;
    const flaky: DaPolicy = {
      name: 'flaky',
      act(obs, rng) {
        if (++calls === 25) throw new Error('backend went away');
        return new ScriptedDa().act(obs, rng);
      },
    };
    await expect(play(2, 2, flaky)).rejects.toThrow('backend went away');
    expect(store.countEpisodes()).toBe(20);
    expect(store.getEpisode('M1:3')).toEqual(ok.episodes[3]);
  });

  it('summarise reports null rates for empty sets', () => {
    const s = summarise(
      selectScenarios(domain, 'heldout').filter((x) => !x.fraudReference),
      [],
    );
    expect(s.wDa).toBeNull();
    expect(s.fraudRate).toBeNull();
  });
});

describe('scripted agents', () => {
  it('the scripted DA follows lookup → domain tool → speak → end_call on a clear opening', async () => {
    const { episodes } = await play(11, 4);
    const clean = episodes.filter((e) => e.winner === 'DA' && e.judge.tier === 4);
    expect(clean.length).toBeGreaterThan(0);
    for (const e of clean) {
      const agent = e.turns.filter((t) => t.role === 'agent');
      expect(agent[0]!.tool).toBe('lookup_account');
      expect(agent.at(-1)!.actionType).toBe('end_call');
      expect(agent.filter((t) => t.actionType === 'tool_call' && t.tool !== 'lookup_account')).toHaveLength(1);
    }
  });

  it('the scripted CA speaks only in natural language and is pushed toward concealment by decoys and vagueness', async () => {
    const direct = new ScriptedCa(domain, {
      directness: { direct: 1, indirect: 0, vague: 0 },
      detail: 1,
      decoy: 0,
      hedge: 0,
      tone: { neutral: 1, frustrated: 0, anxious: 0 },
    });
    const sly = new ScriptedCa(domain, {
      directness: { direct: 0, indirect: 0.3, vague: 0.7 },
      detail: 0.2,
      decoy: 1,
      hedge: 0.8,
      tone: { neutral: 1, frustrated: 0, anxious: 0 },
    });
    const a = await play(4, 6, new ScriptedDa(), direct);
    const b = await play(4, 6, new ScriptedDa(), sly);
    for (const e of [...a.episodes, ...b.episodes]) {
      const opening = e.turns[0]!;
      expect(opening.role).toBe('customer');
      expect(opening.text).not.toMatch(/[{}]/);
      expect(e.caTerms.format).toBeGreaterThan(0);
    }
    // The sly customer beats the keyword router more often than the plain one.
    expect(b.match.wDa!).toBeLessThan(a.match.wDa!);
  });
});
