import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

// The client's tests start real Onair servers (on SQLite) from the repository's sources, whose
// ingests start a worker thread on a TypeScript entry (see the preload).
const typescriptInWorkerThreads = fileURLToPath(
  new URL('../../test/helpers/typescript-in-worker-threads.cjs', import.meta.url),
);

export default defineConfig({
  test: {
    name: 'client',
    poolOptions: { forks: { execArgv: ['--require', typescriptInWorkerThreads] } },
    include: ['test/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
