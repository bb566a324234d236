/** Studies: the new-study form, the study's progress and runs, the arm comparison and the run overlay. */
import { expect } from '@playwright/test';
import type { Locator, Page } from '@playwright/test';

export class StudiesPage {
  constructor(readonly page: Page) {}

  /**
   * Fill the new-study form and start. `estimate`: the arena-only estimate to play once the runs
   * finish (none when absent). `arenaOnly`: a study for choosing settings (held-out figures left
   * out of its views). `refused`: the engine is expected to refuse it (no study opens).
   */
  async start(
    opts: {
      preset: string;
      seeds: number;
      arms: string[];
      estimate?: 'train' | 'validation';
      arenaOnly?: boolean;
      /** Custom arms: a name and a run-config overlay (JSON). */
      custom?: { name: string; overlay: string }[];
    },
    outcome = { refused: false },
  ): Promise<void> {
    await this.page.getByTestId('study-preset').selectOption(opts.preset);
    await this.page.getByTestId('study-seeds').fill(String(opts.seeds));
    await this.page.getByTestId('study-estimate-after').selectOption(opts.estimate ?? '');
    await this.page.getByTestId('study-arena-only-new').setChecked(opts.arenaOnly === true);
    const picker = this.page.getByTestId('study-arms');
    await expect(picker.getByRole('checkbox')).not.toHaveCount(0);
    for (const box of await picker.getByRole('checkbox').all()) {
      const name = (await box.locator('xpath=..').locator('b').innerText()).trim();
      if (opts.arms.includes(name) !== (await box.isChecked())) await box.click();
    }
    for (const [i, c] of (opts.custom ?? []).entries()) {
      await this.page.getByTestId('add-custom-arm').click();
      await this.page.getByTestId(`custom-arm-name-${i}`).fill(c.name);
      await this.page.getByTestId(`custom-arm-overlay-${i}`).fill(c.overlay);
    }
    await this.page.getByTestId('start-study').click();
    if (outcome.refused) await expect(this.page.getByTestId('study-start-error')).toBeVisible();
    else await expect(this.page.getByTestId('study-view')).toBeVisible();
  }

  get progress(): Locator {
    return this.page.getByTestId('study-progress');
  }

  get runs(): Locator {
    return this.page.getByTestId('study-runs');
  }

  /** Wait until every (arm, seed) of the study shows finished. */
  async waitFinished(count: number, timeout: number): Promise<void> {
    await expect(this.runs.locator('tbody tr').filter({ hasText: 'finished' })).toHaveCount(count, { timeout });
  }

  /** Run ids of the study, in the table's order. */
  async runIds(): Promise<string[]> {
    return this.runs.locator('tbody tr td:nth-child(3)').allInnerTexts();
  }

  series(chart: string): Locator {
    return this.page.getByTestId(chart).locator('g[data-series]');
  }
}
