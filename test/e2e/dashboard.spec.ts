/**
 * The run screens against a simulated co-evolution runner (support/simulated-run-service.ts:
 * real config validation, real scripted matches and stopping rule; training faked on a short
 * clock). These exercise the renderer's side of runs — config errors from the engine, the live
 * dashboard, pause/resume, evaluation, chart downloads — whether or not the product's runner
 * exists yet; lab.spec.ts covers the real runner when it does.
 */
import { readFile } from 'node:fs/promises';
import { expect, test } from '@playwright/test';
import type { Page } from '@playwright/test';
import { DashboardPage } from './pages/dashboard-page';
import { ExperimentsPage } from './pages/experiments-page';
import { LabPage } from './pages/lab-page';
import { describeLongTasks, expectResponsive, LongTaskProbe } from './pages/long-tasks';

test.describe.configure({ mode: 'serial' });

let page: Page;
let lab: LabPage;

test.beforeAll(async ({ browser }) => {
  lab = await LabPage.openNew(browser, LabPage.simulatedUrl());
  page = lab.page;
});

test.afterAll(async () => {
  await page.close();
});

test('the config editor shows syntax errors in place and the engine’s field errors on start', async () => {
  const exp = new ExperimentsPage(page);
  await exp.choosePreset('smoke');
  const editor = page.getByTestId('config-editor');
  const good = await editor.inputValue();
  await editor.fill(good.replace('"tauDa": 0.6', '"tauDa": 0.6,,'));
  await expect(page.getByTestId('config-syntax-error')).toContainText(/^Line \d+, column \d+/);
  await expect(page.getByTestId('start-run')).toBeDisabled();
});

test('a config the engine rejects names the field', async () => {
  const exp = new ExperimentsPage(page);
  await page.getByRole('button', { name: 'Reset to preset' }).click();
  await exp.editConfig((c) => ((c.stopping as Record<string, unknown>).tauDa = 1.5));
  await exp.start();
  await expect(page.getByTestId('config-engine-error')).toContainText('stopping.tauDa');
  await lab.screenshot('07-experiments-config-error');
});

test('starts a run and follows it live: phases, win rates, gym curves, pause and resume', async () => {
  test.setTimeout(120_000);
  const exp = new ExperimentsPage(page);
  await page.getByRole('button', { name: 'Reset to preset' }).click();
  const probe = await LongTaskProbe.start(lab);
  await exp.start();
  const dash = new DashboardPage(page);
  await expect(page.getByTestId('screen-dashboard')).toBeVisible();
  await expect(dash.head).toContainText('R1');
  await expect(page.getByTestId('phase-timeline').locator('svg')).toBeVisible();
  await expect(dash.matchPoints()).toHaveCount(1, { timeout: 60_000 });
  await expect(page.getByTestId('stop-verdict')).toContainText('continue after match 1');

  await dash.pause();
  await dash.waitForStatus('paused');
  await lab.screenshot('08-dashboard-paused');
  await dash.resume();
  await dash.waitForStatus('running');

  await dash.waitForStatus('finished', 90_000);
  const longTasks = await probe.stop();
  console.log(describeLongTasks('while a simulated run streamed (matches, gym metrics, progress)', longTasks));
  await expect(dash.matchPoints()).toHaveCount(3);
  expectResponsive(longTasks);
  await expect(page.getByTestId('stop-verdict')).toContainText('stop at match 3');
  // Why a gym ended early is shown with the run, only for the gym that has a note.
  await expect(page.getByTestId('gym-notes').locator('li')).toHaveCount(1);
  await expect(page.getByTestId('gym-notes').locator('li')).toContainText('gym after match 2): stopped after step');
  await lab.screenshot('09-dashboard-finished');
});

test('downloads charts as SVG and PNG', async () => {
  const dash = new DashboardPage(page);
  const svg = await dash.downloadChart('win-rates-', 'SVG');
  expect(svg.suggestedFilename()).toBe('win-rates-R1.svg');
  const svgText = await readFile(await svg.path(), 'utf8');
  expect(svgText).toMatch(/^<\?xml/);
  expect(svgText).toContain('<svg');
  expect(svgText).toContain('τ_DA');
  const png = await dash.downloadChart('gym-curves-', 'PNG');
  expect(png.suggestedFilename()).toBe('gym-curves-R1.png');
  const bytes = await readFile(await png.path());
  expect([...bytes.subarray(0, 8)]).toEqual([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
});

test('shows the held-out evaluation across DA checkpoints', async () => {
  await lab.go('evaluation');
  const table = page.getByTestId('evaluation-table');
  // DA0 and every DA checkpoint a gym produced, in columns; the metrics in rows.
  await expect(table.locator('thead th').nth(1)).toHaveText('DA0');
  await expect(table.locator('tbody tr').first()).toContainText('Tool-routing accuracy');
  await lab.screenshot('10-evaluation');
});
