import { defineConfig } from '@playwright/test';
import { CHROMIUM_ARGS, chromiumPath } from './e2e/chromium';

export default defineConfig({
  testDir: 'e2e',
  // A private TMPDIR for the run, removed at its end (test-temp-root.ts).
  globalSetup: './test-temp-root.ts',
  timeout: 120_000,
  expect: { timeout: 20_000 },
  fullyParallel: false,
  // Two cores: one browser at a time keeps timings honest and the local engine fast.
  workers: 1,
  retries: 0,
  reporter: [['list'], ['html', { open: 'never', outputFolder: 'playwright-report' }]],
  use: {
    browserName: 'chromium',
    launchOptions: { executablePath: chromiumPath(), args: CHROMIUM_ARGS },
    viewport: { width: 1360, height: 860 },
    screenshot: 'only-on-failure',
    trace: 'retain-on-failure',
  },
});
