import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    // The gateway's tests, and the client package's own (packages/client/test), in one run.
    include: ['test/**/*.test.ts', 'packages/client/test/**/*.test.ts'],
    // Real servers on port 0 and argon2 hashing: generous per-test bounds, never a sleep.
    testTimeout: 20_000,
    hookTimeout: 20_000,
    pool: 'forks',
    reporters: ['default', './test/helpers/summary-reporter.ts'],
  },
});
