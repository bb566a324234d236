/** The runs store's event folding: what each engine event does to the mirrored runs. */
import { beforeEach, describe, expect, it, vi } from 'vitest';
import type { MatchSummary, RunDetail, RunSummary } from '../../../../core/contract/contract';
import type { RequestName } from '../../../../core/contract/contract';
import { setTransport } from '../../engine/client';
import type { Transport } from '../../transport/transport';
import { applyRunEvent, useRunsStore } from './runs-store';

const summary: RunSummary = {
  id: 'R1',
  createdAt: '',
  status: 'running',
  phase: 'match',
  preset: 'quick',
  seed: 1,
  matches: 0,
  lastWDa: null,
  error: null,
  live: true,
  pauseRequested: false,
};
const detail: RunDetail = {
  ...summary,
  configJson: '{}',
  stopping: { tauDa: 0.6, P: 2, epsilon: 0.05, nMin: 2, nMax: 8, rCa: 0.3, deploymentGate: 0.9 },
  matchSummaries: [],
  gyms: [],
  progress: null,
  evaluation: null,
  heldout: null,
};
const match = (index: number, wDa: number): MatchSummary =>
  ({
    matchId: `R1-M${index}`,
    index,
    da: 'DA0',
    ca: 'CA0',
    wDa,
    fraudRate: 1,
    tactics: null,
    stop: { stop: false, explanation: '' },
    next: null,
  }) as unknown as MatchSummary;

beforeEach(() => {
  useRunsStore.setState({
    runs: [summary],
    details: { R1: detail },
    metrics: { R1: { 'gym/kl': [{ step: 0, value: 0.1, phase: 'gym:DA1' }] } },
    matchRecords: { R1: [] },
  });
});

describe('applyRunEvent', () => {
  it('folds a status change, and a pause asked for, into the list and the open run', () => {
    applyRunEvent({ name: 'run/status', payload: { runId: 'R1', status: 'running', phase: 'gym', pauseRequested: true } });
    const s = useRunsStore.getState();
    expect(s.runs[0]).toMatchObject({ status: 'running', phase: 'gym', pauseRequested: true });
    expect(s.details.R1).toMatchObject({ status: 'running', phase: 'gym', pauseRequested: true });
    applyRunEvent({ name: 'run/status', payload: { runId: 'R1', status: 'paused', phase: 'paused', pauseRequested: false } });
    expect(useRunsStore.getState().details.R1).toMatchObject({ status: 'paused', pauseRequested: false });
  });

  it('reads an open run again when it ends, so a failed run shows its error (the event carries none)', async () => {
    const asked: RequestName[] = [];
    const failed = { ...detail, status: 'failed', phase: 'failed', live: false, error: 'wilsonInterval: 25 successes of 24 trials' };
    const answers: Partial<Record<RequestName, unknown>> = { 'runs/get': failed, 'metrics/series': {}, 'matches/list': [] };
    setTransport({ request: (name: RequestName) => (asked.push(name), Promise.resolve(answers[name])) } as unknown as Transport);
    applyRunEvent({ name: 'run/status', payload: { runId: 'R1', status: 'running', phase: 'evaluate', pauseRequested: false } });
    expect(asked).toEqual([]);
    applyRunEvent({ name: 'run/status', payload: { runId: 'R1', status: 'failed', phase: 'failed', pauseRequested: false } });
    await vi.waitFor(() => expect(useRunsStore.getState().details.R1?.error).toBe('wilsonInterval: 25 successes of 24 trials'));
    expect(asked).toContain('runs/get');
  });

  it('appends metric points per key with their phase, and ignores runs whose series are not loaded', () => {
    applyRunEvent({
      name: 'run/metrics',
      payload: {
        runId: 'R1',
        points: [
          { key: 'gym/kl', step: 1, value: 0.2, phase: 'gym:DA1' },
          { key: 'gym/loss', step: 0, value: 1, phase: 'gym:DA1' },
          { key: 'gym/kl', step: 2, value: 0.3, phase: 'gym:CA1' },
        ],
      },
    });
    const m = useRunsStore.getState().metrics.R1!;
    expect(m['gym/kl']!.map((p) => [p.step, p.phase])).toEqual([
      [0, 'gym:DA1'],
      [1, 'gym:DA1'],
      [2, 'gym:CA1'],
    ]);
    expect(m['gym/loss']).toEqual([{ step: 0, value: 1, phase: 'gym:DA1' }]);
    applyRunEvent({ name: 'run/metrics', payload: { runId: 'R9', points: [{ key: 'gym/kl', step: 0, value: 1 }] } });
    expect(useRunsStore.getState().metrics.R9).toBeUndefined();
  });

  it('upserts a gym job by id, and keeps a cancelled gym (to = from) beside the gym that made its checkpoint', () => {
    const job = {
      id: 'J1',
      runId: 'R1',
      gym: 1,
      role: 'DA' as const,
      from: 'DA0',
      opponent: 'CA0',
      matchId: 'R1-M1',
      exportPath: '/lab/gym-jobs/R1-gym1',
      status: 'waiting' as const,
      createdAt: '',
      finishedAt: null,
      checkpoint: null,
      note: null,
      commands: ['npx sparring checkpoints add …'],
    };
    applyRunEvent({ name: 'run/trainer', payload: { runId: 'R1', job } });
    applyRunEvent({ name: 'run/trainer', payload: { runId: 'R1', job: { ...job, commands: ['a', 'b'] } } });
    expect(useRunsStore.getState().details.R1!.gymJobs).toEqual([{ ...job, commands: ['a', 'b'] }]);
    applyRunEvent({ name: 'run/gym', payload: { runId: 'R1', gym: { role: 'DA', from: 'DA0', to: 'DA1', afterMatch: 1, note: null } } });
    applyRunEvent({ name: 'run/gym', payload: { runId: 'R1', gym: { role: 'DA', from: 'DA1', to: 'DA1', afterMatch: 2, note: 'gym job J2 cancelled' } } });
    expect(useRunsStore.getState().details.R1!.gyms.map((g) => g.afterMatch)).toEqual([1, 2]);
  });

  it('upserts a match by id and a gym by role and checkpoint, and keeps the latest progress', () => {
    applyRunEvent({ name: 'run/match', payload: { runId: 'R1', match: match(1, 0.4) } });
    applyRunEvent({ name: 'run/match', payload: { runId: 'R1', match: match(1, 0.5) } });
    applyRunEvent({ name: 'run/match', payload: { runId: 'R1', match: match(2, 0.7) } });
    let s = useRunsStore.getState();
    expect(s.details.R1!.matchSummaries.map((m) => [m.index, m.wDa])).toEqual([
      [1, 0.5],
      [2, 0.7],
    ]);
    expect(s.runs[0]).toMatchObject({ matches: 2, lastWDa: 0.7 });
    const gym = { role: 'DA' as const, from: 'DA0', to: 'DA1', afterMatch: 1, note: null };
    applyRunEvent({ name: 'run/gym', payload: { runId: 'R1', gym } });
    applyRunEvent({ name: 'run/gym', payload: { runId: 'R1', gym: { ...gym, note: 'trust region' } } });
    const progress = { phase: 'gym' as const, label: 'DA gym step 3/10', done: 3, total: 10, etaSeconds: 4 };
    applyRunEvent({ name: 'run/progress', payload: { runId: 'R1', progress } });
    s = useRunsStore.getState();
    expect(s.details.R1!.gyms).toEqual([{ ...gym, note: 'trust region' }]);
    expect(s.details.R1!.progress).toEqual(progress);
  });
});
