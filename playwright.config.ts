// End-to-end tests: the real engine (`sparring serve` on a temporary lab) driven through Debian's
// Chromium. `npm run test:e2e`; screenshots land in test-results/screenshots/.
import { defineConfig } from '@playwright/test';

export default defineConfig({
  testDir: 'test/e2e',
  testMatch: '*.spec.ts',
  outputDir: 'test-results/playwright',
  globalSetup: './test/e2e/global-setup.ts',
  // One server, one lab: the specs build on each other's matches, in order.
  workers: 1,
  fullyParallel: false,
  retries: 0,
  timeout: 90_000,
  expect: { timeout: 15_000 },
  reporter: [['list']],
  use: {
    browserName: 'chromium',
    headless: true,
    viewport: { width: 1400, height: 900 },
    acceptDownloads: true,
    // Actions, console and network only: DOM snapshots and the screencast run on the page's own
    // main thread, and the long-task checks measured them as the app's (most of their long tasks).
    // One setting for every spec, so they share one worker and keep their order on the shared lab.
    trace: { mode: 'retain-on-failure', snapshots: false, screenshots: false },
    screenshot: 'only-on-failure',
    launchOptions: {
      executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
        '--disable-quic',
        '--no-first-run',
      ],
    },
  },
});
