/** The Arena: play a match and watch it stream. */
import { expect } from '@playwright/test';
import type { Locator, Page } from '@playwright/test';

export class ArenaPage {
  constructor(readonly page: Page) {}

  get progress(): Locator {
    return this.page.getByTestId('progress');
  }

  matchRow(id: string): Locator {
    return this.page.getByTestId(`match-row-${id}`);
  }

  /** Fill the form and press Play; resolves once the click went through. */
  async play(o: {
    episodesPerScenario: number;
    seed?: number;
    scenarios?: 'arena' | 'heldout' | 'fraud' | 'all' | 'robustness';
    da?: string;
    ca?: string;
    /** Play as that run's own matches do ("As in run"). */
    run?: string;
  }): Promise<void> {
    if (o.da) await this.page.getByTestId('play-da').selectOption(o.da);
    if (o.ca) await this.page.getByTestId('play-ca').selectOption(o.ca);
    if (o.run) await this.page.getByTestId('play-run').selectOption(o.run);
    await this.page.getByTestId('play-episodes').fill(String(o.episodesPerScenario));
    if (o.seed !== undefined) await this.page.getByTestId('play-seed').fill(String(o.seed));
    if (o.scenarios) await this.page.getByTestId('play-scenarios').selectOption(o.scenarios);
    await this.page.getByTestId('play-match').click();
  }

  async waitForMatch(id: string, timeout = 60_000): Promise<void> {
    await expect(this.matchRow(id)).toBeVisible({ timeout });
    await expect(this.page.getByTestId('play-match')).toHaveText('Play match');
  }

  /** The W_DA cell of a match row, e.g. "35.4%". */
  async wDa(id: string): Promise<string> {
    return (await this.matchRow(id).locator('td').nth(6).textContent()) ?? '';
  }
}
