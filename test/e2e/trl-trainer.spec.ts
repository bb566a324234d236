/**
 * A gym trained by the real TRL, started from the Experiments screen (issue 50, "Done when"): in a
 * lab of its own (its own `sparring serve`), a quick run whose DA gym is the managed TRL trainer
 * (config editor: gym.da.trainer `{"kind": "trl", "python": .venv's, "model": a tiny Qwen2}`, one
 * DA gym by a fixed budget, its CA gyms left builtin) is started from the screen and left alone.
 * The run hands the gym to TRL 1.13 GRPO (trainers/train_da.py: 2 steps of K 2), streams its log
 * into the gym curves, registers the merged model's GGUF as DA1 and plays match 2 with it, and
 * finishes. The dashboard shows the job trained by TRL (not waiting for a person), the DA's TRL
 * curves (reward, KL, loss of gym DA1), DA1 as an LLM that played, and the run finished.
 *
 * The tiny model is made in beforeAll as host/coevolution/managed-trl.test.ts makes it
 * (trainers/tiny_qwen2.py: random weights, a tokenizer trained here; nothing downloaded). A
 * missing .venv fails the spec (venvPython); a lab without the co-evolution runner skips it, as
 * the external-trainer spec does. Screenshots: test-results/screenshots/trl-*.png.
 */
import { execFile } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { expect, test } from '@playwright/test';
import type { Page } from '@playwright/test';
import { venvPython } from '../support/python-env';
import { DashboardPage } from './pages/dashboard-page';
import { ExperimentsPage } from './pages/experiments-page';
import { LabPage } from './pages/lab-page';
import { closeOwnLab, ROOT, startServer } from './support/servers';

test.describe.configure({ mode: 'serial' });

const BIN = path.join(ROOT, 'bin', 'sparring.js');
/** The tiny model's shape, as the managed-TRL vitest test makes it: a GRPO step takes seconds on 2 cores. */
const TINY_QWEN2 = ['--vocab', '1024', '--hidden', '32', '--layers', '1'];
let dir = '';
let db = '';
let model = '';
let python = '';
let server: { url: string; child: ChildProcess } | null = null;
let page: Page;
let lab: LabPage;
let dash: DashboardPage;
let ggufThreads: string | undefined;

test.beforeAll(async ({ browser }) => {
  test.skip(LabPage.runsUnavailable() !== null, `needs the co-evolution runner: ${LabPage.runsUnavailable()}`);
  test.setTimeout(300_000);
  // Not skipped without .venv: venvPython throws, naming the command that makes it.
  python = venvPython();
  dir = mkdtempSync(path.join(os.tmpdir(), 'sparring-e2e-trl-'));
  db = path.join(dir, 'lab.db');
  model = path.join(dir, 'tiny-qwen2');
  const t0 = Date.now();
  await promisify(execFile)(python, [path.join(ROOT, 'trainers', 'tiny_qwen2.py'), model, ...TINY_QWEN2], { timeout: 240_000 });
  console.log(`[trl] tiny Qwen2 made in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  // One llama.cpp thread for the GGUF (the server's run inherits it): on 2 shared cores its spinning threads cost more than they gain.
  ggufThreads = process.env.SPARRING_GGUF_THREADS;
  process.env.SPARRING_GGUF_THREADS = '1';
  try {
    server = await startServer('serve-trl', [BIN, 'serve', '--db', db, '--port', '0', '--json']);
  } finally {
    // Only this spec's server: the specs after it in the same worker start theirs as they would.
    if (ggufThreads === undefined) delete process.env.SPARRING_GGUF_THREADS;
    else process.env.SPARRING_GGUF_THREADS = ggufThreads;
  }
  lab = await LabPage.openNew(browser, server.url);
  page = lab.page;
  dash = new DashboardPage(page);
});

test.afterAll(() => closeOwnLab({ page, server, dir }));

test('a quick run whose DA gym is the managed TRL trainer runs unattended: the job trained by TRL, its curves, DA1 playing, the run finished', async () => {
  test.setTimeout(600_000);
  const t0 = Date.now();
  await lab.go('experiments');
  const exp = new ExperimentsPage(page);
  await exp.choosePreset('quick');
  await exp.editConfig((c) => {
    const gym = c.gym as { da: Record<string, unknown> };
    // The DA's gym: TRL GRPO with LoRA on the tiny model, 2 steps (a curve, not a dot) of K 2 on 1 prompt (the gym's budget, read from job.json).
    Object.assign(gym.da, { steps: 2, K: 2, promptsPerStep: 1 });
    gym.da.trainer = { kind: 'trl', python, model, grpo: { maxCompletionLength: 32, vllm: 'off' }, lora: { r: 4 } };
    // Small matches and a short bootstrap: this spec is about the gym, not the builtin policies.
    c.arena = { episodesPerScenario: 1, maxDaTurns: 2 };
    const bootstrap = c.bootstrap as Record<string, Record<string, unknown>>;
    bootstrap.sft!.epochs = 1;
    bootstrap.daWarmup!.steps = 1;
    bootstrap.caPressure!.steps = 1;
    // Exactly one DA gym, after match 1; then match 2 (DA1 as a GGUF against CA0) and the evaluation.
    c.schedule = { daGyms: 1 };
    c.eval = { runs: 1, episodesPerScenario: 1, gateEpisodesPerScenario: 1 };
  });
  await exp.start();
  await expect(page.getByTestId('screen-dashboard')).toBeVisible({ timeout: 120_000 });
  await expect(dash.head.locator('h2')).toHaveText('R1');

  // The gym is handed to TRL, which trains it with no one at the keyboard: no commands to run.
  const folder = path.join(dir, 'gym-jobs', 'R1-gym1');
  const training = page.getByTestId('managed-trainer');
  await expect(training).toBeVisible({ timeout: 300_000 });
  await expect(training).toContainText('Training with the managed TRL trainer: gym DA1');
  await expect(training).toContainText(`(DA0 against frozen CA0, job J1), log at ${path.join(folder, 'trainer.log')}`);
  await expect(page.getByTestId('waiting-trainer')).toHaveCount(0);
  await expect(page.getByTestId('gym-jobs-table').locator('tr[data-job="J1"] td').nth(4)).toHaveText('training (TRL)');
  await expect(dash.head).toContainText('phase gym (managed TRL trainer)');
  await lab.screenshot('trl-01-training');

  // TRL's steps reach the DA's gym curves as the segment of gym DA1: reward, KL and loss, each a line through both steps.
  for (const metric of ['gym/reward_mean', 'gym/kl', 'gym/loss']) {
    const curve = page.locator(`[data-panel="DA:${metric}"] g.segment[data-phase="gym:DA1"] path.smooth`);
    await expect(curve).toHaveAttribute('d', /^M[^L]+L[^L]+$/, { timeout: 300_000 });
  }
  await expect(page.locator('[data-panel="DA:gym/reward_mean"] [data-phase="gym:DA1"] .segment-label')).toHaveAttribute('data-label', 'gym 1 → DA1');
  // The 1-step warm-up is a segment of one point: a line with no length, drawn as a dot instead.
  const dots = await page.locator('[data-panel="DA:gym/reward_mean"] g.segment').evaluateAll((segs) =>
    segs.map((g) => ({
      single: !(g.querySelector('path.smooth')?.getAttribute('d') ?? '').includes('L'),
      // d3 shows it by removing the attribute (display null) and hides it with 'none'.
      dot: g.querySelector('circle.single') !== null && g.querySelector('circle.single')?.getAttribute('display') !== 'none',
    })),
  );
  expect(dots.filter((d) => d.single).length, JSON.stringify(dots)).toBeGreaterThan(0);
  expect(
    dots.every((d) => d.single === d.dot),
    JSON.stringify(dots),
  ).toBe(true);

  await dash.waitForStatus('finished', 300_000);
  console.log(`[trl] run R1 from start to finished on the dashboard: ${((Date.now() - t0) / 1000).toFixed(0)} s`);
  await expect(dash.head).toContainText('phase done');
  await expect(dash.matchPoints()).toHaveCount(2);
  const job = page.getByTestId('gym-jobs-table').locator('tr[data-job="J1"]');
  await expect(job.locator('td')).toHaveText(['J1', 'DA1', 'DA0', 'CA0', 'done', 'DA1', folder]);
  await expect(page.getByTestId('gym-notes').locator('li[data-gym="DA1"]')).toContainText('trained by the managed TRL trainer (gym job J1)');
  // DA1 is the GGUF the trainer wrote, and it played match 2 (LLM calls counted).
  const gguf = path.join(folder, 'da-trained.gguf');
  expect(existsSync(gguf)).toBe(true);
  const roles = page.getByTestId('run-llm-roles');
  await expect(roles).toContainText(`DA: DA1 = gguf:${gguf} (trained by the managed TRL trainer)`);
  await expect(roles).toContainText(/matches so far: [1-9]\d* calls/);
  await expect(page.getByTestId('managed-trainer')).toHaveCount(0);
  await lab.screenshot('trl-02-finished');
  // The trainer's own steps, as its log has them (seconds since TRL started training).
  const steps = readFileSync(path.join(folder, 'trainer.log'), 'utf8')
    .split('\n')
    .filter((l) => l.startsWith('{"event": "log"'))
    .map((l) => JSON.parse(l) as { step: number; elapsed_s: number });
  expect(steps.map((s) => s.step)).toEqual([1, 2]);
  console.log(
    `[trl] TRL GRPO steps at ${steps.map((s) => `${s.elapsed_s.toFixed(1)} s`).join(', ')} of training; whole test ${((Date.now() - t0) / 1000).toFixed(0)} s`,
  );
});
