/** The Annotate and Judge audit screens: annotators, queues, labelling with hotkeys, the figures shown. */
import { readFile } from 'node:fs/promises';
import { expect } from '@playwright/test';
import type { Locator, Page } from '@playwright/test';

export class LabelSetupPage {
  constructor(readonly page: Page) {}

  async addAnnotator(name: string): Promise<void> {
    await this.page.getByTestId('annotator-name').fill(name);
    await this.page.getByTestId('annotator-add').click();
    await expect(this.page.getByTestId('annotator-select')).toHaveValue(name);
  }

  async chooseAnnotator(name: string): Promise<void> {
    await this.page.getByTestId('annotator-select').selectOption(name);
  }

  async createQueue(perMatch: number, seed = 1): Promise<void> {
    const before = await this.page.getByTestId('queue-select').inputValue();
    await this.page.getByTestId('queue-per-match').fill(String(perMatch));
    await this.page.getByTestId('queue-seed').fill(String(seed));
    await this.page.getByTestId('queue-create').click();
    await expect(this.page.getByTestId('queue-select')).not.toHaveValue(before);
  }

  /** The queue's labels as exported from the app. */
  async export(format: 'json' | 'csv'): Promise<{ filename: string; content: string }> {
    const [download] = await Promise.all([this.page.waitForEvent('download'), this.page.getByTestId(`export-labels-${format}`).click()]);
    return { filename: download.suggestedFilename(), content: await readFile(await download.path(), 'utf8') };
  }

  get position(): Locator {
    return this.page.getByTestId('item-position');
  }

  get reveal(): Locator {
    return this.page.getByTestId('reveal');
  }

  /** "Item 3 of 10 · …" → 3. */
  async itemNumber(): Promise<number> {
    const m = /(?:Item|Episode) (\d+) of/.exec((await this.position.textContent()) ?? '');
    return m ? Number(m[1]) : Number.NaN;
  }
}

export class AnnotatePage extends LabelSetupPage {
  get utterance(): Locator {
    return this.page.getByTestId('utterance');
  }

  /** Press hotkey `key` (1–9) on the opening shown and wait for the next one (or the end of the queue). */
  async labelWithHotkey(key: number): Promise<{ pos: number; text: string }> {
    await expect(this.utterance).toBeVisible();
    const pos = Number(await this.utterance.getAttribute('data-pos'));
    const text = (await this.utterance.textContent()) ?? '';
    await this.page.keyboard.press(String(key));
    await expect(this.page.locator(`[data-testid="utterance"][data-pos="${pos}"]`)).toHaveCount(0);
    return { pos, text };
  }

  /** The Cohen's κ row of a pair, as shown (three decimals). */
  async cohenKappa(a: string, b: string): Promise<string> {
    const row = this.page.locator(`[data-testid="cohen-kappa"][data-a="${a}"][data-b="${b}"]`);
    await expect(row).toBeVisible();
    return ((await row.locator('td').nth(1).textContent()) ?? '').trim();
  }
}

export class AuditPage extends LabelSetupPage {
  /** Give a verdict with the keyboard (Y/N, 1–4, H, Enter); resolves with what the judge said, once revealed. */
  async audit(v: { resolved: boolean; tier: 1 | 2 | 3 | 4; hallucination: boolean }): Promise<{ resolved: boolean; tier: number; hallucination: boolean }> {
    const n = await this.itemNumber();
    await this.page.keyboard.press(v.resolved ? 'y' : 'n');
    await this.page.keyboard.press(String(v.tier));
    // The first H answers "no", the next one switches to "yes".
    await this.page.keyboard.press('h');
    if (v.hallucination) await this.page.keyboard.press('h');
    await expect(this.page.getByTestId(`audit-halluc-${v.hallucination}`)).toHaveAttribute('aria-pressed', 'true');
    await this.page.keyboard.press('Enter');
    const reveal = this.page.locator(`[data-testid="reveal"][data-pos="${n - 1}"]`);
    await expect(reveal).toContainText('the judge said');
    const m = /resolved (yes|no), tier (\d), hallucination (yes|no)/.exec((await reveal.textContent()) ?? '')!;
    return { resolved: m[1] === 'yes', tier: Number(m[2]), hallucination: m[3] === 'yes' };
  }
}
