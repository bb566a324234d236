/** The app frame: open it with the launch token, move between screens, leave screenshots. */
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { expect } from '@playwright/test';
import type { Browser, Page } from '@playwright/test';

export const SCREENSHOTS = path.join('test-results', 'screenshots');

export type ScreenName = 'experiments' | 'studies' | 'runs' | 'arena' | 'transcripts' | 'evaluation' | 'export' | 'play' | 'annotate' | 'audit' | 'models';

export class LabPage {
  /** Engine event frames the page has received over its WebSocket (counted from construction), and the largest since reset. */
  readonly engineFrames = { count: 0, largestBytes: 0 };

  constructor(readonly page: Page) {
    page.on('websocket', (ws) =>
      ws.on('framereceived', ({ payload }) => {
        if (!String(payload.slice(0, 40)).includes('"kind":"event"')) return;
        this.engineFrames.count++;
        this.engineFrames.largestBytes = Math.max(this.engineFrames.largestBytes, payload.length);
      }),
    );
  }

  /** A fresh page on the lab at `url` (page errors echoed to the test log), for a serial spec. */
  static async openNew(browser: Browser, url = LabPage.url()): Promise<LabPage> {
    const page = await browser.newPage();
    page.on('pageerror', (e) => console.error(`[page error] ${e.message}`));
    const lab = new LabPage(page);
    await lab.open(url);
    return lab;
  }

  static url(): string {
    const url = process.env.SPARRING_E2E_URL;
    if (!url) throw new Error('SPARRING_E2E_URL is not set: run these specs through playwright.config.ts (its global setup starts the server)');
    return url;
  }

  /** Web mode with the simulated runner (support/serve-simulated.ts). */
  static simulatedUrl(): string {
    const url = process.env.SPARRING_E2E_SIM_URL;
    if (!url) throw new Error('SPARRING_E2E_SIM_URL is not set: run these specs through playwright.config.ts');
    return url;
  }

  static runsUnavailable(): string | null {
    return process.env.SPARRING_E2E_RUNS_UNAVAILABLE || null;
  }

  /** Open the app; `url` defaults to the real server's. */
  async open(url = LabPage.url()): Promise<void> {
    await this.page.goto(url);
    await expect(this.page.getByTestId('connection')).toHaveText(/engine connected/);
  }

  async go(screen: ScreenName): Promise<void> {
    await this.page.getByTestId(`nav-${screen}`).click();
    await expect(this.page.getByTestId(`screen-${screen === 'runs' ? 'dashboard' : screen}`)).toBeVisible();
  }

  /** Settle, then save a full-page screenshot as test-results/screenshots/NAME.png. */
  async screenshot(name: string): Promise<string> {
    mkdirSync(SCREENSHOTS, { recursive: true });
    await expect(this.page.getByTestId('loading-state')).toHaveCount(0);
    const file = path.join(SCREENSHOTS, `${name}.png`);
    await this.page.screenshot({ path: file, fullPage: true });
    return file;
  }
}
