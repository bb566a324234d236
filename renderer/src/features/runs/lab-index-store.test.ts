/**
 * Lists that stay current: through the one mirror, a study's or a run's events make the pickers'
 * lists (engine/info's policies, the runs, the checkpoints) be read again, once per burst, and a
 * note written elsewhere shows at once. Before, Play offered DA0–DA4 while the lab held DA7, and
 * "Overlay two runs" offered only R1 after a study, until the window was reloaded.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { CheckpointInfo, EngineInfo, RequestName, RunSummary } from '../../../../core/contract/contract';
import type { EngineEvent } from '../../../../core/contract/run-service';
import { setTransport } from '../../engine/client';
import { useEngineStore } from '../../engine/engine-store';
import { startMirror } from '../../engine/mirror';
import type { Transport } from '../../transport/transport';
import { REFRESH_DELAY_MS, useLabIndexStore } from './lab-index-store';
import { useRunsStore } from './runs-store';

const run = (id: string): RunSummary => ({
  id,
  createdAt: '',
  status: 'running',
  phase: 'match',
  preset: 'quick',
  seed: 1,
  matches: 0,
  lastWDa: null,
  error: null,
  live: false,
  pauseRequested: false,
  note: null,
});
const cp = (name: string, runId: string): CheckpointInfo => ({
  name,
  role: 'DA',
  createdAt: '',
  runId,
  parent: null,
  generation: 0,
  source: 'gym',
  humanEpisodes: 0,
});

/** The lab as the engine would list it now; `grow` adds what a study's worker stored. */
function fakeEngine() {
  const lab = { runs: [run('R1')], checkpoints: [cp('DA0', 'R1')] };
  const asked: RequestName[] = [];
  let emit: (e: EngineEvent) => void = () => undefined;
  const t = {
    kind: 'websocket',
    request: (name: RequestName) => {
      asked.push(name);
      const names = lab.checkpoints.map((c) => c.name);
      const answers: Partial<Record<RequestName, unknown>> = {
        'runs/list': lab.runs,
        'checkpoints/list': lab.checkpoints,
        'engine/info': {
          dbPath: 'lab.db',
          runsUnavailable: null,
          policies: { da: ['scripted', 'sft', 'latest', ...names], ca: ['scripted'] },
        } satisfies EngineInfo,
        'matches/list': [],
        'studies/list': [],
      };
      return Promise.resolve(answers[name] ?? {});
    },
    onEvent: (l: (e: EngineEvent) => void) => ((emit = l), () => undefined),
    onState: () => () => undefined,
    close: () => undefined,
  } as unknown as Transport;
  return {
    t,
    asked,
    emit: (e: EngineEvent) => emit(e),
    grow: () => {
      lab.runs = [...lab.runs, run('R2'), run('R3')];
      lab.checkpoints = [...lab.checkpoints, cp('DA1', 'R2'), cp('DA2', 'R3')];
    },
  };
}

beforeEach(() => {
  vi.useFakeTimers();
  useRunsStore.setState({ runs: [run('R1')], runsStatus: 'ready', details: {} });
  useLabIndexStore.setState({ checkpoints: [cp('DA0', 'R1')], status: 'ready' });
  useEngineStore.setState({ info: null });
});
afterEach(() => vi.useRealTimers());

describe('live lists', () => {
  it("a study's progress brings its new runs and checkpoints into every list, read once per burst", async () => {
    const engine = fakeEngine();
    setTransport(engine.t);
    const stop = startMirror(engine.t);
    try {
      engine.grow();
      const progress = (finished: number, phase: string): EngineEvent => ({
        name: 'study/progress',
        payload: {
          studyId: 'S1',
          progress: { total: 4, finished, failed: 0, value: finished, running: [{ arm: 'full', seed: 1, runId: 'R2', phase, label: '' }] },
        },
      });
      engine.emit(progress(0, 'bootstrap'));
      engine.emit(progress(0, 'bootstrap')); // nothing new: no second read
      engine.emit({ name: 'study/status', payload: { studyId: 'S1', status: 'running' } });
      const lists = () => engine.asked.filter((n) => n !== 'studies/list'); // the Studies store reads its own list
      expect(lists()).toEqual([]);
      await vi.advanceTimersByTimeAsync(REFRESH_DELAY_MS + 1);
      expect(engine.asked.filter((n) => n === 'runs/list')).toHaveLength(1);
      expect(useRunsStore.getState().runs.map((r) => r.id)).toEqual(['R1', 'R2', 'R3']);
      expect(useLabIndexStore.getState().checkpoints.map((c) => c.name)).toEqual(['DA0', 'DA1', 'DA2']);
      expect(useEngineStore.getState().info?.policies.da).toEqual(['scripted', 'sft', 'latest', 'DA0', 'DA1', 'DA2']);

      // The same progress again reads nothing; a phase change (a gym done: a new checkpoint) reads again.
      engine.emit(progress(0, 'bootstrap'));
      await vi.advanceTimersByTimeAsync(REFRESH_DELAY_MS + 1);
      expect(engine.asked.filter((n) => n === 'runs/list')).toHaveLength(1);
      engine.emit(progress(0, 'gym'));
      await vi.advanceTimersByTimeAsync(REFRESH_DELAY_MS + 1);
      expect(engine.asked.filter((n) => n === 'runs/list')).toHaveLength(2);
    } finally {
      stop();
    }
  });

  it("a run's gym brings its checkpoint into the policy lists; a note written elsewhere shows at once", async () => {
    const engine = fakeEngine();
    setTransport(engine.t);
    const stop = startMirror(engine.t);
    try {
      engine.grow();
      engine.emit({ name: 'run/gym', payload: { runId: 'R1', gym: {} as never } });
      await vi.advanceTimersByTimeAsync(REFRESH_DELAY_MS + 1);
      expect(useEngineStore.getState().info?.policies.da).toContain('DA2');
      engine.emit({ name: 'run/note', payload: { runId: 'R2', note: 'the one with the long CA gym' } });
      expect(useRunsStore.getState().runs.find((r) => r.id === 'R2')?.note).toBe('the one with the long CA gym');
    } finally {
      stop();
    }
  });
});
