/** The Export screen: download episodes and read the file back. */
import { readFile } from 'node:fs/promises';
import { expect } from '@playwright/test';
import type { Page } from '@playwright/test';

export class ExportPage {
  constructor(readonly page: Page) {}

  async download(format: 'jsonl' | 'csv', matchId?: string): Promise<{ filename: string; content: string }> {
    if (matchId) await this.page.getByTestId('export-match').selectOption(matchId);
    await this.page.getByTestId(`format-${format}`).check();
    const [download] = await Promise.all([this.page.waitForEvent('download'), this.page.getByTestId('export-download').click()]);
    const file = await download.path();
    await expect(this.page.getByTestId('export-done')).toBeVisible();
    return { filename: download.suggestedFilename(), content: await readFile(file, 'utf8') };
  }
}
