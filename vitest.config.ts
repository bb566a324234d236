import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['core/**/*.test.ts', 'models/**/*.test.ts', 'host/**/*.test.ts', 'test/**/*.test.ts', 'renderer/**/*.test.ts', 'electron/**/*.test.ts'],
    env: { ORT_DISABLE_TELEMETRY: '1' },
    testTimeout: 60_000,
    // Hooks start CLIs and servers too (a `sparring` start takes 10 s and more on a loaded 2-core machine): not vitest's 10 s.
    hookTimeout: 60_000,
    pool: 'forks',
    // One temporary directory for the whole suite, removed at its end (test/support/suite-tmp.ts).
    globalSetup: ['test/support/suite-tmp.ts'],
  },
});
