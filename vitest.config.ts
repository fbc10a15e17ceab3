import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

/**
 * Engines the suite runs on: both by default. `ONAIR_TEST_ENGINES=sqlite npm test` runs without
 * PostgreSQL. Every test runs on SQLite; the HTTP and page tests, the merge and ingest tests
 * and the CLI tests run again on PostgreSQL (they open their store or DATABASE_URL on
 * ONAIR_TEST_ENGINE, see test/helpers/engines.ts), and the store contract suite loops over both
 * engines itself. The TypeScript client's tests run as a project of their own
 * (clients/typescript/vitest.config.ts).
 */
const engines = (process.env.ONAIR_TEST_ENGINES ?? 'sqlite,postgres').split(',');

/** Lets worker threads started by the sources under test run TypeScript (see the file). */
const typescriptInWorkerThreads = fileURLToPath(
  new URL('./test/helpers/typescript-in-worker-threads.cjs', import.meta.url),
);

export default defineConfig({
  test: {
    testTimeout: 60_000,
    hookTimeout: 60_000,
    reporters: ['default'],
    poolOptions: { forks: { execArgv: ['--require', typescriptInWorkerThreads] } },
    // Two test files at a time, on any machine: most tests wait on servers, processes, browsers
    // and databases (one file at a time, the default on 2 cores, left a core idle: 14.4 min of
    // which 12.6 min CPU).
    maxWorkers: 2,
    minWorkers: 1,
    // Test files share their worker process and its loaded modules: importing the app again in a
    // new process for every file took 168 s of collection and 30 s of start-up per run (the whole
    // run 13.5 → 11.2 min on 2 cores, docs/testing.md). Tests already hold their own servers,
    // stores and ports; a file that replaces a module (`vi.mock`) must not leak it into the next
    // one, so such a file is named `*.isolated.test.ts` and runs in a process of its own
    // (test/lint/isolated-tests.test.ts checks the name).
    isolate: false,
    projects: [
      {
        extends: true,
        test: {
          name: 'sqlite',
          include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
          exclude: ['**/*.isolated.test.ts'],
          env: { ONAIR_TEST_ENGINE: 'sqlite' },
        },
      },
      {
        extends: true,
        test: {
          name: 'isolated',
          include: ['src/**/*.isolated.test.ts', 'test/**/*.isolated.test.ts'],
          isolate: true,
          env: { ONAIR_TEST_ENGINE: 'sqlite' },
        },
      },
      ...(engines.includes('postgres')
        ? [
            {
              extends: true as const,
              test: {
                name: 'postgres',
                include: [
                  'test/http/**/*.test.ts',
                  'test/web/**/*.test.ts',
                  'test/ingest/merge.test.ts',
                  'test/ingest/ingest.test.ts',
                  'test/ingest/demo-start.test.ts',
                  // bin/onair over a PostgreSQL DATABASE_URL (graceful-shutdown is about the
                  // process, not the engine).
                  'test/cli/serve-and-ingest.test.ts',
                  'test/cli/sources-and-channels.test.ts',
                  'test/cli/accounts-and-keys.test.ts',
                  'test/cli/feeds.test.ts',
                  'test/cli/webhooks.test.ts',
                  'test/cli/playground.test.ts',
                  'test/cli/secrets-in-logs.test.ts',
                ],
                // These two choose their engines themselves.
                exclude: [
                  'test/http/postgres-outage.test.ts',
                  'test/http/routes-per-engine.test.ts',
                ],
                env: { ONAIR_TEST_ENGINE: 'postgres' },
              },
            },
          ]
        : []),
      // The TypeScript client, with its own config: its tests start real servers.
      'clients/typescript',
    ],
  },
});
