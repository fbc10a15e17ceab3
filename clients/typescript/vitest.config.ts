import { defineConfig } from 'vitest/config';

// The client's tests start real Onair servers (on SQLite) from the repository's sources.
export default defineConfig({
  test: {
    name: 'client',
    include: ['test/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
