/**
 * A stand-in co-evolution runner for end-to-end tests of the dashboard, used only by the specs
 * under test/e2e: it validates configs with the real schema, plays real (scripted) arena matches
 * into the lab, applies the real stopping rule, and fakes only the training — gym curves and
 * checkpoint names — on a short clock. The product's runner lives in host/coevolution/.
 */
import type { MatchSummary, PresetInfo, ProgressReport, RunDetail, RunPhase, RunStatus, RunSummary } from '../../../core/contract/contract';
import type { EngineEvent, RunService } from '../../../core/contract/run-service';
import { ScriptedCa } from '../../../core/agents/scripted-ca';
import { ScriptedDa } from '../../../core/agents/scripted-da';
import { heldoutReport } from '../../../core/arena/heldout-report';
import { runMatch } from '../../../core/arena/match';
import { selectScenarios } from '../../../core/arena/scenarios';
import { parseRunConfig, sparringConfigOf } from '../../../core/coevolution/run-config';
import { PRESETS } from '../../../core/presets';
import type { RunConfig } from '../../../core/coevolution/run-config';
import { stoppingDecision, weakerAgent } from '../../../core/coevolution/stopping';
import { settingsOf } from '../../../core/coevolution/run-settings';
import { summariseOpenings } from '../../../core/coevolution/tactics';
import { judgeEpisode } from '../../../core/judge/judge';
import { bankingDomain } from '../../../host/domain-files';
import { openSqliteStore } from '../../../host/store/sqlite-store';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface SimRun {
  detail: RunDetail;
  config: RunConfig;
  pause: boolean;
  stop: boolean;
  metrics: Map<string, { step: number; value: number; phase: string }[]>;
  resume: (() => void) | null;
}

export function simulatedRunService(dbPath: string, o: { gymSteps?: number; stepMs?: number } = {}): RunService {
  const gymSteps = o.gymSteps ?? 30;
  const stepMs = o.stepMs ?? 60;
  const store = openSqliteStore(dbPath);
  const runs = new Map<string, SimRun>();
  const listeners = new Set<(e: EngineEvent) => void>();
  const emit = (e: EngineEvent) => listeners.forEach((l) => l(e));

  const summary = (d: RunDetail): RunSummary => ({
    id: d.id,
    createdAt: d.createdAt,
    status: d.status,
    phase: d.phase,
    preset: d.preset,
    seed: d.seed,
    matches: d.matches,
    lastWDa: d.lastWDa,
    error: d.error,
    live: d.live,
    pauseRequested: d.pauseRequested,
  });
  function setPhase(r: SimRun, status: RunStatus, phase: RunPhase): void {
    const pauseRequested = status === 'running' && r.pause;
    r.detail = { ...r.detail, status, phase, pauseRequested, live: status !== 'finished' && status !== 'failed' && status !== 'stopped' };
    emit({ name: 'run/status', payload: { runId: r.detail.id, status, phase, pauseRequested } });
  }
  function progress(r: SimRun, p: ProgressReport): void {
    r.detail = { ...r.detail, progress: p };
    emit({ name: 'run/progress', payload: { runId: r.detail.id, progress: p } });
  }
  /** Phase boundary: honour stop and pause. Returns false when the run must end. */
  async function boundary(r: SimRun, next: RunPhase): Promise<boolean> {
    if (r.stop) return (setPhase(r, 'stopped', 'stopped'), false);
    if (r.pause) {
      setPhase(r, 'paused', 'paused');
      await new Promise<void>((resolve) => (r.resume = resolve));
      r.resume = null;
      if (r.stop) return (setPhase(r, 'stopped', 'stopped'), false);
    }
    setPhase(r, 'running', next);
    return true;
  }

  async function drive(r: SimRun): Promise<void> {
    const id = r.detail.id;
    const domain = bankingDomain();
    const cfg = sparringConfigOf(r.config);
    const nMax = r.config.stopping.nMax;
    let da = 'DA0';
    let ca = 'CA0';
    const das = ['DA0'];
    let step = 0;
    if (!(await boundary(r, 'bootstrap'))) return;
    for (let i = 1; i <= 10; i++) {
      await sleep(stepMs);
      progress(r, { phase: 'bootstrap', label: `bootstrap: SFT of DA0, step ${i}/10`, done: i, total: 10, etaSeconds: ((10 - i) * stepMs) / 1000 });
    }
    const wDas: number[] = [];
    for (let k = 1; k <= nMax; k++) {
      if (!(await boundary(r, 'match'))) return;
      const matchId = `${id}-M${k}`;
      const started = Date.now();
      const { match, episodes } = await runMatch({
        matchId,
        createdAt: new Date().toISOString(),
        domain,
        scenarios: selectScenarios(domain, 'arena'),
        scenarioSet: 'arena',
        da: new ScriptedDa(),
        ca: new ScriptedCa(domain),
        judge: judgeEpisode,
        config: cfg,
        seed: r.detail.seed + k,
        onProgress: (done, total) => {
          const eta = done ? (((Date.now() - started) / done) * (total - done)) / 1000 : null;
          emit({ name: 'episodes/completed', payload: { matchId, count: 1, done, total } });
          progress(r, { phase: 'match', label: `match ${k} of ≤${nMax}`, done, total, etaSeconds: eta });
        },
      });
      store.saveMatch(match, episodes);
      const wDa = match.wDa ?? 0;
      wDas.push(wDa);
      const stop = stoppingDecision(wDas, r.config.stopping);
      const openings = episodes.map((e) => ({ text: e.turns.find((t) => t.role === 'customer')?.text ?? '', expectedTool: e.expectedTool }));
      const ms: MatchSummary = {
        matchId,
        index: k,
        da,
        ca,
        wDa,
        fraudRate: match.fraudRate,
        tactics: summariseOpenings(openings),
        stop,
        next: stop.stop ? null : weakerAgent(wDa, r.config.stopping),
      };
      r.detail = { ...r.detail, matches: k, lastWDa: wDa, matchSummaries: [...r.detail.matchSummaries, ms] };
      emit({ name: 'run/match', payload: { runId: id, match: ms } });
      if (stop.stop) break;

      if (!(await boundary(r, 'gym'))) return;
      const role = ms.next!.role;
      const phase = `gym:${role}${Number((role === 'DA' ? da : ca).slice(2)) + 1}`;
      for (let s = 1; s <= gymSteps; s++) {
        await sleep(stepMs);
        step++;
        const x = step / (gymSteps * nMax);
        const noise = Math.sin(step * 1.7) * 0.15;
        // A CA gym's reward (r_CA) sits far below a DA gym's (r_DA), as in a real run.
        const level = role === 'DA' ? 5 : 0;
        const points = [
          { key: 'gym/reward_mean', step, value: level - 0.5 + 2.5 * x + noise, phase },
          { key: 'gym/reward_std', step, value: 0.9 - 0.4 * x + Math.abs(noise) / 3, phase },
          { key: 'gym/kl', step, value: 0.002 + 0.02 * x * (1 + noise), phase },
          { key: 'gym/loss', step, value: 0.8 * Math.exp(-3 * x) + noise / 5, phase },
        ];
        for (const p of points) r.metrics.set(p.key, [...(r.metrics.get(p.key) ?? []), { step: p.step, value: p.value, phase: p.phase }]);
        emit({ name: 'run/metrics', payload: { runId: id, points } });
        progress(r, {
          phase: 'gym',
          label: `${role} gym after match ${k}: GRPO step ${s}/${gymSteps}`,
          done: s,
          total: gymSteps,
          etaSeconds: ((gymSteps - s) * stepMs) / 1000,
        });
      }
      const from = role === 'DA' ? da : ca;
      const to = `${role}${Number(from.slice(2)) + 1}`;
      if (role === 'DA') {
        da = to;
        das.push(to);
      } else {
        ca = to;
      }
      // The second gym ends at its trust region, as a real gym records it (host/coevolution/actors.ts).
      const note =
        k === 2 ? `stopped after step ${gymSteps} of ${gymSteps * 2}: mean KL to the start over the last 5 steps 1.07 > maxKl 1 (trust region)` : null;
      const gym = { role, from, to, afterMatch: k, note };
      r.detail = { ...r.detail, gyms: [...r.detail.gyms, gym] };
      emit({ name: 'run/gym', payload: { runId: id, gym } });
    }
    if (!(await boundary(r, 'evaluate'))) return;
    for (let i = 1; i <= 5; i++) {
      await sleep(stepMs);
      progress(r, { phase: 'evaluate', label: `held-out evaluation ${i}/5`, done: i, total: 5, etaSeconds: null });
    }
    // The runner's shape (host/coevolution/actors.ts CheckpointEvaluation), numbers made up: counts
    // that rise with the checkpoint's index i and saturate, so a run with many DA gyms (quick's five
    // matches) still reports rates within [0, 1] (an unbounded count failed its evaluation).
    const heldoutScenarios = selectScenarios(domain, 'heldout').map((s) => s.id);
    const of = (k: number, n: number) => Math.max(0, Math.min(n, k)) / n;
    const metrics = (i: number, shift: number) => ({
      episodes: 24,
      routingAccuracy: of(16 + 3 * i + shift, 24),
      strictPass: of(6 + 3 * i + shift, 24),
      fail: of(8 - 2 * i, 24),
      meanReward: 1.1 + 0.6 * i + shift / 4,
      lookupFirst: of(21 + i, 24),
      perScenario: heldoutScenarios.map((scenarioId, j) => ({
        scenarioId,
        episodes: 2,
        routingAccuracy: (j + i) % 3 === 0 ? 0.5 : 1,
        strictPass: (j + i) % 4 === 0 ? 0 : 0.5,
        meanReward: 1 + ((j * 7 + i * 3) % 6),
      })),
    });
    const gate = (i: number) => ({ threshold: 0.9, scenarios: ['fraud-reference'], episodes: 16, daWinRate: of(13 + i, 16), passed: of(13 + i, 16) >= 0.9 });
    const evaluation = {
      checkpoints: das.map((name, i) => ({
        da: name,
        ca,
        heldout: metrics(i, 0),
        gate: gate(i),
        reference: { ca: 'scripted', heldout: metrics(i, 2), gate: gate(i + 1) },
      })),
    };
    r.detail = { ...r.detail, evaluation, heldout: heldoutReport(evaluation) };
    setPhase(r, 'finished', 'done');
  }

  const presets: PresetInfo[] = Object.entries(PRESETS).map(([name, p]) => ({ name, description: p.description, configJson: JSON.stringify(p.config) }));

  return {
    presets: () => presets,
    async start({ preset, configJson, seed }) {
      const p = PRESETS[preset as keyof typeof PRESETS];
      if (!p) throw new Error(`no preset "${preset}"; presets: ${Object.keys(PRESETS).join(', ')}`);
      const config = parseRunConfig(configJson ?? JSON.stringify(p.config), 'config');
      const id = `R${runs.size + 1}`;
      const r: SimRun = {
        config,
        pause: false,
        stop: false,
        metrics: new Map(),
        resume: null,
        detail: {
          id,
          createdAt: new Date().toISOString(),
          status: 'created',
          phase: 'bootstrap',
          preset,
          seed: seed ?? 1,
          matches: 0,
          lastWDa: null,
          error: null,
          live: true,
          configJson: JSON.stringify(config),
          stopping: sparringConfigOf(config).stopping,
          settings: settingsOf(JSON.stringify(config), id, seed ?? 1),
          matchSummaries: [],
          gyms: [],
          progress: null,
          evaluation: null,
          heldout: null,
          pauseRequested: false,
        },
      };
      runs.set(id, r);
      void drive(r).catch((err: unknown) => {
        r.detail = { ...r.detail, error: err instanceof Error ? err.message : String(err) };
        setPhase(r, 'failed', 'failed');
      });
      return { runId: id };
    },
    pause(runId) {
      const r = runs.get(runId);
      if (!r) throw new Error(`no run "${runId}"`);
      r.pause = true;
      if (r.detail.status === 'running') setPhase(r, 'running', r.detail.phase);
    },
    async resume(runId) {
      const r = runs.get(runId);
      if (!r) throw new Error(`no run "${runId}"`);
      r.pause = false;
      r.resume?.();
    },
    stop(runId) {
      const r = runs.get(runId);
      if (!r) throw new Error(`no run "${runId}"`);
      r.stop = true;
      r.resume?.();
    },
    list: () => [...runs.values()].map((r) => summary(r.detail)),
    get(runId) {
      const r = runs.get(runId);
      if (!r) throw new Error(`no run "${runId}" in this lab`);
      return r.detail;
    },
    metrics(runId, keys) {
      const r = runs.get(runId);
      if (!r) throw new Error(`no run "${runId}" in this lab`);
      return Object.fromEntries(keys.map((k) => [k, r.metrics.get(k) ?? []]));
    },
    subscribe(l) {
      listeners.add(l);
      return () => listeners.delete(l);
    },
  };
}
