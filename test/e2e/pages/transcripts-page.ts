/** The transcript browser: filters, the virtual list, one episode's reward terms and judge. */
import { expect } from '@playwright/test';
import type { Locator, Page } from '@playwright/test';

const NUMBER = (s: string) => Number(s.replace('−', '-').replace('+', ''));

export class TranscriptsPage {
  constructor(readonly page: Page) {}

  rows(): Locator {
    return this.page.locator('[data-testid^="episode-row-"]');
  }

  async filter(name: 'match' | 'scenario' | 'winner' | 'resolved' | 'hallucination' | 'validator', value: string): Promise<void> {
    await this.page.getByTestId(`filter-${name}`).selectOption(value);
  }

  /**
   * The matching total the list shows, or NaN while a filter's count is loading (the label is
   * empty then): a poll such as `toBeLessThan(all)` must not pass on the empty label.
   */
  async total(): Promise<number> {
    const text = (await this.page.getByTestId('episode-total').textContent()) ?? '';
    const digits = text.replace(/[^\d]/g, '');
    return digits === '' ? Number.NaN : Number(digits);
  }

  /** Open the first listed episode and wait for its view; returns its id. */
  async openFirst(): Promise<string> {
    const row = this.rows().first();
    await expect(row).toBeVisible();
    const id = (await row.getAttribute('data-testid'))!.replace('episode-row-', '');
    await row.click();
    await expect(this.page.getByTestId('episode-view')).toHaveAttribute('data-episode', id);
    return id;
  }

  /** The open episode's reward terms: {DA: {term: value}, CA: {…}} and the r_DA / r_CA totals. */
  async rewardTerms(): Promise<{ da: Record<string, number>; ca: Record<string, number>; rDa: number; rCa: number }> {
    const read = async (table: Locator) => {
      const out: Record<string, number> = {};
      for (const row of await table.locator('tbody tr').all()) {
        out[(await row.getAttribute('data-term'))!] = NUMBER((await row.locator('td').nth(1).textContent()) ?? '');
      }
      return out;
    };
    const terms = this.page.getByTestId('reward-terms');
    return {
      da: await read(terms.getByTestId('da-terms')),
      ca: await read(terms.getByTestId('ca-terms')),
      rDa: NUMBER((await terms.getByTestId('da-terms-total').textContent()) ?? ''),
      rCa: NUMBER((await terms.getByTestId('ca-terms-total').textContent()) ?? ''),
    };
  }

  async winnerBadge(): Promise<string> {
    return (await this.page.getByTestId('episode-view').locator('.episode-title .badge').first().textContent()) ?? '';
  }
}

/** The checkpoint comparison beside the list: two policies replay one scenario and seed. */
export class DiffPage {
  constructor(readonly page: Page) {}

  /** From the open episode: prefill its scenario and seed. */
  async openFromEpisode(): Promise<void> {
    await this.page.getByTestId('compare-episode').click();
    await expect(this.page.getByTestId('diff-view')).toBeVisible();
  }

  async replay(a: string, b: string): Promise<void> {
    await this.page.getByTestId('diff-a').selectOption(a);
    await this.page.getByTestId('diff-b').selectOption(b);
    await this.page.getByTestId('diff-replay').click();
    await expect(this.page.getByTestId('diff-summary')).toContainText(`vs ${b}`, { timeout: 120_000 });
  }

  divergence(): Locator {
    return this.page.getByTestId('diff-divergence');
  }
}
