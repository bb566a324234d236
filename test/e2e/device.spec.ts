/**
 * The device picker of the Experiments screen (issue 19): it writes the config's
 * `device.provider`, which the engine reads when the run starts, and reads it back from the editor.
 */
import { expect, test } from '@playwright/test';
import { LabPage } from './pages/lab-page';

test('the device picker sets and clears device.provider in the config editor', async ({ browser }) => {
  test.skip(!!LabPage.runsUnavailable(), 'runs are unavailable in this build, so the screen has no config editor');
  const lab = await LabPage.openNew(browser);
  const page = lab.page;
  const picker = page.getByTestId('device-picker');
  const editor = page.getByTestId('config-editor');
  await expect(editor).toBeVisible();
  await expect(picker).toHaveValue('');
  await picker.selectOption('webgpu');
  expect((JSON.parse(await editor.inputValue()) as { device?: unknown }).device).toEqual({ provider: 'webgpu' });
  // Typing in the editor moves the picker.
  const cfg = JSON.parse(await editor.inputValue()) as { device: { provider: string } };
  cfg.device.provider = 'auto';
  await editor.fill(JSON.stringify(cfg, null, 2));
  await expect(picker).toHaveValue('auto');
  await picker.selectOption('');
  expect((JSON.parse(await editor.inputValue()) as { device?: unknown }).device).toBeUndefined();
  await page.close();
});

test('the schedule picker puts IB-RL and its opponent pool into the config, and RL-ADA takes it out', async ({ browser }) => {
  test.skip(!!LabPage.runsUnavailable(), 'runs are unavailable in this build, so the screen has no config editor');
  const lab = await LabPage.openNew(browser);
  const page = lab.page;
  const picker = page.getByTestId('schedule-picker');
  const editor = page.getByTestId('config-editor');
  await expect(editor).toBeVisible();
  await expect(picker).toHaveValue('rl-ada');
  await picker.selectOption('ib-rl');
  expect((JSON.parse(await editor.inputValue()) as { schedule?: unknown }).schedule).toEqual({ kind: 'ib-rl', pool: { pBoth: 0.7, pDa: 0.2, pCa: 0.1 } });
  await page.getByTestId('pool-pBoth').fill('0.4');
  await page.getByTestId('pool-pDa').fill('0.3');
  await page.getByTestId('pool-pCa').fill('0.3');
  expect((JSON.parse(await editor.inputValue()) as { schedule?: { pool?: unknown } }).schedule?.pool).toEqual({ pBoth: 0.4, pDa: 0.3, pCa: 0.3 });
  await picker.selectOption('rl-ada');
  expect((JSON.parse(await editor.inputValue()) as { schedule?: unknown }).schedule).toBeUndefined();
  await page.close();
});
