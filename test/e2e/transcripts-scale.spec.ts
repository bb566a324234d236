/**
 * The transcript list at scale: a lab of 100,000 episodes (support/seed-lab.ts copies one real
 * match in SQL), its own `sparring serve`, and Chromium scrolling the virtual list smoothly and
 * by jumps. The frame, long-task and fill figures are printed to the test log (and written to
 * test-results/transcripts-scale.json); they are measurements, not pass/fail thresholds, except
 * that every jump must fill its rows.
 */
import { execFileSync } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, test } from '@playwright/test';
import type { Page } from '@playwright/test';
import { LabPage } from './pages/lab-page';
import { measureScroll } from './pages/scroll-measure';
import { TranscriptsPage } from './pages/transcripts-page';
import { closeOwnLab, ROOT, startServer } from './support/servers';

const EPISODES = 100_000;

let dir = '';
let server: { url: string; child: ChildProcess } | null = null;
let page: Page;

test.beforeAll(async ({ browser }, info) => {
  info.setTimeout(400_000);
  dir = mkdtempSync(path.join(os.tmpdir(), 'sparring-e2e-scale-'));
  const db = path.join(dir, 'lab.db');
  const seeded = execFileSync(process.execPath, ['--import', 'tsx', path.join(ROOT, 'test', 'e2e', 'support', 'seed-lab.ts'), db, String(EPISODES)], {
    cwd: ROOT,
    encoding: 'utf8',
  });
  console.log(`[scale] seeded ${seeded.trim()}`);
  server = await startServer('serve-100k', [path.join(ROOT, 'bin', 'sparring.js'), 'serve', '--db', db, '--port', '0', '--json']);
  page = await browser.newPage();
  page.on('pageerror', (e) => console.error(`[page error] ${e.message}`));
});

test.afterAll(() => closeOwnLab({ page, server, dir }));

test('scrolls the transcript list through 100,000 episodes, paging from the engine', async () => {
  test.setTimeout(240_000);
  const lab = new LabPage(page);
  await lab.open(server!.url);
  await lab.go('transcripts');
  const tr = new TranscriptsPage(page);
  await expect.poll(() => tr.total(), { timeout: 30_000 }).toBe(EPISODES);
  const list = page.getByTestId('episode-list');
  const figures = await measureScroll(list, { smoothFrames: 300, step: 120, jumps: 40 });
  const line =
    `[scale] ${EPISODES} episodes: ${figures.frames} frames, mean ${figures.meanFrameMs.toFixed(1)} ms, p95 ${figures.p95FrameMs.toFixed(1)} ms, ` +
    `worst ${figures.worstFrameMs.toFixed(0)} ms, ${figures.slowFrames} over 50 ms; ${figures.longTasks} long task(s), worst ${figures.worstLongTaskMs.toFixed(0)} ms; ` +
    `${figures.jumps} jumps filled in median ${figures.medianFillMs.toFixed(0)} ms, worst ${figures.worstFillMs.toFixed(0)} ms`;
  console.log(line);
  test.info().annotations.push({ type: 'scroll', description: line });
  mkdirSync('test-results', { recursive: true });
  writeFileSync(path.join('test-results', 'transcripts-scale.json'), JSON.stringify({ episodes: EPISODES, ...figures }, null, 2));
  expect(figures.worstFillMs).toBeLessThan(10_000); // every jump filled its rows (the loop gives up at 10 s)
  // The end of the list is the last episode of the last match.
  await expect(page.getByTestId('episode-row-M556:99')).toBeVisible();
  await page.getByTestId('episode-row-M556:99').click();
  await expect(page.getByTestId('episode-view')).toHaveAttribute('data-episode', 'M556:99');
  await lab.screenshot('16-transcripts-100k');
});
