/** The run dashboard: run controls, live charts, the stopping rule's verdict. */
import { expect } from '@playwright/test';
import type { Download, Locator, Page } from '@playwright/test';

export class DashboardPage {
  constructor(readonly page: Page) {}

  get head(): Locator {
    return this.page.getByTestId('run-head');
  }

  /** Points (matches) drawn on the win-rate chart. */
  matchPoints(): Locator {
    return this.page.getByTestId('win-rate-chart').locator('[data-match]');
  }

  async status(): Promise<string> {
    return (await this.head.locator('.run-title .badge').textContent()) ?? '';
  }

  /** Wait for the run's status; a run that fails meanwhile ends the wait at once, with its error. */
  async waitForStatus(status: string, timeout = 60_000): Promise<void> {
    const badge = this.head.locator('.run-title .badge');
    await expect(badge).toHaveText(status === 'failed' ? status : new RegExp(`^(${status}|failed)$`), { timeout });
    if (status !== 'failed' && (await badge.textContent()) === 'failed') {
      const why = await this.head.locator('.inline-error').allTextContents();
      throw new Error(`waiting for the run to be ${status}, it failed: ${why.join(' | ') || '(no error shown)'}`);
    }
  }

  async pause(): Promise<void> {
    await this.page.getByTestId('run-pause').click();
  }

  async resume(): Promise<void> {
    await this.page.getByTestId('run-resume').click();
  }

  /** Download one chart (by its file stem prefix) as SVG or PNG. */
  async downloadChart(filePrefix: string, kind: 'SVG' | 'PNG'): Promise<Download> {
    const frame = this.page.locator(`[data-chart^="${filePrefix}"]`).first();
    const [download] = await Promise.all([this.page.waitForEvent('download'), frame.getByRole('button', { name: kind, exact: true }).click()]);
    return download;
  }
}
