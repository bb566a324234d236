/**
 * What the dashboard's long tasks are, during a real run: starts `sparring serve` on a temporary
 * lab, starts a run from the Experiments screen in Chromium, and records a performance trace and a
 * sampled JS profile while the run streams to the dashboard. Prints, for every long task (≥ 50 ms
 * on the page's main thread), its wall and CPU time and what it spent them on (trace events by
 * self time, JS functions by samples), so a fix aims at the real cost, not a guess.
 *
 *   npx tsx test/e2e/support/profile-run.ts [--preset quick] [--arena 18] [--out test-results/profile] [--limit 300]
 *
 * A task whose wall time is far above its CPU time was waiting for a core (a loaded machine),
 * not working.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { SourceMap } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { chromium, expect as baseExpect } from '@playwright/test';
import type { Page } from '@playwright/test';
import { ArenaPage } from '../pages/arena-page';
import { DashboardPage } from '../pages/dashboard-page';
import { ExperimentsPage } from '../pages/experiments-page';
import { LabPage } from '../pages/lab-page';
import { startLongTaskObserver, stopLongTaskObserver } from '../pages/long-tasks';
import { ROOT, startServer, stopServer } from './servers';

interface TraceEvent {
  name: string;
  cat: string;
  ph: string;
  ts: number;
  dur?: number;
  tdur?: number;
  pid: number;
  tid: number;
  args?: Record<string, unknown> & { name?: string; data?: Record<string, unknown> };
}

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number; columnNumber: number };
  children?: number[];
}

interface CpuProfile {
  nodes: ProfileNode[];
  startTime: number;
  samples: number[];
  timeDeltas: number[];
}

// A loaded machine answers slowly; the e2e config's expect timeout, not the library's 5 s.
const expect = baseExpect.configure({ timeout: 15_000 });

const { values } = parseArgs({
  options: {
    preset: { type: 'string', default: 'quick' },
    out: { type: 'string', default: path.join('test-results', 'profile') },
    limit: { type: 'string', default: '300' },
    /** Episodes per scenario of an arena match played (and profiled) before the run; 0 for none. */
    arena: { type: 'string', default: '18' },
    /** Record a Playwright trace too (screenshots and DOM snapshots), as the e2e suite's `trace` option does. */
    'pw-trace': { type: 'boolean', default: false },
  },
});

/** The renderer's main thread in the trace: the thread named CrRendererMain that ran the most. */
function mainThread(events: TraceEvent[]): { pid: number; tid: number } {
  const mains = events.filter((e) => e.ph === 'M' && e.name === 'thread_name' && e.args?.name === 'CrRendererMain');
  let best = { pid: 0, tid: 0, busy: -1 };
  for (const m of mains) {
    const busy = events.filter((e) => e.pid === m.pid && e.tid === m.tid && e.ph === 'X').reduce((s, e) => s + (e.dur ?? 0), 0);
    if (busy > best.busy) best = { pid: m.pid, tid: m.tid, busy };
  }
  return best;
}

/** Self time per event name inside one task (µs), children subtracted from their parents. */
function selfTimes(inside: TraceEvent[]): Map<string, number> {
  const sorted = [...inside].sort((a, b) => a.ts - b.ts || (b.dur ?? 0) - (a.dur ?? 0));
  const self = new Map<string, number>();
  const stack: TraceEvent[] = [];
  const label = (e: TraceEvent) => {
    const d = e.args?.data;
    if (e.name === 'FunctionCall' && d)
      return `FunctionCall ${nameOf(typeof d.url === 'string' ? d.url : '', Number(d.lineNumber ?? 1) - 1, Number(d.columnNumber ?? 1) - 1)}`;
    if (e.name === 'EventDispatch' && d) return `EventDispatch ${String(d.type)}`;
    if (e.name === 'TimerFire' || e.name === 'FireAnimationFrame') return e.name;
    return e.name;
  };
  const add = (e: TraceEvent, us: number) => self.set(label(e), (self.get(label(e)) ?? 0) + us);
  for (const e of sorted) {
    while (stack.length && stack.at(-1)!.ts + (stack.at(-1)!.dur ?? 0) <= e.ts) stack.pop();
    const parent = stack.at(-1);
    if (parent) add(parent, -(e.dur ?? 0));
    add(e, e.dur ?? 0);
    stack.push(e);
  }
  return self;
}

/** Names a minified bundle position by its source (the build's source map), where it has one. */
function sourceNamer(): (url: string, line: number, column: number) => string {
  const maps = new Map<string, SourceMap | null>();
  return (url, line, column) => {
    const file = url.split('/').pop() ?? '';
    if (!maps.has(file)) {
      const mapFile = path.join(ROOT, 'dist', 'renderer', 'assets', `${file}.map`);
      maps.set(file, file && existsSync(mapFile) ? new SourceMap(JSON.parse(readFileSync(mapFile, 'utf8')) as never) : null);
    }
    // eslint-disable-next-line @typescript-eslint/no-unnecessary-type-assertion -- tsc -p test types findOrigin() as `{} | SourceOrigin` (the linter's program does not), so the fields need it
    const origin = maps.get(file)?.findOrigin(line + 1, column + 1) as { fileName?: string; lineNumber?: number; name?: string } | undefined;
    if (!origin?.fileName) return `${file}:${line + 1}`;
    return `${origin.name ? `${origin.name} ` : ''}${origin.fileName.replace(/^.*?(renderer\/src|node_modules)\//, '$1/')}:${origin.lineNumber}`;
  };
}

const nameOf = sourceNamer();

/** JS self time per function (µs) between two trace timestamps, from the sampled profile. */
function profileSelf(profile: CpuProfile, from: number, to: number): Map<string, number> {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const out = new Map<string, number>();
  let t = profile.startTime;
  for (let i = 0; i < profile.samples.length; i++) {
    t += profile.timeDeltas[i]!;
    if (t < from || t > to) continue;
    const f = byId.get(profile.samples[i]!)!.callFrame;
    const key = f.url ? `${f.functionName || '(anonymous)'} ← ${nameOf(f.url, f.lineNumber, f.columnNumber)}` : f.functionName;
    const dt = profile.timeDeltas[i + 1] ?? 0;
    out.set(key, (out.get(key) ?? 0) + dt);
    // The innermost frame of the app's own code on the stack: which of our functions paid for it.
    for (let id: number | undefined = profile.samples[i]; id !== undefined; id = parent.get(id)) {
      const c = byId.get(id)!.callFrame;
      const where = c.url ? nameOf(c.url, c.lineNumber, c.columnNumber) : '';
      if (where.startsWith('renderer/src')) {
        out.set(`app: ${where}`, (out.get(`app: ${where}`) ?? 0) + dt);
        break;
      }
    }
  }
  return out;
}

const top = (m: Map<string, number>, n: number) =>
  [...m]
    .filter(([, v]) => v > 0)
    .sort((a, b) => b[1] - a[1])
    .slice(0, n)
    .map(([k, v]) => `${(v / 1000).toFixed(1)} ms ${k}`);

/** Record a trace, a JS profile and the long-task observer around `action`, then print what the long tasks were. */
async function profiled(page: Page, label: string, action: () => Promise<string>): Promise<void> {
  const browser = page.context().browser()!;
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Profiler.enable');
  await cdp.send('Profiler.setSamplingInterval', { interval: 500 });
  await browser.startTracing(page, { categories: ['devtools.timeline', 'v8', 'disabled-by-default-v8.gc', 'toplevel'] });
  await cdp.send('Profiler.start');
  await startLongTaskObserver(page);
  const t0 = Date.now();
  const what = await action();
  const seconds = (Date.now() - t0) / 1000;
  const tasks = await stopLongTaskObserver(page);
  const { profile } = (await cdp.send('Profiler.stop')) as unknown as { profile: CpuProfile };
  const trace = JSON.parse((await browser.stopTracing()).toString()) as { traceEvents: TraceEvent[] };
  await cdp.detach();
  writeFileSync(path.join(values.out, `${label}.cpuprofile`), JSON.stringify(profile));
  writeFileSync(path.join(values.out, `${label}-trace.json`), JSON.stringify(trace));

  const events = trace.traceEvents;
  const main = mainThread(events);
  const onMain = events.filter((e) => e.pid === main.pid && e.tid === main.tid && e.ph === 'X');
  // Starting the profiler blocks the thread once; that task is the measurement's, not the app's.
  const profilerStart = onMain.find((e) => e.name === 'CpuProfiler::StartProfiling');
  const long = onMain
    .filter((e) => (e.name === 'RunTask' || e.name === 'ThreadControllerImpl::RunTask') && (e.dur ?? 0) >= 50_000)
    .filter((t) => !profilerStart || profilerStart.ts < t.ts || profilerStart.ts >= t.ts + t.dur!)
    .sort((a, b) => a.ts - b.ts);
  const worst = tasks.reduce((m, t) => Math.max(m, t.duration), 0);
  console.log(`\n[profile] ${label}: ${what} in ${seconds.toFixed(0)} s`);
  console.log(
    `[profile] ${label}: long-task observer saw ${tasks.length} long task(s), worst ${worst.toFixed(0)} ms: ${tasks.map((t) => t.duration.toFixed(0)).join(', ')}`,
  );
  const cpu = long.reduce((s, t) => s + (t.tdur ?? 0), 0) / 1000;
  const wall = long.reduce((s, t) => s + (t.dur ?? 0), 0) / 1000;
  console.log(`[profile] ${label}: trace has ${long.length} main-thread task(s) ≥ 50 ms: ${wall.toFixed(0)} ms wall, ${cpu.toFixed(0)} ms on the CPU`);
  for (const t of long) {
    const inside = onMain.filter((e) => e !== t && e.ts >= t.ts && e.ts < t.ts + t.dur!);
    console.log(
      `\n— task at +${((t.ts - long[0]!.ts) / 1e6).toFixed(1)} s: wall ${(t.dur! / 1000).toFixed(0)} ms, cpu ${t.tdur === undefined ? '?' : (t.tdur / 1000).toFixed(0)} ms`,
    );
    for (const line of top(selfTimes(inside), 8)) console.log(`    trace  ${line}`);
    const js = profileSelf(profile, t.ts, t.ts + t.dur!);
    const app = new Map([...js].filter(([k]) => k.startsWith('app: ')));
    for (const line of top(new Map([...js].filter(([k]) => !app.has(k))), 10)) console.log(`    js     ${line}`);
    for (const line of top(app, 6)) console.log(`    ${line}`);
  }
}

async function main(): Promise<void> {
  mkdirSync(values.out, { recursive: true });
  const dir = mkdtempSync(path.join(os.tmpdir(), 'sparring-profile-'));
  const server = await startServer('serve', [path.join(ROOT, 'bin', 'sparring.js'), 'serve', '--db', path.join(dir, 'lab.db'), '--port', '0', '--json']);
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--disable-quic',
      '--no-first-run',
    ],
  });
  try {
    const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    if (values['pw-trace']) await page.context().tracing.start({ screenshots: true, snapshots: true });
    const lab = new LabPage(page);
    await lab.open(server.url);
    const arenaEpisodes = Number(values.arena);
    if (arenaEpisodes > 0) {
      // What lab.spec.ts does before its run: an arena match first, so the lab is not empty.
      await lab.go('arena');
      const arena = new ArenaPage(page);
      await profiled(page, 'arena', async () => {
        await arena.play({ episodesPerScenario: arenaEpisodes, seed: 7 });
        await arena.waitForMatch('M1', Number(values.limit) * 1000);
        return `a ${arenaEpisodes * 10}-episode arena match`;
      });
      await lab.go('transcripts');
      await lab.go('experiments');
    }
    const exp = new ExperimentsPage(page);
    await exp.choosePreset(values.preset);
    await profiled(page, 'run', async () => {
      await exp.start();
      const dash = new DashboardPage(page);
      await expect(page.getByTestId('screen-dashboard')).toBeVisible();
      await dash.waitForStatus('finished', Number(values.limit) * 1000);
      return `a ${values.preset} run with ${await dash.matchPoints().count()} match point(s) on the chart`;
    });
    await lab.screenshot('profile-dashboard-finished');
  } finally {
    await browser.close();
    await stopServer(server.child);
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
