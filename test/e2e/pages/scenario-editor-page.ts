/** The scenario browser's editor (Evaluation screen): a custom scenario's fields, adversities, save. */
import { expect } from '@playwright/test';
import type { Locator, Page } from '@playwright/test';

export class ScenarioEditorPage {
  constructor(readonly page: Page) {}

  get browser(): Locator {
    return this.page.getByTestId('scenario-browser');
  }

  get editor(): Locator {
    return this.page.getByTestId('scenario-editor');
  }

  async openNew(): Promise<void> {
    await this.browser.getByTestId('scenario-new').click();
    await expect(this.editor).toBeVisible();
  }

  /** Type into the input of a field path (`id`, `persona.name`, `adversities[0].rate`). */
  async fill(field: string, value: string): Promise<void> {
    await this.editor.getByTestId(`field-${field}`).fill(value);
  }

  async select(field: string, value: string): Promise<void> {
    await this.editor.getByTestId(`field-${field}`).selectOption(value);
  }

  /** Tick an intent of the taxonomy in the intents picker. */
  async pickIntent(intent: string): Promise<void> {
    await this.editor.getByTestId('field-intents').locator(`input[data-intent="${intent}"]`).check();
  }

  /** Add an adversity of `kind`; returns its index. */
  async addAdversity(kind: string): Promise<number> {
    const i = await this.editor.locator('[data-testid^="adversity-"]').count();
    await this.editor.getByTestId('add-adversity').click();
    await this.select(`adversities[${i}].kind`, kind);
    return i;
  }

  /** The problem shown beside a field. */
  problem(field: string): Locator {
    return this.editor.getByTestId(`problem-${field}`);
  }

  async save(): Promise<void> {
    await this.editor.getByTestId('scenario-save').click();
  }

  row(id: string): Locator {
    return this.browser.locator(`tr[data-scenario="${id}"]`);
  }
}
