import { describe, expect, it, vi } from 'vitest';
import type { EngineEvent } from '../../core/contract/run-service';
import { createEventBatcher } from './batch';

describe('event batcher', () => {
  it('emits at most one batch per interval and merges episode completions per match', () => {
    vi.useFakeTimers();
    try {
      const out: EngineEvent[] = [];
      const b = createEventBatcher(
        (e) => out.push(e),
        250,
        () => Date.now(),
      );
      const completed = (done: number): EngineEvent => ({ name: 'episodes/completed', payload: { matchId: 'M1', count: 1, done, total: 100 } });
      b.push(completed(1)); // leading edge: out at once
      expect(out).toHaveLength(1);
      for (let d = 2; d <= 50; d++) {
        b.push(completed(d));
        vi.advanceTimersByTime(10);
      }
      // 490 ms of pushes: the first at once, then one per 250 ms.
      expect(out.length).toBeLessThanOrEqual(3);
      vi.advanceTimersByTime(250);
      const counts = out.map((e) => (e.name === 'episodes/completed' ? e.payload.count : 0));
      expect(counts.reduce((s, c) => s + c, 0)).toBe(50);
      expect(out.at(-1)).toMatchObject({ payload: { done: 50 } });
    } finally {
      vi.useRealTimers();
    }
  });

  it('flushes the last episode of a match at once, and keeps order around pass-through events', () => {
    const out: EngineEvent[] = [];
    let t = 0;
    const b = createEventBatcher(
      (e) => out.push(e),
      250,
      () => t,
    );
    b.push({ name: 'run/progress', payload: { runId: 'R', progress: { phase: 'match', label: 'a', done: 1, total: 3, etaSeconds: null } } });
    t = 10;
    b.push({ name: 'run/progress', payload: { runId: 'R', progress: { phase: 'match', label: 'b', done: 2, total: 3, etaSeconds: 5 } } });
    b.push({ name: 'run/status', payload: { runId: 'R', status: 'paused', phase: 'paused', pauseRequested: false } });
    expect(out.map((e) => e.name)).toEqual(['run/progress', 'run/progress', 'run/status']);
    expect(out[1]).toMatchObject({ payload: { progress: { label: 'b' } } });
    t = 20;
    b.push({ name: 'episodes/completed', payload: { matchId: 'M', count: 2, done: 9, total: 10 } });
    b.push({ name: 'episodes/completed', payload: { matchId: 'M', count: 1, done: 10, total: 10 } });
    expect(out.at(-1)).toEqual({ name: 'episodes/completed', payload: { matchId: 'M', count: 3, done: 10, total: 10 } });
    b.close();
  });
});
