/**
 * What blocked the page's main thread for 50 ms or more while the engine streamed events: a
 * PerformanceObserver('longtask') in the page (wall time, what a user feels), and a Chromium
 * trace of the same window for each main-thread task's CPU time (the page's own work: on a
 * loaded machine a task's wall time also counts the time it waited for a core).
 *
 * A probe checks itself so that a figure cannot pass by measuring nothing: the observer must
 * report a deliberate block before the window opens, the window must have seen the engine's
 * event frames, and the trace must contain the page's main thread.
 *
 * The observer's callbacks run in the browser, so they reach its globals through `globalThis`
 * (this folder's tsconfig has no DOM lib).
 */
import { expect } from '@playwright/test';
import type { Page } from '@playwright/test';
import type { LabPage } from './lab-page';

interface Observed {
  __sparringLongTasks?: { start: number; duration: number }[];
  __sparringObserver?: { disconnect(): void };
}

interface TraceEvent {
  name: string;
  ph: string;
  dur?: number;
  tdur?: number;
  pid: number;
  tid: number;
  args?: { name?: string };
}

export interface LongTaskReport {
  /** Long tasks the observer saw (ms, page time). */
  tasks: { start: number; duration: number }[];
  /** The longest of them (wall ms); 0 when none. */
  worstMs: number;
  /** The main thread's largest CPU time in one task over the window (ms), from the trace. */
  worstCpuMs: number;
  /** Main-thread tasks the trace holds for the window. */
  tracedTasks: number;
  /** Engine event frames the page received over the window, and the largest one's size. */
  eventFrames: number;
  largestFrameBytes: number;
}

/** A deliberate block (ms) the observer must report before a measurement counts. */
const SELF_CHECK_MS = 70;

export class LongTaskProbe {
  private constructor(
    private readonly lab: LabPage,
    private readonly framesAtStart: number,
  ) {}

  /** Start observing `lab`'s page (and tracing its renderer) until `stop`. */
  static async start(lab: LabPage): Promise<LongTaskProbe> {
    const page = lab.page;
    await startLongTaskObserver(page);
    // The observer works in this browser: a block it must see, then a clean slate.
    // (Run from a timer: a task the protocol itself runs is not the page's and is not reported.)
    await page.evaluate((ms) => {
      setTimeout(() => {
        const t0 = performance.now();
        while (performance.now() - t0 < ms);
      }, 0);
    }, SELF_CHECK_MS);
    await expect
      .poll(() => observed(page).then((t) => t.some((x) => x.duration >= SELF_CHECK_MS)), { message: 'the long-task observer reports a deliberate block' })
      .toBe(true);
    await startLongTaskObserver(page);
    await page
      .context()
      .browser()!
      .startTracing(page, { categories: ['toplevel'] });
    lab.engineFrames.largestBytes = 0;
    return new LongTaskProbe(lab, lab.engineFrames.count);
  }

  /** Stop; the report, after checking that the window did measure a stream. */
  async stop(): Promise<LongTaskReport> {
    const page = this.lab.page;
    const tasks = await stopLongTaskObserver(page);
    const trace = JSON.parse((await page.context().browser()!.stopTracing()).toString()) as { traceEvents: TraceEvent[] };
    const main = mainThreadTasks(trace.traceEvents);
    const report: LongTaskReport = {
      tasks,
      worstMs: tasks.reduce((m, t) => Math.max(m, t.duration), 0),
      worstCpuMs: main.reduce((m, t) => Math.max(m, (t.tdur ?? 0) / 1000), 0),
      tracedTasks: main.length,
      eventFrames: this.lab.engineFrames.count - this.framesAtStart,
      largestFrameBytes: this.lab.engineFrames.largestBytes,
    };
    expect(report.eventFrames, 'engine events streamed to the page while it was observed').toBeGreaterThan(0);
    expect(report.tracedTasks, 'the trace holds the page’s main-thread tasks').toBeGreaterThan(0);
    expect(
      main.some((t) => t.tdur !== undefined),
      'the trace records CPU time per task',
    ).toBe(true);
    return report;
  }
}

/** One line for the test log: `[long tasks] WHAT: …`. */
export function describeLongTasks(what: string, r: LongTaskReport): string {
  return (
    `[long tasks] ${what}: ${r.tasks.length} long task(s); worst ${r.worstMs.toFixed(0)} ms; ` +
    `busiest main-thread task ${r.worstCpuMs.toFixed(0)} ms of CPU (of ${r.tracedTasks} traced); ` +
    `${r.eventFrames} event frame(s), largest ${(r.largestFrameBytes / 1024).toFixed(1)} KiB`
  );
}

/** Start (or restart, with a clean list) the page's long-task observer. */
export async function startLongTaskObserver(page: Page): Promise<void> {
  await page.evaluate(() => {
    const g = globalThis as unknown as Observed & {
      PerformanceObserver: (new (cb: (list: { getEntries(): { startTime: number; duration: number }[] }) => void) => {
        observe(o: { type: string; buffered?: boolean }): void;
        disconnect(): void;
      }) & { supportedEntryTypes: readonly string[] };
    };
    if (!g.PerformanceObserver.supportedEntryTypes.includes('longtask')) throw new Error('this browser has no long-task observer');
    g.__sparringObserver?.disconnect();
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

async function observed(page: Page): Promise<{ duration: number }[]> {
  return page.evaluate(() => (globalThis as unknown as Observed).__sparringLongTasks ?? []);
}

/** The renderer main thread's top-level tasks: the CrRendererMain thread that ran the most. */
function mainThreadTasks(events: TraceEvent[]): TraceEvent[] {
  const isTask = (e: TraceEvent) => e.ph === 'X' && (e.name === 'ThreadControllerImpl::RunTask' || e.name === 'RunTask');
  let best: TraceEvent[] = [];
  for (const m of events.filter((e) => e.ph === 'M' && e.name === 'thread_name' && e.args?.name === 'CrRendererMain')) {
    const tasks = events.filter((e) => e.pid === m.pid && e.tid === m.tid && isTask(e));
    if (tasks.reduce((s, t) => s + (t.dur ?? 0), 0) > best.reduce((s, t) => s + (t.dur ?? 0), 0)) best = tasks;
  }
  return best;
}

/** The target: no main-thread task over 100 ms while events stream. */
export const TASK_BUDGET_MS = 100;

/**
 * What a long task may take in wall time on a shared 2-core CI machine, where the page waits for a
 * core behind the engine's run and everything else running (at a load average of 12, tasks of
 * 20–40 ms of CPU took up to 261 ms): the target is asserted on the page's own work (CPU time per
 * task), and this looser ceiling on wall time only catches a gross regression without flaking.
 */
export const WALL_CEILING_MS = 500;

/** The budget: the page's own work per task under the target, and wall time under the ceiling. */
export function expectResponsive(r: LongTaskReport): void {
  expect(r.worstCpuMs, `CPU time of the busiest main-thread task (target < ${TASK_BUDGET_MS} ms)`).toBeLessThan(TASK_BUDGET_MS);
  expect(r.worstMs, `worst long task, wall time (ceiling ${WALL_CEILING_MS} ms on a loaded machine)`).toBeLessThan(WALL_CEILING_MS);
}
