/**
 * Scrolls a virtual list in the page and measures it: frame intervals (requestAnimationFrame),
 * long tasks (PerformanceObserver) and, after each jump, how long until every visible row is
 * filled (no skeleton left). The callbacks run in the browser, so they reach its globals through
 * `globalThis` (this folder's tsconfig has no DOM lib).
 */
import type { Locator } from '@playwright/test';

export interface ScrollFigures {
  frames: number;
  meanFrameMs: number;
  p95FrameMs: number;
  worstFrameMs: number;
  /** Frames that took over 50 ms (visible stutter). */
  slowFrames: number;
  longTasks: number;
  worstLongTaskMs: number;
  jumps: number;
  medianFillMs: number;
  worstFillMs: number;
}

interface El {
  scrollTop: number;
  scrollHeight: number;
  clientHeight: number;
  querySelectorAll(s: string): { length: number };
}

/** Smooth-scroll `smoothFrames` frames of `step` px, then jump to `jumps` evenly spread places. */
export async function measureScroll(list: Locator, o: { smoothFrames: number; step: number; jumps: number }): Promise<ScrollFigures> {
  return list.evaluate(async (node, o) => {
    const el = node as unknown as El;
    const g = globalThis as unknown as {
      requestAnimationFrame(cb: (t: number) => void): number;
      performance: { now(): number };
      PerformanceObserver: new (cb: (l: { getEntries(): { duration: number }[] }) => void) => { observe(o: { type: string }): void; disconnect(): void };
    };
    const frame = () => new Promise<number>((r) => g.requestAnimationFrame(r));
    const longTasks: number[] = [];
    const obs = new g.PerformanceObserver((l) => l.getEntries().forEach((e) => longTasks.push(e.duration)));
    obs.observe({ type: 'longtask' });
    const intervals: number[] = [];
    let last = await frame();
    const tick = async () => {
      const t = await frame();
      intervals.push(t - last);
      last = t;
    };
    for (let i = 0; i < o.smoothFrames; i++) {
      el.scrollTop += o.step;
      await tick();
    }
    const fills: number[] = [];
    for (let j = 1; j <= o.jumps; j++) {
      el.scrollTop = Math.floor(((el.scrollHeight - el.clientHeight) * j) / o.jumps);
      const t0 = g.performance.now();
      await tick();
      while (el.querySelectorAll('.row-skeleton').length > 0 && g.performance.now() - t0 < 10_000) await tick();
      fills.push(g.performance.now() - t0);
    }
    await new Promise((r) => setTimeout(r, 100));
    obs.disconnect();
    const sorted = [...intervals].sort((a, b) => a - b);
    const fillSorted = [...fills].sort((a, b) => a - b);
    return {
      frames: intervals.length,
      meanFrameMs: intervals.reduce((s, x) => s + x, 0) / intervals.length,
      p95FrameMs: sorted[Math.floor(sorted.length * 0.95)] ?? 0,
      worstFrameMs: sorted.at(-1) ?? 0,
      slowFrames: intervals.filter((x) => x > 50).length,
      longTasks: longTasks.length,
      worstLongTaskMs: longTasks.reduce((m, x) => Math.max(m, x), 0),
      jumps: fills.length,
      medianFillMs: fillSorted[Math.floor(fillSorted.length / 2)] ?? 0,
      worstFillMs: fillSorted.at(-1) ?? 0,
    };
  }, o);
}
