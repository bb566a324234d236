/** The Play screen: start or take over an episode, move in either seat, read the result. */
import { expect } from '@playwright/test';
import type { Locator, Page } from '@playwright/test';

export class PlayPage {
  constructor(readonly page: Page) {}

  get session(): Locator {
    return this.page.getByTestId('play-session');
  }
  get error(): Locator {
    return this.page.getByTestId('play-error');
  }
  turns(): Locator {
    return this.page.getByTestId('play-turns').locator('li.turn');
  }

  async start(o: { player: string; seat: 'customer' | 'agent'; opponent?: string; scenario?: string; seed?: number }): Promise<void> {
    await this.page.getByTestId('play-player').fill(o.player);
    await this.page.getByTestId('play-seat').selectOption(o.seat);
    if (o.opponent) await this.page.getByTestId('play-opponent').selectOption(o.opponent);
    if (o.scenario) await this.page.getByTestId('play-scenario').selectOption(o.scenario);
    if (o.seed !== undefined) await this.page.getByTestId('play-seed').fill(String(o.seed));
    await this.page.getByTestId('play-start-button').click();
    await expect(this.session).toBeVisible();
  }

  async status(): Promise<string> {
    return (await this.session.getAttribute('data-status')) ?? '';
  }

  /** Send a customer message; resolves once the engine answered (the turn count moved or an error shows). */
  async say(text: string): Promise<void> {
    await this.move(() => this.page.getByTestId('play-say').fill(text), 'play-send');
  }

  async speak(text: string): Promise<void> {
    await this.move(() => this.page.getByTestId('play-speak-text').fill(text), 'play-speak');
  }

  async endCall(text = 'Thank you for calling, goodbye.'): Promise<void> {
    await this.move(() => this.page.getByTestId('play-speak-text').fill(text), 'play-end-call');
    await expect(this.page.getByTestId('play-result')).toBeVisible();
  }

  async callTool(tool: string, args: Record<string, string>): Promise<void> {
    await this.page.getByTestId('play-tool').selectOption(tool);
    await this.move(async () => {
      for (const [k, v] of Object.entries(args)) {
        const field = this.page.getByTestId(`play-arg-${k}`);
        if ((await field.evaluate((el) => el.tagName)) === 'SELECT') await field.selectOption(v);
        else await field.fill(v);
      }
    }, 'play-call-tool');
  }

  private async move(fill: () => Promise<unknown>, button: string): Promise<void> {
    if ((await this.error.count()) > 0) await this.page.getByRole('button', { name: 'Dismiss' }).click();
    const before = await this.turns().count();
    await fill();
    await this.page.getByTestId(button).click();
    await expect(async () => {
      const answered = (await this.status()) === 'finished' || (await this.error.count()) > 0 || (await this.turns().count()) > before;
      expect(answered).toBe(true);
    }).toPass();
    await expect(this.page.getByTestId(button).or(this.page.getByTestId('play-result'))).toBeEnabled();
  }

  async callerPhone(): Promise<string> {
    return (await this.page.getByTestId('play-brief').locator('.mono').first().textContent()) ?? '';
  }

  /** The data of the newest successful tool result in the conversation. */
  async lastToolData(): Promise<Record<string, unknown>> {
    const text = await this.page
      .getByTestId('tool-result')
      .filter({ has: this.page.locator('summary', { hasText: /^result$/ }) })
      .last()
      .locator('pre')
      .textContent();
    return JSON.parse(text ?? '{}') as Record<string, unknown>;
  }

  /** The finished episode's id (its view inside the result). */
  async resultEpisodeId(): Promise<string> {
    return (await this.page.getByTestId('play-result').getByTestId('episode-view').getAttribute('data-episode')) ?? '';
  }
}
