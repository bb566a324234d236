import { describe, expect, it } from 'vitest';
import type { RunDetail } from '../../core/contract/contract';
import { DEFAULT_CONFIG } from '../../core/config';
import { stoppingDecision, weakerAgent } from '../../core/coevolution/stopping';
import type { MatchRecord } from '../../core/store/port';
import { panelSummary } from '../../core/arena/panel';
import { renderReport } from './report';
import { settingsOf } from '../../core/coevolution/run-settings';
import { PRESETS } from '../../core/presets';

const tactics = { n: 30, meanTokens: 33, meanEntityDensity: 0.05, meanEntities: 1.6, decoyRate: 0.3, hedgeRate: 0.4 };
const w = [0.45, 0.63, 0.55];
const run: RunDetail = {
  id: 'R1',
  createdAt: '2026-01-01',
  status: 'finished',
  phase: 'done',
  preset: 'quick',
  seed: 1,
  matches: 3,
  lastWDa: 0.55,
  error: null,
  live: false,
  pauseRequested: false,
  heldout: null,
  configJson: '{}',
  stopping: DEFAULT_CONFIG.stopping,
  progress: null,
  matchSummaries: w.map((x, i) => {
    const stop = stoppingDecision(w.slice(0, i + 1), { ...DEFAULT_CONFIG.stopping, nMax: 3 });
    return {
      matchId: `R1-M${i + 1}`,
      index: i + 1,
      da: 'DA0',
      ca: 'CA0',
      wDa: x,
      fraudRate: 1,
      tactics,
      stop,
      next: stop.stop ? null : weakerAgent(x, DEFAULT_CONFIG.stopping),
    };
  }),
  gyms: [
    { role: 'DA', from: 'DA0', to: 'DA1', afterMatch: 1, note: null },
    { role: 'CA', from: 'CA0', to: 'CA1', afterMatch: 2, note: null },
  ],
  evaluation: {
    checkpoints: [
      {
        da: 'DA0',
        ca: 'CA1',
        heldout: { episodes: 12, routingAccuracy: 0.5, strictPass: 0.25, fail: 0.5, meanReward: 3.1, lookupFirst: 1, perScenario: [] },
        gate: { threshold: 0.9, scenarios: [], episodes: 8, daWinRate: 0.75, passed: false },
      },
    ],
  },
};
const match: MatchRecord = {
  id: 'R1-M1',
  createdAt: '',
  seed: 1,
  daSpec: 'DA0',
  caSpec: 'latest',
  daCheckpoint: { name: 'DA0', id: 'DA0' },
  caCheckpoint: { name: 'CA0', id: 'CA0' },
  scenarioSet: 'arena',
  episodesPerScenario: 3,
  wDa: 0.45,
  fraudRate: 1,
  configJson: '{}',
  perScenario: [
    { scenarioId: 'dispute-duplicate', fraudReference: false, episodes: 3, daWins: 1, daWinRate: 1 / 3 },
    { scenarioId: 'fraud-x', fraudReference: true, episodes: 3, daWins: 3, daWinRate: 1 },
  ],
};

describe('run report', () => {
  it('is one self-contained HTML page with the W_DA chart, gym phases, per-scenario bars and the held-out table', () => {
    const html = renderReport(run, [match]);
    expect(html).toMatch(/^<!doctype html>/);
    expect(html).not.toMatch(/<script|src="http|href="http/);
    expect(html).toContain('τ_DA = 0.60');
    expect(html).toContain('DA gym → DA1');
    expect(html).toContain('CA gym → CA1');
    expect((html.match(/<circle /g) ?? []).length).toBe(6); // W_DA and W_CA points of 3 matches
    expect(html).toContain('stop at match 3: n_max=3 matches exhausted');
    expect(html).toContain('dispute-duplicate');
    // The match says what played: the SPEC and, when it named another, the checkpoint it resolved to.
    expect(html).toContain('R1-M1: DA0 vs latest → CA0');
    expect(html).toContain('fraud-x ⚑');
    expect(html).toContain('<td>25.0% [9–53]</td>'); // strict PASS of DA0: 3 of 12 episodes, with its 95% Wilson interval
    expect(html).toContain('the Wilson interval over the 12 held-out episodes');
    expect(html).not.toContain('gym-notes');
    expect(html).not.toContain('Against the scripted CA'); // this evaluation has no reference
  });

  it('gives the settings the run ran with, resolved from its config, and none when the config no longer parses', () => {
    const settings = settingsOf(JSON.stringify(PRESETS.paper.config), 'R1', 1);
    const html = renderReport({ ...run, settings }, [match]);
    const after = html.slice(html.indexOf('<h2>Settings</h2>'));
    expect(after).toContain('<th>DA0 warm-up</th><th>CA0 pressure</th><th>DA gym</th><th>CA gym</th>');
    expect(after).toMatch(/<td>temperature<\/td><td>1<\/td><td>1<\/td><td>1<\/td><td>1<\/td>/);
    expect(after).toMatch(/<td>oversample<\/td><td>1<\/td><td>1<\/td><td>1<\/td><td>2<\/td>/);
    expect(after).toContain('Gym data 70:30 failure:success, the latest 3 matches.');
    expect(after).toContain('invDaMisroute 1');
    expect(renderReport({ ...run, settings: null }, [match])).not.toContain('<h2>Settings</h2>');
  });

  it('adds the held-out table against the scripted CA when the evaluation has it', () => {
    const [e] = (run.evaluation as { checkpoints: Record<string, unknown>[] }).checkpoints;
    const reference = { ca: 'scripted', heldout: { ...(e!.heldout as object), strictPass: 0.75 }, gate: e!.gate };
    const html = renderReport({ ...run, evaluation: { checkpoints: [{ ...e, reference }] } }, [match]);
    const after = html.slice(html.indexOf('Against the scripted CA'));
    expect(after).toContain('<td>75.0% [47–91]</td>');
    expect(html.slice(0, html.indexOf('Against the scripted CA'))).toContain('<td>25.0% [9–53]</td>');
  });

  it('says why a gym ended early, for that gym only, escaped', () => {
    const note = 'stopped after step 41 of 60: mean KL to the start over the last 5 steps 1.17 > maxKl 1 (trust region) <x>';
    const html = renderReport({ ...run, gyms: [run.gyms[0]!, { ...run.gyms[1]!, note }] }, [match]);
    const list = html.match(/<ul class="gym-notes">(.*?)<\/ul>/)?.[1] ?? '';
    expect(list.match(/<li>/g)).toHaveLength(1);
    expect(list).toContain('<b>CA1</b> (CA gym after match 2): stopped after step 41 of 60');
    expect(list).toContain('&lt;x&gt;');
  });
});

describe('run report device', () => {
  it('names the provider the run used and why, escaped; an older run reads as not recorded', () => {
    const device = { requested: 'auto' as const, provider: 'cpu' as const, reason: 'auto: no GPU provider <found>', threads: null, play: 'cpu' as const };
    expect(renderReport({ ...run, device }, [match])).toContain('device cpu (auto: no GPU provider &lt;found&gt;)');
    expect(renderReport(run, [match])).toContain('device cpu (not recorded)');
  });

  it("shows the final DA's panel evaluation with the average and the mismatch gap when one is stored", () => {
    const cp = (key: string) => ({ key, kind: 'run-ca' as const, label: key, spec: key, runId: null });
    const m = (routing: number) => ({ episodes: 24, routingAccuracy: routing, strictPass: routing, meanReward: 5 });
    const summary = panelSummary(
      [
        { counterpart: cp('scripted'), heldout: m(0.75) },
        { counterpart: cp('CA4 (R2)'), heldout: m(0.5) },
      ],
      { counterpart: cp('CA1 (R1)'), heldout: m(1) },
    );
    const html = renderReport({ ...run, panel: { da: 'DA1', protocol: 'seeds=1,2;episodes=1', summary } }, [match]);
    expect(html).toContain('Counterpart shift: DA1 against its panel');
    expect(html).toContain('<td>training: CA1 (R1)</td>');
    expect(html).toContain('<td>CA4 (R2)</td><td>run-ca</td><td>24</td><td>50.0% [31–69]</td>');
    // training 100% − the panel's mean 62.5% = 37.5 points.
    expect(html).toMatch(/<td>mismatch gap \(training − panel\)<\/td><td><\/td><td><\/td><td>37\.5 \(n=2: too few for an interval\)<\/td>/);
    expect(renderReport(run, [match])).not.toContain('Counterpart shift');
  });
});
