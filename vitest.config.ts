import { defineConfig } from 'vitest/config';
import { OWN_PROCESS_INT_FILES } from './test/support/own-process.ts';

// Test tiers are chosen by file suffix. `npm test` runs unit, int and e2e (embedded engines,
// offline); `npm run test:browser` drives the dashboard in Chromium; `npm run test:engines` runs
// the contract suites against real engines.
export default defineConfig({
  test: {
    pool: 'forks',
    // Two files at a time: vitest's default is one worker per core minus one, which is one on the
    // 2-core machines this runs on, and most files spend part of their time waiting on a service
    // or the pipeline. On a quiet 2-core machine the suite took 503 s with two, 669 s with one.
    maxWorkers: 2,
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Fixtures made once per run before any file starts, which files read and never write (the
    // migrated PGlite template that state stores and new data dirs start from).
    globalSetup: ['test/support/global-setup.ts'],
    // EARSHOT_TEST_CPU_LOG=<file>: one JSON line of CPU-seconds per test file (docs/testing.md).
    setupFiles: process.env['EARSHOT_TEST_CPU_LOG'] ? ['test/support/cpu-log.ts'] : [],
    projects: [
      // Unit and integration files share their worker process with the files before them (modules
      // loaded once per worker, not once per file), except the integration files that use chdb,
      // a process singleton, which run each in a process of their own (test/support/own-process.ts).
      {
        extends: true,
        test: { name: 'unit', include: ['**/*.unit.test.ts'], exclude: ['node_modules/**'], isolate: false },
      },
      {
        extends: true,
        test: {
          name: 'int',
          include: ['**/*.int.test.ts'],
          exclude: ['node_modules/**', ...OWN_PROCESS_INT_FILES],
          isolate: false,
        },
      },
      { extends: true, test: { name: 'int-chdb', include: OWN_PROCESS_INT_FILES } },
      // End-to-end files share the two workers with the integration files instead of running one
      // after another at the end, when one worker sat idle. Vitest queues them first (projects in
      // name order, longest or largest first within one), so the longest start at once.
      { extends: true, test: { name: 'e2e', include: ['**/*.e2e.test.ts'], exclude: ['node_modules/**'] } },
      {
        // The dashboard in Debian's Chromium against the demo service (npm run test:browser).
        extends: true,
        test: {
          name: 'browser',
          include: ['**/*.browser.test.ts'],
          exclude: ['node_modules/**'],
          fileParallelism: false,
          testTimeout: 240_000,
          hookTimeout: 240_000,
        },
      },
      {
        extends: true,
        test: {
          name: 'engines',
          include: ['**/*.engines.test.ts'],
          globalSetup: ['test/engines/global-setup.ts'],
          setupFiles: ['test/engines/engines-env.ts'],
          exclude: ['node_modules/**'],
          fileParallelism: false,
          testTimeout: 120_000,
          hookTimeout: 180_000,
        },
      },
    ],
  },
});
