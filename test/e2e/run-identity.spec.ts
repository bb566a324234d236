/**
 * Which run is this (issue 52 §3), on the real engine: a small run started from Experiments shows
 * up, with its run, seed, preset and change from the preset, in a Play picker that was open before
 * the run existed (no reload: the lists follow the engine's events); a note written on the
 * dashboard is stored in the lab and shown on Evaluation, whose Table 4 names the run's own first
 * DA; Compare checkpoints from one of its episodes replays against that episode's CA; and the
 * Experiments presets say how long each takes, starting on the quick one.
 */
import Database from 'better-sqlite3';
import { expect, test } from '@playwright/test';
import type { Page } from '@playwright/test';
import { ExperimentsPage } from './pages/experiments-page';
import { LabPage } from './pages/lab-page';
import { DiffPage, TranscriptsPage } from './pages/transcripts-page';

test.describe.configure({ mode: 'serial' });
test.skip(!!LabPage.runsUnavailable(), 'runs are not available in this build');

let page: Page;
let lab: LabPage;
let runId = '';
const SEED = 7;
const NOTE = 'the tiny run for the identity check';

test.beforeAll(async ({ browser }) => {
  lab = await LabPage.openNew(browser);
  page = lab.page;
});

test.afterAll(async () => {
  await page.close();
});

test('a run started now appears in an open picker with its identity, without a reload', async () => {
  test.setTimeout(150_000);
  await lab.go('experiments');
  // Starts on the quick preset, and every preset says what it will take.
  await expect(page.getByRole('radio', { name: /^quick\b/ })).toHaveAttribute('aria-checked', 'true');
  await expect(page.getByTestId('preset-time-paper')).toHaveText(/time not measured in this lab yet · at most \d+ matches of \d+ episodes per scenario/);
  await lab.screenshot('52-identity-01-presets');

  // A smaller quick run (2 matches at most, 2-step gyms): its config change is what the identity shows.
  const exp = new ExperimentsPage(page);
  await exp.editConfig((c) => {
    (c.stopping as Record<string, number>).nMax = 2;
    (c.stopping as Record<string, number>).nMin = 2;
    (c.arena as Record<string, number>).episodesPerScenario = 2;
    const b = c.bootstrap as Record<string, Record<string, number>>;
    b.daWarmup!.steps = 2;
    b.caPressure!.steps = 2;
    const g = c.gym as Record<string, Record<string, number>>;
    g.da!.steps = 2;
    g.ca!.steps = 2;
  });
  await page.getByTestId('seed').fill(String(SEED));
  await exp.start();
  await expect(page.getByTestId('screen-dashboard')).toBeVisible();
  runId = ((await page.getByTestId('run-head').locator('h2').textContent()) ?? '').trim();
  expect(runId).toMatch(/^R\d+$/);

  // Play was loaded before the run had a checkpoint: its picker gains DA0 with the run's identity.
  await lab.go('play');
  const opponent = page.getByTestId('play-opponent');
  const da0 = opponent.locator('option', { hasText: new RegExp(`^DA\\d+ — ${runId} · seed ${SEED} · quick · `) });
  await expect(da0.first()).toBeAttached({ timeout: 90_000 });
  await expect(da0.first()).toContainText(' → 2 (+');
  await opponent.selectOption(await da0.first().getAttribute('value'));
  await expect(page.getByTestId('play-opponent-identity')).toContainText(`${runId} · seed ${SEED} · quick`);
  await expect(page.getByTestId('play-opponent-identity')).toContainText(/changed from quick: \S+ \d+ → 2/);
  await lab.screenshot('52-identity-02-play-picker-live');
});

test('a note written on the dashboard is stored in the lab and shown wherever the run is', async () => {
  test.setTimeout(150_000);
  await lab.go('runs');
  await expect(page.getByTestId('run-head')).toContainText(runId);
  await expect(page.getByTestId('run-head')).toContainText('finished', { timeout: 120_000 });
  const identity = page.getByTestId('dashboard-run-identity');
  await identity.getByTestId('run-note-edit').click();
  await identity.getByTestId('run-note-input').fill(NOTE);
  await identity.getByTestId('run-note-save').click();
  await expect(identity.getByTestId('run-note')).toHaveText(`· note: ${NOTE}`);
  const db = new Database(process.env.SPARRING_E2E_DB, { readonly: true });
  try {
    expect(db.prepare('SELECT note FROM runs WHERE id = ?').pluck().get(runId)).toBe(NOTE);
  } finally {
    db.close();
  }
  await lab.screenshot('52-identity-03-dashboard-note');

  await lab.go('evaluation');
  await page.getByRole('combobox', { name: 'Run' }).selectOption(runId);
  await expect(page.getByTestId('evaluation-run-identity')).toContainText(NOTE);
  // Table 4's change is from the run's own first DA, named.
  const first = (await page.getByTestId('evaluation-table').locator('thead th').nth(1).textContent())!.trim();
  expect(first).toMatch(/^DA\d+$/);
  await expect(page.getByTestId('heldout-panel')).toContainText(`change from ${first}`);
  await expect(page.getByTestId('heldout-panel')).toContainText(`run ${runId}'s first DA`);
  await lab.screenshot('52-identity-04-evaluation');
});

test("Compare checkpoints from an episode replays against that episode's CA", async () => {
  await lab.go('transcripts');
  const transcripts = new TranscriptsPage(page);
  await transcripts.filter('match', `${runId}-M1`);
  await transcripts.openFirst();
  await new DiffPage(page).openFromEpisode();
  const opponent = await page.getByTestId('diff-opponent').inputValue();
  expect(opponent).toMatch(/^CA\d+$/);
  expect(await page.getByTestId('diff-a').inputValue()).toMatch(/^DA\d+$/);
  expect(await page.getByTestId('diff-b').inputValue()).not.toBe('sft');
  await expect(page.getByTestId('diff-opponent-identity')).toContainText(`${opponent} is from ${runId} · seed ${SEED} · quick`);
  await expect(page.getByTestId('diff-opponent-identity')).toContainText(NOTE);
  await lab.screenshot('52-identity-05-compare-from-episode');
});
