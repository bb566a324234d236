/**
 * The first ten minutes, as a newcomer spends them (issue 52): on a lab of their own, start the
 * default run (the quick preset the README starts with) from the app, watch it on the dashboard,
 * open its Table 4, export it as CSV (the file parsed back against the screen), start a 2-seed
 * quick study with the form's defaults, and read an arm difference that is not zero. Screenshots
 * in test-results/screenshots/newcomer-*.png.
 */
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { parse as parseCsv } from 'csv-parse/sync';
import { expect, test } from '@playwright/test';
import type { Page } from '@playwright/test';
import { DashboardPage } from './pages/dashboard-page';
import { ExperimentsPage } from './pages/experiments-page';
import { LabPage } from './pages/lab-page';
import { StudiesPage } from './pages/studies-page';
import { closeOwnLab, ROOT, startServer } from './support/servers';

test.describe.configure({ mode: 'serial' });

const BIN = path.join(ROOT, 'bin', 'sparring.js');
let dir: string;
let server: { url: string; child: ChildProcess } | null = null;
let page: Page;
let lab: LabPage;
const started = Date.now();

test.beforeAll(async ({ browser }) => {
  test.skip(LabPage.runsUnavailable() !== null, `needs the co-evolution runner: ${LabPage.runsUnavailable()}`);
  // A lab of its own: a newcomer's is empty, and the shared lab's later specs count its runs.
  dir = mkdtempSync(path.join(os.tmpdir(), 'sparring-e2e-newcomer-'));
  server = await startServer('serve-newcomer', [BIN, 'serve', '--db', path.join(dir, 'lab.db'), '--port', '0', '--json']);
  lab = await LabPage.openNew(browser, server.url);
  page = lab.page;
});

test.afterAll(async () => {
  await closeOwnLab({ page, server, dir });
  console.log(`newcomer walkthrough: ${((Date.now() - started) / 1000).toFixed(1)} s`);
});

test('starts the default run, watches it, opens its Table 4 and exports it as CSV', async () => {
  test.setTimeout(300_000);
  await expect(page.getByTestId('screen-experiments')).toBeVisible();
  // The default run is the README's: the quick preset.
  await new ExperimentsPage(page).choosePreset('quick');
  await page.getByTestId('start-run').click();
  const dash = new DashboardPage(page);
  // Starting opens the run's worker (seconds on a busy machine).
  await expect(page.getByTestId('screen-dashboard')).toBeVisible({ timeout: 60_000 });
  await expect(dash.head).toContainText('R1');
  await expect(dash.matchPoints().first()).toBeVisible({ timeout: 180_000 });
  await dash.waitForStatus('finished', 240_000);
  await lab.screenshot('newcomer-01-run-finished');

  await lab.go('evaluation');
  const table = page.getByTestId('evaluation-table');
  await expect(table.locator('thead th').nth(1)).toHaveText('DA0');
  const routing = (await table.locator('tbody tr[data-metric="routing"] td').nth(1).locator('.heldout-value').innerText()).trim();
  const [download] = await Promise.all([page.waitForEvent('download'), page.getByTestId('export-table4-csv').click()]);
  expect(download.suggestedFilename()).toBe('sparring-R1-table4.csv');
  const rows = parseCsv<Record<string, string>>(await readFile(await download.path(), 'utf8'), { columns: true });
  // The file's DA0 routing against the run's CA is the figure on screen.
  const da0 = rows.find((r) => r.metric === 'routing' && r.checkpoint === 'DA0' && r.opponent!.startsWith('run CA'))!;
  expect(`${(Number(da0.value) * 100).toFixed(1)}%`).toBe(routing);
  expect(rows.filter((r) => r.opponent === 'scripted').length).toBeGreaterThan(0);
  await lab.screenshot('newcomer-02-table4');
});

test('starts a 2-seed quick study with the form as it comes and reads an arm difference that is not zero', async () => {
  test.setTimeout(15 * 60_000);
  await lab.go('studies');
  const studies = new StudiesPage(page);
  // The form's defaults: quick, 2 seeds, full and no-ca-training.
  await expect(page.getByTestId('study-preset')).toHaveValue('quick');
  await expect(page.getByTestId('study-seeds')).toHaveValue('2');
  await page.getByTestId('start-study').click();
  await expect(page.getByTestId('study-view')).toBeVisible({ timeout: 60_000 });
  await studies.waitFinished(4, 14 * 60_000);
  const paired = page.getByTestId('study-paired').locator('tbody tr', { hasText: 'no-ca-training − full' });
  await expect(paired).toHaveCount(1);
  await lab.screenshot('newcomer-03-study');
  // Each cell: "mean [low, high]" (or one figure; "–" where nothing was measured).
  const cells = (await paired.locator('td').allInnerTexts()).slice(2);
  const means = cells.map((c) => Number(c.trim().split(' ')[0]!.replace('−', '-'))).filter((v) => !Number.isNaN(v));
  expect(means.length, `paired differences shown: ${cells.join(' | ')}`).toBeGreaterThan(0);
  expect(
    means.some((v) => v !== 0),
    `no-ca-training − full: ${cells.join(' | ')}`,
  ).toBe(true);
});
