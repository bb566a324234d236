/**
 * A gym handed to an external trainer, seen from the dashboard (issue 15): in a lab of its own
 * (its own `sparring serve`), a quick run whose DA gym is trained outside (config editor:
 * gym.da.trainer "external", one DA gym by a fixed budget) is started from the Experiments
 * screen and waits for the trainer, showing the gym job and the exact commands to run. The spec
 * then plays the trainer from outside, as a person would in another terminal: it trains the
 * exported gym with scripts/builtin-trainer.ts (the stand-in trainer for the builtin policies)
 * and registers the result with the `checkpoints add` command the dashboard shows, run through
 * bin/sparring.js against the same lab; the dashboard shows the run going on with DA1 and
 * finishing. Screenshots: test-results/screenshots/trainer-*.png.
 */
import type { ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, test } from '@playwright/test';
import type { Page } from '@playwright/test';
import { DashboardPage } from './pages/dashboard-page';
import { ExperimentsPage } from './pages/experiments-page';
import { LabPage } from './pages/lab-page';
import { runNode } from './support/run-node';
import { closeOwnLab, ROOT, startServer } from './support/servers';

test.describe.configure({ mode: 'serial' });

const BIN = path.join(ROOT, 'bin', 'sparring.js');
let dir = '';
let db = '';
let server: { url: string; child: ChildProcess } | null = null;
let page: Page;
let lab: LabPage;
let dash: DashboardPage;
/** The commands the dashboard showed for the waiting gym job. */
let commands: string[] = [];

test.beforeAll(async ({ browser }) => {
  test.skip(LabPage.runsUnavailable() !== null, `needs the co-evolution runner: ${LabPage.runsUnavailable()}`);
  dir = mkdtempSync(path.join(os.tmpdir(), 'sparring-e2e-trainer-'));
  db = path.join(dir, 'lab.db');
  server = await startServer('serve-trainer', [BIN, 'serve', '--db', db, '--port', '0', '--json']);
  lab = await LabPage.openNew(browser, server.url);
  page = lab.page;
  dash = new DashboardPage(page);
});

test.afterAll(() => closeOwnLab({ page, server, dir }));

test('a quick run with an external DA trainer waits for it, showing the gym job and the exact commands', async () => {
  test.setTimeout(420_000);
  await lab.go('experiments');
  const exp = new ExperimentsPage(page);
  await exp.choosePreset('quick');
  await exp.editConfig((c) => {
    const gym = c.gym as { da: Record<string, unknown> };
    gym.da.trainer = 'external';
    // Exactly one DA gym, after match 1, whatever the stopping rule says; then match 2 and the evaluation.
    c.schedule = { daGyms: 1 };
    c.eval = { runs: 1, episodesPerScenario: 1, gateEpisodesPerScenario: 1 };
  });
  await exp.start();
  await expect(page.getByTestId('screen-dashboard')).toBeVisible({ timeout: 120_000 });
  await expect(dash.head.locator('h2')).toHaveText('R1');

  // Bootstrap and match 1, then the DA gym is exported and the run waits (still "running").
  const waiting = page.getByTestId('waiting-trainer');
  await expect(waiting).toBeVisible({ timeout: 360_000 });
  await expect(dash.head).toContainText('phase waiting-for-trainer');
  await dash.waitForStatus('running');
  const folder = path.join(dir, 'gym-jobs', 'R1-gym1');
  await expect(waiting).toContainText('Waiting for an external trainer: gym DA1');
  await expect(waiting).toContainText(`(DA0 against frozen CA0, job J1), export at ${folder}`);
  await expect(waiting).toContainText('npx sparring gym cancel J1');
  const shown = page.getByTestId('waiting-trainer-commands');
  await expect(shown).toHaveText(
    [
      `npx sparring env serve --role DA --opponent CA0 --run R1 --db ${db}`,
      `SPARRING_ENV_URL=URL python trainers/train_da.py --data ${path.join(folder, 'gym.jsonl')} --out ${path.join(folder, 'da-trained')}   # URL: the one env serve printed`,
      `npx sparring checkpoints add --role DA --model MODEL.onnx --parent DA0 --run R1 --gym 1 --db ${db}`,
    ].join('\n'),
  );
  commands = ((await shown.textContent()) ?? '').split('\n');
  const job = page.getByTestId('gym-jobs-table').locator('tr[data-job="J1"]');
  await expect(job.locator('td')).toHaveText(['J1', 'DA1', 'DA0', 'CA0', 'waiting', '–', folder]);
  // The export is where the dashboard says.
  expect(existsSync(path.join(folder, 'gym.jsonl'))).toBe(true);
  expect(existsSync(path.join(folder, 'job.json'))).toBe(true);
  await expect(dash.matchPoints()).toHaveCount(1);
  await expect(page.getByTestId('stop-verdict')).toContainText('continue after match 1: DA gym 1 of a fixed budget of 1');
  await lab.screenshot('trainer-01-waiting');
});

test('a checkpoint registered from outside with the shown command: the run goes on with it and finishes', async () => {
  test.setTimeout(420_000);
  // The trainer: the builtin GRPO gym on the exported decision points, written as an .onnx.
  const folder = path.join(dir, 'gym-jobs', 'R1-gym1');
  const model = path.join(dir, 'da-trained.onnx');
  const trained = await runNode(['--import', 'tsx', path.join(ROOT, 'scripts', 'builtin-trainer.ts'), '--job', folder, '--db', db, '--out', model]);
  console.log(`[trainer] ${trained.stderr.trim().split('\n').at(-2)}`);
  // Still waiting: nothing reached the lab yet.
  await expect(page.getByTestId('waiting-trainer')).toBeVisible();

  // The dashboard's third command, as shown, with the model filled in; `npx sparring` is bin/sparring.js.
  const add = commands.at(-1)!;
  expect(add.startsWith('npx sparring checkpoints add ')).toBe(true);
  const args = add.replace('MODEL.onnx', model).split(' ').slice(2);
  const registered = await runNode([BIN, ...args]);
  console.log(`[trainer] checkpoints add: ${registered.stdout.trim() || registered.stderr.trim()}`);

  // The waiting run reads the job from the lab at its next poll and goes on with DA1.
  await expect(page.getByTestId('waiting-trainer')).toHaveCount(0, { timeout: 60_000 });
  const job = page.getByTestId('gym-jobs-table').locator('tr[data-job="J1"]');
  await expect(job.locator('td').nth(4)).toHaveText('done');
  await expect(job.locator('td').nth(5)).toHaveText('DA1');
  await expect(page.getByTestId('gym-notes').locator('li[data-gym="DA1"]')).toContainText('gym after match 1): trained by an external trainer (gym job J1)');
  await lab.screenshot('trainer-02-continuing');

  await dash.waitForStatus('finished', 360_000);
  await expect(dash.head).toContainText('phase done');
  await expect(dash.matchPoints()).toHaveCount(2);
  await expect(page.getByTestId('stop-verdict')).toContainText('stop at match 2: the DA gym budget (1) is spent');
  await lab.screenshot('trainer-03-finished');

  // The evaluation covers the registered checkpoint beside DA0.
  await lab.go('evaluation');
  const heads = page.getByTestId('evaluation-table').locator('thead th');
  await expect(heads.nth(1)).toHaveText('DA0');
  await expect(heads.nth(2)).toHaveText('DA1');
});
