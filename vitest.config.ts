import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src-main/**/*.test.ts', 'src-shared/**/*.test.ts', 'src-renderer/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // A private TMPDIR for the run, removed at its end (test-temp-root.ts).
    globalSetup: ['./test-temp-root.ts'],
    pool: 'forks',
    // Two cores: more workers only add contention for the CPU-heavy suites.
    maxWorkers: 2,
  },
});
