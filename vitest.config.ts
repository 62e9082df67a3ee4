import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    // The gateway's tests, and the client package's own (packages/client/test), in one run.
    include: ['test/**/*.test.ts', 'packages/client/test/**/*.test.ts'],
    // Real servers on port 0 and argon2 hashing: generous per-test bounds, never a sleep.
    testTimeout: 20_000,
    hookTimeout: 20_000,
    pool: 'forks',
    // Both cores: vitest's default (cores - 1) ran the files one at a time on the 2-core machines we
    // have, and the suite mirrors src/ file by file, so a worker's start-up is paid per file. Measured
    // on 2 cores: 255 s with one worker, 145-175 s with two; three runs, no test timing-sensitive enough to mind.
    maxWorkers: 2,
    reporters: ['default', './test/helpers/summary-reporter.ts'],
  },
});
