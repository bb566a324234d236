/**
 * A PerformanceObserver('longtask') in the page: what blocked the main thread for 50 ms or more
 * while something streamed. The callbacks run in the browser, so they reach its globals through
 * `globalThis` (this folder's tsconfig has no DOM lib).
 */
import type { Page } from '@playwright/test';

interface Observed {
  __sparringLongTasks?: { start: number; duration: number }[];
  __sparringObserver?: { disconnect(): void };
}

export async function startLongTaskObserver(page: Page): Promise<void> {
  await page.evaluate(() => {
    const g = globalThis as unknown as Observed & {
      PerformanceObserver: new (cb: (list: { getEntries(): { startTime: number; duration: number }[] }) => void) => {
        observe(o: { type: string; buffered?: boolean }): void;
        disconnect(): void;
      };
    };
    g.__sparringLongTasks = [];
    const obs = new g.PerformanceObserver((list) => {
      for (const e of list.getEntries()) g.__sparringLongTasks!.push({ start: e.startTime, duration: e.duration });
    });
    obs.observe({ type: 'longtask' });
    g.__sparringObserver = obs;
  });
}

/** Stop observing; returns every long task seen (ms). */
export async function stopLongTaskObserver(page: Page): Promise<{ start: number; duration: number }[]> {
  return page.evaluate(async () => {
    // Let the observer deliver what is queued before disconnecting.
    await new Promise((r) => setTimeout(r, 100));
    const g = globalThis as unknown as Observed;
    g.__sparringObserver?.disconnect();
    return g.__sparringLongTasks ?? [];
  });
}
