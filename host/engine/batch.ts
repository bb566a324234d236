/**
 * Coalesces high-rate events (episode completions, gym metrics, progress reports) so that clients
 * get a few updates a second however fast the engine works. Everything else passes straight
 * through, after whatever is pending, so clients see events in the order they happened.
 */
import type { EngineEvent } from '../../core/contract/run-service';

/** Default spacing of flushes: at most four batched updates a second. */
export const BATCH_INTERVAL_MS = 250;

export interface EventBatcher {
  push(e: EngineEvent): void;
  /** Emit whatever is pending now. */
  flush(): void;
  /** Drop the timer (pending events are flushed first). */
  close(): void;
}

type Completed = Extract<EngineEvent, { name: 'episodes/completed' }>;
type Metrics = Extract<EngineEvent, { name: 'run/metrics' }>;
type Progress = Extract<EngineEvent, { name: 'run/progress' }>;

export function createEventBatcher(emit: (e: EngineEvent) => void, intervalMs = BATCH_INTERVAL_MS, now: () => number = Date.now): EventBatcher {
  /** Pending batched events by key, in the order their key first became pending. */
  const pending = new Map<string, Completed | Metrics | Progress>();
  let lastFlush = -Infinity;
  let timer: ReturnType<typeof setTimeout> | null = null;

  function flush(): void {
    if (timer) clearTimeout(timer);
    timer = null;
    if (pending.size === 0) return;
    lastFlush = now();
    const out = [...pending.values()];
    pending.clear();
    for (const e of out) emit(e);
  }

  function schedule(): void {
    const wait = lastFlush + intervalMs - now();
    if (wait <= 0) return flush();
    if (timer) return;
    timer = setTimeout(flush, wait);
    timer.unref?.();
  }

  function merge(e: Completed | Metrics | Progress): void {
    switch (e.name) {
      case 'episodes/completed': {
        const key = `completed:${e.payload.matchId}`;
        const prev = pending.get(key) as Completed | undefined;
        pending.set(key, prev ? { name: e.name, payload: { ...e.payload, count: prev.payload.count + e.payload.count } } : e);
        // The last episode of a match goes out at once: clients should see 100% before the result.
        if (e.payload.done >= e.payload.total) return flush();
        return schedule();
      }
      case 'run/metrics': {
        const key = `metrics:${e.payload.runId}`;
        const prev = pending.get(key) as Metrics | undefined;
        pending.set(key, prev ? { name: e.name, payload: { runId: e.payload.runId, points: [...prev.payload.points, ...e.payload.points] } } : e);
        return schedule();
      }
      case 'run/progress':
        pending.set(`progress:${e.payload.runId}`, e);
        return schedule();
    }
  }

  return {
    push(e) {
      if (e.name === 'episodes/completed' || e.name === 'run/metrics' || e.name === 'run/progress') return merge(e);
      flush();
      emit(e);
    },
    flush,
    close() {
      flush();
    },
  };
}
