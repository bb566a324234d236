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
