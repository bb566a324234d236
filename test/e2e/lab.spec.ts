/**
 * The lab end to end: the real engine behind `sparring serve` on a temporary lab, Chromium
 * driving the UI. The tests run in order on one lab: the match played first is what the
 * transcript and export tests read.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { expect, test } from '@playwright/test';
import { CA_TERMS, DA_TERMS } from '../../core/rewards/terms';
import type { Page } from '@playwright/test';
import { ArenaPage } from './pages/arena-page';
import { DashboardPage } from './pages/dashboard-page';
import { ExperimentsPage } from './pages/experiments-page';
import { ExportPage } from './pages/export-page';
import { LabPage, SCREENSHOTS } from './pages/lab-page';
import { describeLongTasks, expectResponsive, LongTaskProbe } from './pages/long-tasks';
import { EvaluationPage } from './pages/evaluation-page';
import { DiffPage, TranscriptsPage } from './pages/transcripts-page';

test.describe.configure({ mode: 'serial' });

let page: Page;
let lab: LabPage;
/** The match the Arena test plays; later tests read its episodes. */
const MATCH = 'M1';
const EPISODES_PER_SCENARIO = 18;

test.beforeAll(async ({ browser }) => {
  lab = await LabPage.openNew(browser);
  page = lab.page;
});

test.afterAll(async () => {
  await page.close();
});

test('opens the lab on the Experiments screen, connected to the engine', async () => {
  await expect(page.getByTestId('screen-experiments')).toBeVisible();
  const unavailable = LabPage.runsUnavailable();
  if (unavailable) {
    // No runner in this build: the screen says so, and offers the Arena instead.
    await expect(page.getByTestId('runs-unavailable')).toContainText('not available');
    await expect(page.getByRole('button', { name: 'Play an arena match' })).toBeVisible();
  } else {
    await expect(page.getByTestId('config-editor')).toBeVisible();
  }
  await lab.screenshot('01-experiments');
});

test('plays a match from the Arena while progress streams, without long main-thread stalls', async () => {
  await lab.go('arena');
  const arena = new ArenaPage(page);
  await expect(page.getByTestId('empty-state')).toContainText('No matches');
  const probe = await LongTaskProbe.start(lab);
  await arena.play({ episodesPerScenario: EPISODES_PER_SCENARIO, seed: 7 });
  await expect(arena.progress).toBeVisible();
  await arena.waitForMatch(MATCH, 120_000);
  const longTasks = await probe.stop();
  const line = describeLongTasks(`while a ${EPISODES_PER_SCENARIO * 10}-episode match streamed`, longTasks);
  console.log(line);
  mkdirSync(SCREENSHOTS, { recursive: true });
  writeFileSync(path.join('test-results', 'long-tasks.json'), JSON.stringify({ episodes: EPISODES_PER_SCENARIO * 10, ...longTasks }, null, 2));
  test.info().annotations.push({ type: 'long tasks', description: line });
  expectResponsive(longTasks);

  expect(await arena.wDa(MATCH)).toMatch(/^\d+\.\d%$/);
  await expect(page.getByTestId('scenario-bars').locator('svg')).toBeVisible();
  await lab.screenshot('02-arena');
});

test('opens a failed episode (the CA won) and reads every reward term', async () => {
  await lab.go('transcripts');
  const tr = new TranscriptsPage(page);
  await expect(page.getByTestId('episode-empty')).toBeVisible();
  // The count arrives with the first page of the list: wait for it rather than read it at once.
  await expect.poll(() => tr.total()).toBe(EPISODES_PER_SCENARIO * 10);

  await tr.filter('winner', 'CA');
  await expect(tr.rows().first()).toHaveAttribute('data-winner', 'CA');
  await expect.poll(() => tr.total()).toBeLessThan(EPISODES_PER_SCENARIO * 10);
  const failed = await tr.total();
  expect(failed).toBeGreaterThan(0);
  expect(failed).toBeLessThan(EPISODES_PER_SCENARIO * 10);

  const id = await tr.openFirst();
  expect(id).toMatch(/^M1:\d+$/);
  expect(await tr.winnerBadge()).toBe('CA won');
  const terms = await tr.rewardTerms();
  // Every term of Table 2 (and the CA's), in the order the reward code defines them.
  expect(Object.keys(terms.da)).toEqual([...DA_TERMS]);
  expect(Object.keys(terms.ca)).toEqual([...CA_TERMS]);
  const sum = (r: Record<string, number>) => Object.values(r).reduce((s, v) => s + v, 0);
  // Each shown term is rounded to 2 decimals.
  expect(Math.abs(sum(terms.da) - terms.rDa)).toBeLessThan(0.06);
  expect(Math.abs(sum(terms.ca) - terms.rCa)).toBeLessThan(0.03);
  await expect(page.getByTestId('judge-rationale')).not.toBeEmpty();
  await expect(page.getByTestId('turns').locator('li').first()).toContainText('Customer');
  await expect(page.getByTestId('turn-rewards').first()).toBeVisible();

  // The list pages from the engine: scrolling far down loads rows beyond the first page.
  await tr.filter('winner', '');
  await page.getByTestId('episode-list').evaluate((el) => (el.scrollTop = el.scrollHeight));
  await expect(page.getByTestId(`episode-row-${MATCH}:${EPISODES_PER_SCENARIO * 10 - 1}`)).toBeVisible();
  await tr.filter('winner', 'CA');
  await tr.openFirst();
  await lab.screenshot('03-transcripts-failed-episode');
});

test('exports the match as JSONL in the chat format, and as CSV', async () => {
  await lab.go('export');
  const ex = new ExportPage(page);
  const jsonl = await ex.download('jsonl', MATCH);
  expect(jsonl.filename).toBe(`sparring-${MATCH}-episodes.jsonl`);
  const lines = jsonl.content.trimEnd().split('\n');
  expect(lines).toHaveLength(EPISODES_PER_SCENARIO * 10);
  for (const line of lines) {
    const ex = JSON.parse(line) as { messages: { role: string; tool_calls?: unknown[] }[]; metadata: { matchId: string } };
    expect(ex.messages[0]!.role).toBe('system');
    expect(ex.messages.some((m) => m.role === 'user')).toBe(true);
    expect(ex.metadata.matchId).toBe(MATCH);
  }
  const first = JSON.parse(lines[0]!) as { messages: { role: string; tool_calls?: { function: { name: string } }[] }[] };
  expect(first.messages.find((m) => m.tool_calls)?.tool_calls?.[0]?.function.name).toBe('lookup_account');
  expect(first.messages.some((m) => m.role === 'tool')).toBe(true);

  const csv = await ex.download('csv', MATCH);
  const [header, ...rows] = csv.content.trimEnd().split('\r\n');
  expect(header).toContain('da_env_judge');
  expect(header).toContain('ca_inv_da');
  expect(rows).toHaveLength(EPISODES_PER_SCENARIO * 10);
  await lab.screenshot('04-export');
});

test('shows the run dashboard and evaluation screens (with their empty states when there is no run)', async () => {
  await lab.go('runs');
  if (LabPage.runsUnavailable()) await expect(page.getByTestId('dashboard-empty')).toContainText('not available');
  await lab.screenshot('05-dashboard');
  await lab.go('evaluation');
  if (LabPage.runsUnavailable()) await expect(page.getByTestId('evaluation-empty')).toBeVisible();
  // No checkpoint in the lab yet: the heat map says how to get some.
  await expect(page.getByTestId('crossplay-empty')).toBeVisible();
  await lab.screenshot('06-evaluation');
});

test('runs a quick co-evolution run to the end, live on the dashboard, then reads its evaluation', async () => {
  const unavailable = LabPage.runsUnavailable();
  test.skip(unavailable !== null, `needs the co-evolution runner: ${unavailable}`);
  test.setTimeout(300_000);
  await lab.go('experiments');
  const exp = new ExperimentsPage(page);
  await exp.choosePreset('quick');
  const probe = await LongTaskProbe.start(lab);
  await exp.start();
  const dash = new DashboardPage(page);
  await expect(page.getByTestId('screen-dashboard')).toBeVisible();
  await expect(dash.head).toContainText('R1');
  await expect(page.getByTestId('phase-timeline').locator('svg')).toBeVisible();
  // The first match's point on the win-rate chart, and the stopping rule's verdict in words.
  await expect(dash.matchPoints().first()).toBeVisible({ timeout: 180_000 });
  // Any match's verdict: on a fast machine the run is past match 1 within a second or two.
  await expect(page.getByTestId('stop-verdict')).toContainText(/(after|at) match \d/);
  await lab.screenshot('11-dashboard-run-live');
  await dash.waitForStatus('finished', 240_000);
  const longTasks = await probe.stop();
  const line = describeLongTasks('while the real quick run streamed', longTasks);
  console.log(line);
  test.info().annotations.push({ type: 'long tasks', description: line });
  // The window saw the run live: its matches landed on the chart while it was observed.
  expect(await dash.matchPoints().count()).toBeGreaterThanOrEqual(1);
  await expect(page.getByTestId('stop-verdict')).toContainText('stop at match');
  expectResponsive(longTasks);
  // What the run ran with, resolved by the host as its runner resolves it (defaults spelled out):
  // the quick preset's K per phase (DA 16, CA 8) and the sampling temperature no config here sets.
  await page.getByTestId('run-settings').getByText('Settings this run runs with').click();
  const grpo = page.getByTestId('run-settings-grpo');
  await expect(grpo.locator('thead')).toContainText(/DA0 warm-up.*CA0 pressure.*DA gym.*CA gym/);
  await expect(grpo.locator('tr[data-setting="K"] td')).toHaveText(['K: actions sampled per point', '16', '8', '16', '8']);
  await expect(grpo.locator('tr[data-setting="temperature"] td').nth(3)).toHaveText('1');
  await expect(grpo.locator('tr[data-setting="trainer"] td')).toHaveText(['trained by', '–', '–', 'builtin', 'builtin']);
  await expect(page.getByTestId('run-settings-rewards')).toContainText('invDaMisroute 1');
  await expect(page.getByTestId('run-settings')).toContainText('failure:success transcripts of the latest 3 matches');
  await page.getByTestId('run-settings').getByText('The config as stored').click();
  await expect(page.getByTestId('run-settings-config')).toContainText('"failureShare": 0.7');
  await lab.screenshot('12b-dashboard-run-settings');
  await lab.screenshot('12-dashboard-run-finished');

  await lab.go('evaluation');
  // RL-ADA Table 4: DA0 first of the checkpoint columns, routing with its 95% interval.
  await expect(page.getByTestId('evaluation-table').locator('thead th').nth(1)).toHaveText('DA0');
  await expect(page.getByTestId('evaluation-table').locator('tbody tr[data-metric="routing"] td').nth(1)).toHaveText(/\[\d+–\d+\]/);
  await lab.screenshot('13-evaluation-run');

  // The cross-play heat map: every DA checkpoint of the run against every CA checkpoint.
  const ev = new EvaluationPage(page);
  await ev.playCrossPlay(2);
  const panels = ev.heatmap().locator('svg [data-panel]');
  await expect(panels).toHaveCount(11); // W_DA and the 10 arena scenarios
  const cells = await panels.first().locator('.heat-cell').count();
  expect(cells).toBeGreaterThanOrEqual(1);
  await expect(panels.nth(1).locator('.heat-cell')).toHaveCount(cells);
  const svg = await new DashboardPage(page).downloadChart('crossplay-', 'SVG');
  expect(svg.suggestedFilename()).toBe('crossplay-R1.svg');
  await lab.screenshot('15-evaluation-crossplay');
});

test("replays the run's last match from the Arena, as in the run: the same W_DA from its stored seed", async () => {
  const unavailable = LabPage.runsUnavailable();
  test.skip(unavailable !== null, `needs the co-evolution runner: ${unavailable}`);
  test.setTimeout(120_000);
  const dbPath = process.env.SPARRING_E2E_DB;
  if (!dbPath) throw new Error('SPARRING_E2E_DB is not set: run these specs through playwright.config.ts (its global setup starts the server)');
  const db = new Database(dbPath, { readonly: true });
  const read = <T>(sql: string) => db.prepare(sql).get() as T;
  const last = read<{ seed: number; da: string; ca: string; wDa: number; n: number }>(
    "SELECT seed, da_checkpoint_name AS da, ca_checkpoint_name AS ca, w_da AS wDa, episodes_per_scenario AS n FROM matches WHERE id LIKE 'R1-M%' ORDER BY seq DESC",
  );
  const next = `M${read<{ n: number }>("SELECT COUNT(*) AS n FROM matches WHERE id GLOB 'M[0-9]*'").n + 1}`;
  db.close();
  await lab.go('arena');
  const arena = new ArenaPage(page);
  await arena.play({ episodesPerScenario: last.n, seed: last.seed, scenarios: 'arena', da: last.da, ca: last.ca, run: 'R1' });
  await arena.waitForMatch(next);
  expect(await arena.wDa(next)).toBe(`${(last.wDa * 100).toFixed(1)}%`);
  await lab.screenshot('14a-arena-as-in-run');
});

test('compares two policies on a failed episode: same policy replays it exactly, another diverges where it acts differently', async () => {
  test.setTimeout(180_000);
  await lab.go('transcripts');
  const tr = new TranscriptsPage(page);
  await tr.filter('match', MATCH);
  await tr.filter('winner', 'CA');
  const id = await tr.openFirst();
  const turns = await page.getByTestId('turns').locator('li').count();
  const diff = new DiffPage(page);
  await diff.openFromEpisode();
  // The arena match was scripted vs scripted: replaying it with the same DA twice is the stored episode.
  await diff.replay('scripted', 'scripted');
  await expect(diff.divergence()).toContainText('No divergence');
  await expect(page.getByTestId('diff-turns').locator('li')).toHaveCount(turns);
  await expect(page.getByTestId('diff-first')).toHaveCount(0);
  const b = LabPage.runsUnavailable() ? null : 'DA0';
  test.skip(b === null, `another policy needs a checkpoint from the co-evolution run; replayed ${id} only`);
  await diff.replay('scripted', b!);
  const text = (await diff.divergence().textContent()) ?? '';
  if (text.startsWith('First divergence')) {
    await expect(page.getByTestId('diff-first')).toHaveCount(1);
    await expect(page.getByTestId('diff-first').locator('.badge').first()).toBeVisible();
  } else {
    await expect(diff.divergence()).toContainText('No divergence');
  }
  console.log(`[diff] ${id} scripted vs ${b}: ${text}`);
  await lab.screenshot('14-transcripts-diff');
});
