import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['./test/setup/global-setup.ts'],
    // Most test files wait on servers, timers and child processes rather than compute: more files at once
    // than the machine has cores keeps them all busy.
    maxWorkers: 4,
    // Guards against a hang, twice test/helpers/hang.ts's HANG_MS: no test measures speed.
    testTimeout: 120_000,
    hookTimeout: 120_000,
    reporters: ['default', './test/summary-reporter.ts'],
  },
});
