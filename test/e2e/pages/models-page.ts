/** The Models screen: save an endpoint, test it, read its round trip. */
import { expect } from '@playwright/test';
import type { Locator, Page } from '@playwright/test';

export class ModelsPage {
  constructor(readonly page: Page) {}

  row(name: string): Locator {
    return this.page.getByTestId(`model-row-${name}`);
  }

  check(name: string): Locator {
    return this.page.getByTestId(`model-check-${name}`);
  }

  async add(o: { name: string; baseUrl: string; model: string; apiKeyEnv?: string; toolCalls?: 'native' | 'text'; maxConcurrency?: number }): Promise<void> {
    await this.page.getByTestId('model-name').fill(o.name);
    await this.page.getByTestId('model-base-url').fill(o.baseUrl);
    await this.page.getByTestId('model-model').fill(o.model);
    await this.page.getByTestId('model-api-key-env').fill(o.apiKeyEnv ?? '');
    if (o.toolCalls) await this.page.getByTestId('model-tool-calls').selectOption(o.toolCalls);
    if (o.maxConcurrency !== undefined) await this.page.getByTestId('model-max-concurrency').fill(String(o.maxConcurrency));
    await this.page.getByTestId('model-add').click();
  }

  /** Fill the GGUF form (the file's path where the engine runs) and save. */
  async addGguf(o: { name: string; file: string; gpu?: string; contextSize?: number; threads?: number; sequences?: number }): Promise<void> {
    await this.page.getByTestId('gguf-name').fill(o.name);
    await this.page.getByTestId('gguf-file').fill(o.file);
    if (o.gpu) await this.page.getByTestId('gguf-gpu').selectOption(o.gpu);
    if (o.contextSize !== undefined) await this.page.getByTestId('gguf-context').fill(String(o.contextSize));
    if (o.threads !== undefined) await this.page.getByTestId('gguf-threads').fill(String(o.threads));
    if (o.sequences !== undefined) await this.page.getByTestId('gguf-sequences').fill(String(o.sequences));
    await this.page.getByTestId('gguf-add').click();
  }

  /** Press Test and wait for the round trip (or its error) to show. */
  async test(name: string): Promise<Locator> {
    await this.page.getByTestId(`model-test-${name}`).click();
    await expect(this.check(name)).toBeVisible({ timeout: 60_000 });
    return this.check(name);
  }
}
