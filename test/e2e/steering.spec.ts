/**
 * EAU's knob console (issue 17) against the real engine: during a running quick run a person
 * writes a knob out of range and sees the refusal with its rule, writes it in range and sees the
 * write in the audit log once the live run has taken it, and reverts it; then stops the run.
 *
 * The run is made long enough whatever the machine's speed: n_min = n_max = 50 (the run config's
 * largest n_max), so it plays 50 matches, and the spec stops it once the revert is applied. Every
 * wait is for a state (status, the write's status in the log), none for a time.
 *
 * Named to run after lab.spec.ts, which expects an Arena with no matches yet: this spec's run
 * stores real arena matches in the shared lab. It leaves the lab with that run stopped.
 */
import { expect, test } from '@playwright/test';
import type { Page } from '@playwright/test';
import { DashboardPage } from './pages/dashboard-page';
import { ExperimentsPage } from './pages/experiments-page';
import { LabPage } from './pages/lab-page';

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

test('a person steers a running quick run: refusal out of range, accepted write in the log, revert', async () => {
  const unavailable = LabPage.runsUnavailable();
  test.skip(unavailable !== null, `needs the co-evolution runner: ${unavailable}`);
  test.setTimeout(420_000);
  await lab.go('experiments');
  const exp = new ExperimentsPage(page);
  await exp.choosePreset('quick');
  // Fifty matches whatever the stopping rule says (n_max's upper bound): the run is still live
  // when the person writes, waits and reverts, on any machine; the spec stops it at the end.
  await exp.editConfig((c) => {
    const s = c.stopping as Record<string, number>;
    s.nMin = 50;
    s.nMax = 50;
  });
  await exp.start();
  const dash = new DashboardPage(page);
  // Starting spawns the runner (a worker thread loading onnxruntime): slow on a busy machine.
  await expect(page.getByTestId('screen-dashboard')).toBeVisible({ timeout: 120_000 });
  const runId = ((await dash.head.locator('h2').textContent()) ?? '').trim();
  expect(runId).toMatch(/^R\d+$/);
  await dash.waitForStatus('running', 120_000);
  await expect(page.getByTestId('knob-console')).toContainText(`run ${runId}`);

  // Out of range: refused, the rule named.
  await page.getByTestId('knob-select').selectOption('arena.maxDaTurns');
  await expect(page.getByTestId('knob-rule')).toContainText('range [1, 50]');
  await page.getByTestId('knob-value').fill('99');
  await page.getByTestId('knob-reason').fill('far too many');
  await page.getByTestId('knob-write').click();
  await expect(page.getByTestId('knob-refusal')).toContainText('Refused (range)');
  await expect(page.getByTestId('knob-refusal')).toContainText('[1, 50]');
  await lab.screenshot('31-knobs-refusal');

  // In range (an easing write: no gate): queued, then applied by the live run at its next boundary.
  await page.getByTestId('knob-value').fill('16');
  await page.getByTestId('knob-reason').fill('more room to verify');
  await page.getByTestId('knob-write').click();
  await expect(page.getByTestId('knob-accepted')).toContainText('arena.maxDaTurns 12 → 16');
  const id = /^W(\d+) queued/.exec((await page.getByTestId('knob-accepted').textContent()) ?? '')?.[1];
  expect(id).toBeDefined();
  const log = page.getByTestId('knob-log');
  const first = log.getByTestId(`knob-write-${id}`);
  await expect(first).toContainText('arena.maxDaTurns');
  await expect(first).toContainText('more room to verify');
  // Taken at the run's next phase boundary (a phase starting): the log says where.
  await expect(first).toContainText('applied', { timeout: 180_000 });
  await expect(first).toContainText(/(bootstrap|match|gym), after match \d+/);
  await expect(page.getByTestId('knob-current')).toHaveText('16');
  await lab.screenshot('32-knobs-applied');

  // Revert: a linked write back to 12, applied the same way.
  await page.getByTestId(`knob-revert-${id}`).click();
  const revert = log.locator('tr[data-testid^="knob-write-"]').filter({ hasText: `↺W${id}` });
  await expect(revert).toHaveCount(1);
  await expect(revert).toContainText('16 → 12');
  await expect(revert).toContainText('applied', { timeout: 180_000 });
  await expect(first).toContainText(/reverted/);
  await expect(page.getByTestId('knob-current')).toHaveText('12');
  await lab.screenshot('33-knobs-reverted');

  // Leave the shared lab quiet for the specs after this one: the run, far from its 50 matches,
  // is still live; stopped, it ends at once (a stop aborts the phase in progress).
  await dash.waitForStatus('running');
  await page.getByTestId('run-stop').click();
  await page.getByTestId('run-stop-confirm').click();
  await dash.waitForStatus('stopped', 120_000);
  await expect(page.getByTestId('knob-write')).toBeDisabled();
});
