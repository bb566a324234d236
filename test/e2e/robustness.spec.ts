/**
 * MADS in the app on the real engine (`sparring serve`, temporary lab) in Chromium: the four
 * validators' verdicts in an episode's view, and the Evaluation screen's robustness panel from
 * its empty state through a run to its tables and chart, the scenario browser and its editor (a
 * custom scenario with an adversity: a bad field refused by name, then saved and played), and the
 * validator-failure filter of the transcript list. Screenshots go to test-results/screenshots/.
 */
import { expect, test } from '@playwright/test';
import type { Page } from '@playwright/test';
import { ArenaPage } from './pages/arena-page';
import { LabPage } from './pages/lab-page';
import { PlayPage } from './pages/play-page';
import { ScenarioEditorPage } from './pages/scenario-editor-page';
import { TranscriptsPage } from './pages/transcripts-page';

test.describe.configure({ mode: 'serial' });

let page: Page;
let lab: LabPage;

test.beforeAll(async ({ browser }) => {
  lab = await LabPage.openNew(browser);
  page = lab.page;
});

test.afterAll(async () => {
  await page.close();
});

test('an episode shows the four validators, a failure with its reason', async () => {
  await lab.go('arena');
  await new ArenaPage(page).play({ episodesPerScenario: 1, seed: 11, scenarios: 'all' });
  await expect(page.getByTestId('play-match')).toHaveText('Play match', { timeout: 60_000 });
  await lab.go('transcripts');
  const transcripts = new TranscriptsPage(page);
  await transcripts.openFirst();
  const table = page.getByTestId('validator-table');
  await expect(table.locator('tr')).toHaveCount(4);
  for (const v of ['syntax', 'faithfulness', 'role_confusion', 'task_success']) await expect(table.locator(`tr[data-validator="${v}"]`)).toBeVisible();
  // An episode the CA won did not reach its goal: task success fails there, with its reason.
  await transcripts.filter('winner', 'CA');
  const id = await transcripts.openFirst();
  await expect(page.getByTestId('validators')).toBeVisible();
  const failed = table.locator('tr[data-validator="task_success"][data-ok="false"]');
  await expect(failed, `task success of ${id}`).toBeVisible();
  await expect(failed.locator('td').nth(1)).toHaveText('fail');
  await expect(failed.locator('td').nth(3)).not.toBeEmpty();
  await lab.screenshot('robustness-01-validators');
});

test('the robustness panel runs eval/mads and shows L-1/L-2 by complexity and adversity', async () => {
  await lab.go('evaluation');
  const panel = page.getByTestId('robustness');
  await expect(panel.getByTestId('robustness-empty')).toBeVisible();
  await panel.getByLabel('Episodes per scenario').fill('1');
  await panel.getByTestId('robustness-run').click();
  await expect(panel.getByTestId('robustness-report')).toBeVisible({ timeout: 120_000 });
  const complexity = panel.getByTestId('robustness-complexity');
  await expect(complexity.locator('tr[data-group="all"]')).toBeVisible();
  await expect(complexity.locator('tbody tr')).not.toHaveCount(1);
  await expect(panel.getByTestId('robustness-adversity').locator('tbody tr').first()).toBeVisible();
  await expect(panel.locator('svg [data-bar]').first()).toBeVisible();
  await lab.screenshot('robustness-02-report');
});

test('the scenario browser lists each set read-only, robustness scenarios with persona, task and adversities', async () => {
  const browser = page.getByTestId('scenario-browser');
  const rows = browser.getByTestId('scenario-table').locator('tbody tr');
  await expect(rows.first()).toBeVisible();
  for (const c of ['normal', 'unhappy', 'impossible']) await expect(rows.locator('.badge', { hasText: new RegExp(`^${c}$`) }).first()).toBeVisible();
  await expect(rows.locator('li').first()).toBeVisible(); // an adversity
  await lab.screenshot('robustness-03-scenarios');
  await browser.getByTestId('scenario-set').selectOption('heldout');
  await expect(rows.first()).toHaveAttribute('data-scenario', /-h$/);
  await lab.screenshot('robustness-04-scenarios-heldout');
});

test('the scenario editor refuses a bad field by name, then stores a custom scenario with an adversity', async () => {
  const editor = new ScenarioEditorPage(page);
  await editor.openNew();
  await editor.fill('id', 'e2e-angry-dispute');
  await editor.fill('title', 'E2E angry dispute');
  await editor.pickIntent('card_payment_not_recognised');
  await editor.fill('description', 'A charge the customer does not know, and the backend fails.');
  await editor.fill('persona.name', 'Dana');
  await editor.fill('persona.style', 'curt and impatient');
  await editor.fill('persona.sampleMessages', 'Fix this now.\nI have no time for this.');
  await editor.fill('task.objective', 'Dispute the unknown charge');
  await editor.fill('task.successCriteria', 'a dispute is filed');
  const i = await editor.addAdversity('backend_failure');
  await editor.fill(`adversities[${i}].rate`, '1.5');
  await editor.save();
  await expect(editor.problem(`adversities[${i}].rate`)).toContainText('must be at most 1');
  await expect(editor.editor.getByTestId('scenario-problems').locator(`li[data-field="adversities[${i}].rate"]`)).toBeVisible();
  await lab.screenshot('robustness-05-editor-problem');
  await editor.fill(`adversities[${i}].rate`, '0.5');
  await editor.save();
  await expect(editor.editor).toBeHidden();
  const row = editor.row('e2e-angry-dispute');
  await expect(row).toHaveAttribute('data-custom', 'true');
  await expect(row).toContainText('backend failure (rate 0.5)');
  await expect(row).toContainText('Dana');
  await lab.screenshot('robustness-06-custom-scenario');
});

test('a robustness match plays the custom scenario; transcripts filter by validator failure', async () => {
  await lab.go('arena');
  await new ArenaPage(page).play({ episodesPerScenario: 1, seed: 12, scenarios: 'robustness' });
  await expect(page.getByTestId('play-match')).toHaveText('Play match', { timeout: 60_000 });
  await lab.go('transcripts');
  const transcripts = new TranscriptsPage(page);
  await expect(transcripts.rows().first()).toBeVisible();
  const all = await transcripts.total();
  await transcripts.filter('scenario', 'e2e-angry-dispute');
  await expect.poll(() => transcripts.total()).toBe(1);
  await transcripts.filter('scenario', '');
  await expect.poll(() => transcripts.total()).toBe(all);
  await transcripts.filter('validator', 'task_success');
  await expect.poll(() => transcripts.total()).toBeLessThan(all);
  const failing = await transcripts.total();
  expect(failing).toBeGreaterThan(0);
  await transcripts.openFirst();
  await expect(page.getByTestId('validator-table').locator('tr[data-validator="task_success"]')).toHaveAttribute('data-ok', 'false');
  await lab.screenshot('robustness-07-validator-filter');
  await transcripts.filter('validator', 'any');
  await expect.poll(() => transcripts.total()).toBeGreaterThanOrEqual(failing);
});

test('a person plays the custom scenario from the Play screen', async () => {
  await lab.go('play');
  const group = page.getByTestId('play-scenario').locator('optgroup[label="robustness"]');
  await expect(group.locator('option[value="e2e-angry-dispute"]')).toHaveCount(1);
  await new PlayPage(page).start({ player: 'E2E', seat: 'customer', opponent: 'scripted', scenario: 'e2e-angry-dispute', seed: 3 });
  await expect(page.getByTestId('play-brief')).toContainText('E2E angry dispute');
  await lab.screenshot('robustness-08-play-custom');
});

test('a custom scenario is edited (its adversity fires at a turn instead) and deleted', async () => {
  await lab.go('evaluation');
  const editor = new ScenarioEditorPage(page);
  await editor.browser.getByTestId('scenario-set').selectOption('robustness');
  await editor.row('e2e-angry-dispute').getByTestId('edit-e2e-angry-dispute').click();
  await expect(editor.editor).toContainText('Edit e2e-angry-dispute');
  await editor.fill('adversities[0].rate', '');
  await editor.fill('adversities[0].turn', '2');
  await editor.save();
  await expect(editor.editor).toBeHidden();
  await expect(editor.row('e2e-angry-dispute')).toContainText('backend failure (at DA step 2)');
  await editor.row('e2e-angry-dispute').getByTestId('delete-e2e-angry-dispute').click();
  await editor.row('e2e-angry-dispute').getByTestId('confirm-delete-e2e-angry-dispute').click();
  await expect(editor.row('e2e-angry-dispute')).toHaveCount(0);
});
