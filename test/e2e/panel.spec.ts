/**
 * Counterpart shift on the Evaluation screen (issue 16): a lab of its own seeded through the CLI
 * — two quick runs (`sparring run`, seeds 1 and 2), then `sparring eval --da <R2's final DA>
 * --panel auto` — served by its own `sparring serve`. The app cannot start a panel evaluation;
 * it shows the stored one under the run whose final DA it evaluated. The spec reads the panel
 * table (the training counterpart, each panel member with its 95% Wilson intervals, the panel
 * average and the mismatch gap with their t intervals) against the figures the CLI printed, and
 * the gap chart's bars. The same lab's runs also serve the best-response panel: a match of R1
 * replayed with every opening of the CA's action space from the app, read against what
 * `sparring best-response --json` printed for it, and the CA-policy panel against `sparring ca-policy
 * --run R1 --json`. Screenshots: test-results/screenshots/panel-*.png.
 */
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { expect, test } from '@playwright/test';
import type { Locator, Page } from '@playwright/test';
import type { PanelSummary } from '../../core/arena/panel';
import type { BestResponseView, CaPolicyView } from '../../core/contract/contract';
import type { MeanInterval } from '../../core/stats/intervals';
import { LabPage, SCREENSHOTS } from './pages/lab-page';
import { runNode } from './support/run-node';
import { closeOwnLab, ROOT, startServer } from './support/servers';

test.describe.configure({ mode: 'serial' });

const BIN = path.join(ROOT, 'bin', 'sparring.js');
let dir = '';
let db = '';
let server: { url: string; child: ChildProcess } | null = null;
let page: Page;
let lab: LabPage;
/** The DA evaluated against its panel: run R2's final DA (its last match's). */
let da = '';
/** What `sparring eval --panel auto --json` printed. */
let cli: { da: string; daRun: string | null; summary: PanelSummary; failed: unknown[] };

/** The final DA of a run: the DA of its last match, as the lab's snapshot records it. */
function finalDa(runId: string): string {
  const lab = new Database(db, { readonly: true, fileMustExist: true });
  try {
    const snap = lab.prepare('SELECT snapshot_json FROM runs WHERE id = ?').pluck().get(runId) as string | undefined;
    if (!snap) throw new Error(`${db}: no run ${runId}`);
    const matches = (JSON.parse(snap) as { context: { matches: { da: string }[] } }).context.matches;
    if (!matches.length) throw new Error(`${db}: run ${runId} played no match`);
    return matches.at(-1)!.da;
  } finally {
    lab.close();
  }
}

const pct = (v: number) => (v * 100).toFixed(1);

test.beforeAll(async ({ browser }, info) => {
  test.skip(LabPage.runsUnavailable() !== null, `needs the co-evolution runner: ${LabPage.runsUnavailable()}`);
  info.setTimeout(900_000);
  dir = mkdtempSync(path.join(os.tmpdir(), 'sparring-e2e-panel-'));
  db = path.join(dir, 'lab.db');
  for (const seed of ['1', '2']) {
    const t0 = Date.now();
    await runNode([BIN, '--db', db, '--create', '--seed', seed, 'run', '--preset', 'smoke']);
    console.log(`[panel] quick run with seed ${seed}: ${((Date.now() - t0) / 1000).toFixed(0)} s`);
  }
  da = finalDa('R2');
  const t0 = Date.now();
  const { stdout } = await runNode([BIN, '--db', db, '--json', 'eval', '--da', da, '--panel', 'auto']);
  cli = JSON.parse(stdout) as typeof cli;
  console.log(
    `[panel] ${da} (${cli.daRun}) against ${cli.summary.rows.length} counterparts in ${((Date.now() - t0) / 1000).toFixed(0)} s: ` +
      `panel routing ${pct(cli.summary.average.routing.mean)}%, gap ${cli.summary.gap ? pct(cli.summary.gap.routing.mean) : '–'} points`,
  );
  server = await startServer('serve-panel', [BIN, 'serve', '--db', db, '--port', '0', '--json']);
  lab = await LabPage.openNew(browser, server.url);
  page = lab.page;
});

test.afterAll(() => closeOwnLab({ page, server, dir }));

test('the CLI evaluated the final DA of R2 against a panel of two, with its training counterpart', () => {
  expect(cli.da).toBe(da);
  expect(cli.daRun).toBe('R2');
  expect(cli.failed).toEqual([]);
  // The scripted CA and R1's final CA (no lineage shared with R2); R2's final CA is the training counterpart.
  expect(cli.summary.rows.map((r) => r.counterpart.kind).sort()).toEqual(['run-ca', 'scripted']);
  expect(cli.summary.rows.find((r) => r.counterpart.kind === 'run-ca')!.counterpart.runId).toBe('R1');
  expect(cli.summary.training?.counterpart.runId).toBe('R2');
  expect(cli.summary.gap).not.toBeNull();
});

test('the Evaluation screen shows the panel: per-counterpart rows with intervals, the panel mean and the mismatch gap', async () => {
  await lab.go('evaluation');
  // The newest finished run is shown first: R2, whose final DA the panel evaluated.
  await expect(page.getByRole('combobox', { name: 'Run' })).toHaveValue('R2');
  await expect(page.getByTestId('heldout-panel')).toContainText('checkpoint of run R2 on the held-out scenarios');
  const section = page.getByTestId('panel-evaluation');
  await expect(section).toContainText(`Counterpart shift: ${da} against its panel`);
  const table = page.getByTestId('panel-table');
  const cellsOf = (row: Locator) => row.locator('td');
  // Columns: counterpart, kind, episodes, routing, strict PASS, mean reward, note.
  const rate = (c: { value: number }) => new RegExp(`^${pct(c.value).replace('.', '\\.')}% \\[\\d+–\\d+\\]$`);
  const s = cli.summary;

  const training = table.locator('tbody tr[data-row="training"]');
  await expect(training).toHaveCount(1);
  await expect(cellsOf(training).nth(0)).toHaveText(`training: ${s.training!.counterpart.label}`);
  await expect(cellsOf(training).nth(3)).toHaveText(rate(s.training!.cells.routing));

  const members = table.locator('tbody tr[data-row="member"]');
  await expect(members).toHaveCount(s.rows.length);
  for (const r of s.rows) {
    const row = members.filter({ has: page.getByRole('cell', { name: r.counterpart.label, exact: true }) });
    await expect(row).toHaveCount(1);
    await expect(cellsOf(row).nth(1)).toHaveText(r.counterpart.kind);
    await expect(cellsOf(row).nth(2)).toHaveText(String(r.episodes));
    await expect(cellsOf(row).nth(3)).toHaveText(rate(r.cells.routing));
    await expect(cellsOf(row).nth(4)).toHaveText(rate(r.cells.strictPass));
    await expect(cellsOf(row).nth(5)).toHaveText(r.cells.meanReward.value.toFixed(2));
  }

  // The panel mean and the gap, rates in points with their t interval over the two counterparts.
  // Below 3 counterparts no t interval: the table says so (issue 52).
  const mean = (m: MeanInterval) => `${pct(m.mean)}${m.ci ? ` [${pct(m.ci[0])}, ${pct(m.ci[1])}]` : ` (n=${m.n}: too few for an interval)`}`;
  const summary = table.locator('tbody tr[data-row="summary"]');
  await expect(summary).toHaveCount(2);
  await expect(cellsOf(summary.nth(0)).nth(0)).toHaveText(`panel average (${s.rows.length} counterparts)`);
  await expect(cellsOf(summary.nth(0)).nth(3)).toHaveText(mean(s.average.routing));
  await expect(cellsOf(summary.nth(0)).nth(4)).toHaveText(mean(s.average.strictPass));
  await expect(cellsOf(summary.nth(1)).nth(0)).toHaveText('mismatch gap (training − panel)');
  await expect(cellsOf(summary.nth(1)).nth(3)).toHaveText(mean(s.gap!.routing));
  await expect(cellsOf(summary.nth(1)).nth(4)).toHaveText(mean(s.gap!.strictPass));
  await lab.screenshot('panel-01-table');

  // The gap chart: a bar per rate with a value (routing and strict PASS), whiskers where there is an interval.
  const chart = page.getByTestId('panel-gap-chart');
  await chart.scrollIntoViewIfNeeded();
  const bars = (['routing', 'strictPass'] as const).filter((k) => s.gap![k].n > 0);
  await expect(chart.locator('svg [data-bar]')).toHaveCount(bars.length);
  for (const k of bars) await expect(chart.locator(`svg [data-bar="${k}"] rect`)).toHaveCount(1);
  await page.getByTestId('panel-gap-chart').screenshot({ path: path.join(SCREENSHOTS, 'panel-02-gap-chart.png') });
});

test('a run whose final DA has no panel evaluation shows none', async () => {
  await page.getByRole('combobox', { name: 'Run' }).selectOption('R1');
  await expect(page.getByTestId('heldout-panel')).toContainText('checkpoint of run R1 on the held-out scenarios');
  await expect(page.getByTestId('panel-evaluation')).toHaveCount(0);
  await lab.screenshot('panel-03-run-without-panel');
});

test('the best-response panel replays a match of the run with every opening, with the figures of `sparring best-response`', async () => {
  test.setTimeout(300_000);
  const match = 'R1-M1';
  const t0 = Date.now();
  const cliReport = JSON.parse((await runNode([BIN, '--db', db, '--json', 'best-response', '--match', match])).stdout) as BestResponseView;
  console.log(`[panel] best-response ${match}: ${cliReport.episodes} episodes × ${cliReport.choices} openings in ${((Date.now() - t0) / 1000).toFixed(0)} s`);
  // R1 is still the run on screen (the test before chose it).
  const panel = page.getByTestId('best-response');
  await expect(panel.getByTestId('best-response-empty')).toBeVisible();
  await panel.getByLabel('Best-response match').selectOption(match);
  await panel.getByTestId('best-response-run').click();
  await expect(panel.getByTestId('best-response-run')).toHaveText('Replaying…');
  await expect(panel.getByTestId('best-response-report')).toBeVisible({ timeout: 240_000 });
  await expect(panel).toContainText(`${match}: DA ${cliReport.da} against CA ${cliReport.ca} · ${cliReport.episodes} episodes`);
  // The same replay as the CLI's (seeded rollouts of the same checkpoints): every W_DA line equal.
  const lines = panel.getByTestId('best-response-lines');
  const wDa = (key: string) => lines.locator(`tr[data-line="${key}"] td`).nth(1);
  await expect(wDa('greedy')).toHaveText(`${pct(cliReport.wDaGreedy)}%`);
  await expect(wDa('perIntent')).toHaveText(`${pct(cliReport.wDaPerIntent)}%`);
  await expect(wDa('perIntentByReward')).toHaveText(`${pct(cliReport.wDaPerIntentByReward)}%`);
  await expect(wDa('oracle')).toHaveText(`${pct(cliReport.wDaOracle)}%`);
  await expect(wDa('random')).toHaveText(`${pct(1 - cliReport.meanWinShare)}%`);
  await expect(lines.locator('tr[data-line="greedy"] td').nth(2)).toHaveText(cliReport.gymReward.greedy.toFixed(3));
  // One row per head and value (3 + 4 + 6 + 2 + 3 + 2 + 2 = 22), each head named once.
  const factors = panel.getByTestId('best-response-factors');
  await expect(factors.locator('tbody tr')).toHaveCount(cliReport.factors.reduce((n, f) => n + f.values.length, 0));
  const withhold = cliReport.factors.find((f) => f.head === 'withhold')!.values.find((v) => v.value === 'true')!;
  await expect(factors.locator('tr[data-head="withhold"][data-value="true"] td').nth(2)).toHaveText(`${pct(withhold.winRate)}%`);
  await lab.screenshot('panel-04-best-response');
});

test("the CA-policy panel reads the run's CA match by match, with the figures of `sparring ca-policy`", async () => {
  const cliPolicy = JSON.parse((await runNode([BIN, '--db', db, '--json', 'ca-policy', '--run', 'R1'])).stdout) as CaPolicyView;
  // R1 is still the run on screen.
  const panel = page.getByTestId('ca-policy');
  await expect(panel.getByTestId('ca-policy-table')).toHaveCount(0);
  await panel.getByTestId('ca-policy-read').click();
  const table = panel.getByTestId('ca-policy-table');
  await expect(table).toBeVisible();
  // A column per match, a row per head and value.
  await expect(table.locator('thead th')).toHaveCount(2 + cliPolicy.matches.length);
  for (const [i, m] of cliPolicy.matches.entries()) await expect(table.locator('thead th').nth(2 + i)).toHaveText(`${m.matchId} · ${m.ca}`);
  await expect(table.locator('tbody tr')).toHaveCount(cliPolicy.matches[0]!.heads.reduce((n, h) => n + h.values.length, 0));
  for (const [i, m] of cliPolicy.matches.entries()) {
    const v = m.heads.find((h) => h.head === 'withhold')!.values.find((x) => x.value === 'true')!;
    await expect(table.locator('tr[data-head="withhold"][data-value="true"] td').nth(2 + i)).toHaveText(`${pct(v.meanP)}% (${pct(v.greedyShare)}%)`);
  }
  await expect(panel.getByTestId('ca-policy-read')).toHaveText('Read again');
  await panel.screenshot({ path: path.join(SCREENSHOTS, 'panel-05-ca-policy.png') });
});
