import { describe, expect, it } from 'vitest';
import { bankingDomain } from '../../host/domain-files';
import type { CaPolicy, DaPolicy } from '../agents/policy';
import { ScriptedCa } from '../agents/scripted-ca';
import { ScriptedDa } from '../agents/scripted-da';
import { DEFAULT_CONFIG } from '../config';
import { judgeEpisode } from '../judge/judge';
import { meanInterval, wilsonInterval } from '../stats/intervals';
import type { HeldoutMetrics } from './evaluate';
import { runEpisode } from './match';
import { PanelError, ReplayCa, panelSummary, selectPanel, sharesLineage } from './panel';
import type { PanelCandidates, PanelCounterpart, PanelMeasurement } from './panel';

const candidates: PanelCandidates = {
  runCas: [
    { name: 'CA2', runId: 'R1', lineageRuns: ['R1'] },
    { name: 'CA4', runId: 'R2', lineageRuns: ['R2'] },
    // Trained in R3 from a CA of R1: it shares R1's lineage.
    { name: 'CA6', runId: 'R3', lineageRuns: ['R3', 'R1'] },
  ],
  humanEpisodes: ['H1:0', 'H2:0'],
  llmEndpoints: ['qwen'],
};
const da = { lineageRuns: ['R1'], humanEpisodesSeen: ['H2:0'] };

describe('panel selection', () => {
  it("auto takes scripted, other runs' final CAs, unseen human episodes and LLM CAs, never the DA's own lineage", () => {
    const p = selectPanel(candidates, da, 'auto');
    expect(p.map((c) => c.key)).toEqual(['scripted', 'ca:CA4', 'human:H1:0', 'llm:qwen']);
    expect(p.find((c) => c.kind === 'human')!.episodeIds).toEqual(['H1:0']);
    expect(sharesLineage(candidates.runCas[2]!, da)).toBe(true);
    // A DA from R2 gets R1's CAs and not its own.
    expect(selectPanel(candidates, { lineageRuns: ['R2'], humanEpisodesSeen: [] }, 'auto').map((c) => c.key)).toEqual([
      'scripted',
      'ca:CA2',
      'ca:CA6',
      'human:H1:0,H2:0',
      'llm:qwen',
    ]);
  });

  it("a listed member of the DA's lineage or an unknown name is an error that names it", () => {
    expect(selectPanel(candidates, da, ['CA4', 'scripted', 'CA4']).map((c) => c.key)).toEqual(['ca:CA4', 'scripted']);
    expect(() => selectPanel(candidates, da, ['CA6'])).toThrow(PanelError);
    expect(() => selectPanel(candidates, da, ['CA6'])).toThrow(/CA6: shares the DA's run lineage \(R1\)/);
    expect(() => selectPanel(candidates, da, ['CA9'])).toThrow(/CA9: not a panel member.*CA2, CA4, CA6/);
    expect(() => selectPanel({ ...candidates, humanEpisodes: ['H2:0'] }, da, ['human'])).toThrow(/no human-played customer episodes the DA did not train on/);
  });
});

const metrics = (
  episodes: number,
  routing: number,
  strictPass: number,
  meanReward: number,
): Pick<HeldoutMetrics, 'episodes' | 'routingAccuracy' | 'strictPass' | 'meanReward'> => ({ episodes, routingAccuracy: routing, strictPass, meanReward });
const cp = (key: string): PanelCounterpart => ({ key, kind: 'run-ca', label: key, spec: key, runId: null });

describe('panel figures', () => {
  const panel: PanelMeasurement[] = [
    { counterpart: cp('a'), heldout: metrics(4, 0.5, 0.25, 2) },
    { counterpart: cp('b'), heldout: metrics(4, 1, 0.75, 6) },
    { counterpart: cp('c'), heldout: metrics(8, 0.75, 0.5, 4) },
  ];
  const s = panelSummary(panel, { counterpart: cp('t'), heldout: metrics(8, 1, 1, 9) });

  it('per counterpart: rates with the Wilson interval over its episodes, mean reward without', () => {
    expect(s.rows.map((r) => r.counterpart.key)).toEqual(['a', 'b', 'c']);
    expect(s.rows[0]!.cells.routing).toEqual({ value: 0.5, ci: wilsonInterval(2, 4), n: 4 });
    expect(s.rows[2]!.cells.strictPass).toEqual({ value: 0.5, ci: wilsonInterval(4, 8), n: 8 });
    expect(s.rows[1]!.cells.meanReward).toEqual({ value: 6, ci: null, n: 4 });
  });

  it('averaged: the mean over counterparts with its t interval', () => {
    // A rate's interval is cut to [0, 1] (the t-interval of these three reaches 137%).
    expect(s.average.routing).toEqual(meanInterval([0.5, 1, 0.75], 0.95, [0, 1]));
    expect(s.average.routing.ci![1]).toBe(1);
    expect(s.average.routing.mean).toBeCloseTo(0.75, 12);
    expect(s.average.meanReward.mean).toBeCloseTo(4, 12);
    expect(s.average.meanReward.n).toBe(3);
  });

  it('the mismatch gap is training − panel average, with the interval of the per-counterpart differences', () => {
    expect(s.gap!.routing.mean).toBeCloseTo(1 - 0.75, 12);
    expect(s.gap!.strictPass.mean).toBeCloseTo(1 - 0.5, 12);
    expect(s.gap!.meanReward).toEqual(meanInterval([7, 3, 5]));
    expect(s.gap!.meanReward.ci![0]).toBeLessThan(5);
    expect(panelSummary(panel, null).gap).toBeNull();
    // A counterpart measured on nothing is left out rather than counted as 0.
    expect(panelSummary([...panel, { counterpart: cp('empty'), heldout: metrics(0, 0, 0, 0) }], null).average.routing.n).toBe(3);
  });
});

describe('a human episode replayed to another DA', () => {
  const domain = bankingDomain();
  const scenario = domain.scenarios.find((s) => s.set === 'heldout')!;
  const play = (da: DaPolicy, ca: CaPolicy, seed = 7) =>
    runEpisode({ domain, scenario, seed, da, ca, judge: judgeEpisode, config: DEFAULT_CONFIG, matchId: 'h', index: 0 });

  it('replays every human utterance while the DA says what the recorded DA said', async () => {
    const recorded = (await play(new ScriptedDa(), new ScriptedCa(domain))).record;
    const humanTurns = recorded.turns.filter((t) => t.role === 'customer').map((t) => t.text);
    const ca = new ReplayCa(recorded, new ScriptedCa(domain));
    const again = (await play(new ScriptedDa(), ca)).record;
    expect(humanTurns.length).toBeGreaterThan(1);
    expect(ca.humanTurns).toBe(humanTurns.length);
    expect(ca.replayed).toBe(humanTurns.length);
    expect(again.turns.filter((t) => t.role === 'customer').map((t) => t.text)).toEqual(humanTurns);
  });

  it('falls back to the other CA after the opening when the DA answers differently', async () => {
    const recorded = (await play(new ScriptedDa(), new ScriptedCa(domain))).record;
    // A DA that first asks something the recorded one never said, then routes as the scripted one.
    const scripted = new ScriptedDa();
    let asked = false;
    const other: DaPolicy = {
      name: 'other',
      act: (obs, rng) =>
        asked ? scripted.act(obs, rng) : ((asked = true), JSON.stringify({ action_type: 'speak', content: 'Could you say that once more, in other words?' })),
    };
    const fallback = new ScriptedCa(domain);
    let fallbackCalls = 0;
    const counting: CaPolicy = { name: 'fallback', speak: (o, r) => (fallbackCalls++, fallback.speak(o, r)) };
    const ca = new ReplayCa(recorded, counting);
    const again = (await play(other, ca)).record;
    expect(again.turns[0]!.text).toBe(recorded.turns[0]!.text);
    expect(ca.replayed).toBe(1);
    expect(ca.diverged).toBe(true);
    expect(fallbackCalls).toBe(again.turns.filter((t) => t.role === 'customer').length - 1);
  });
});
