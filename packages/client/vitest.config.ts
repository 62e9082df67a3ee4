import { defineConfig } from 'vitest/config';

// `npm test` in this folder runs the package's own tests; the repository's
// `npm test` runs them too, with the gateway's (its vitest.config.ts includes this test/).
export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Real servers on port 0, and the packaging test's npm pack, npm install and tsc runs.
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
