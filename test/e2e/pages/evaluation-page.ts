/** The Evaluation screen's cross-play heat map (DA × CA checkpoints per scenario). */
import { expect } from '@playwright/test';
import type { Locator, Page } from '@playwright/test';

export class EvaluationPage {
  constructor(readonly page: Page) {}

  heatmap(): Locator {
    return this.page.getByTestId('crossplay-heatmap');
  }

  /** Play the cross-play with N episodes per scenario and wait for the heat map. */
  async playCrossPlay(episodesPerScenario: number, timeout = 180_000): Promise<void> {
    await this.page.getByTestId('crossplay-episodes').selectOption(String(episodesPerScenario));
    await this.page.getByTestId('crossplay-play').click();
    await expect(this.heatmap().locator('svg [data-panel="W_DA"]')).toBeVisible({ timeout });
  }
}
