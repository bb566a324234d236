/** Experiments: presets, the config editor and the start button. */
import type { Page } from '@playwright/test';

export class ExperimentsPage {
  constructor(readonly page: Page) {}

  async choosePreset(name: string): Promise<void> {
    await this.page.getByRole('radio', { name: new RegExp(`^${name}\\b`) }).click();
  }

  async editConfig(f: (config: Record<string, unknown>) => void): Promise<void> {
    const editor = this.page.getByTestId('config-editor');
    const config = JSON.parse(await editor.inputValue()) as Record<string, unknown>;
    f(config);
    await editor.fill(JSON.stringify(config, null, 2));
  }

  async start(): Promise<void> {
    await this.page.getByTestId('start-run').click();
  }
}
