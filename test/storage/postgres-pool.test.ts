import { afterAll, describe, expect, it } from 'vitest';
import { createPostgresPool, migratePostgres } from '../../src/storage/postgres/database.js';
import { ENGINES, freshPostgresDatabase, TEST_POSTGRES_URL } from '../helpers/engines.js';

/**
 * The pool's session settings (database.ts): the short reads of the API run without JIT
 * compilation and parallel workers, unless the operator's URL says otherwise.
 */
describe.runIf(ENGINES.includes('postgres'))('PostgreSQL pool', () => {
  const pools: ReturnType<typeof createPostgresPool>[] = [];
  afterAll(async () => {
    await Promise.all(pools.map((p) => p.end()));
  });
  const settings = async (url: string) => {
    const pool = createPostgresPool({ url });
    pools.push(pool);
    const { rows } = await pool.query<{ jit: string; workers: string }>(
      `SELECT current_setting('jit') AS jit,
              current_setting('max_parallel_workers_per_gather') AS workers`,
    );
    return rows[0];
  };

  it('reads without JIT and parallel workers', async () => {
    expect(await settings(TEST_POSTGRES_URL)).toEqual({ jit: 'off', workers: '0' });
  });

  it('lets the options of the URL win', async () => {
    const url = new URL(TEST_POSTGRES_URL);
    url.searchParams.set('options', '-c jit=on -c max_parallel_workers_per_gather=1');
    expect(await settings(url.toString())).toEqual({ jit: 'on', workers: '1' });
  });

  it('runs a migration longer than its statement timeout to the end', async () => {
    const database = await freshPostgresDatabase();
    const pool = createPostgresPool({ url: database.url, timeoutMs: 200 });
    try {
      await expect(pool.query('SELECT pg_sleep(0.5)')).rejects.toThrow(/timeout/);
      const applied = await migratePostgres(pool, 0, [
        { version: 1, name: 'a long step', sql: 'SELECT pg_sleep(0.5)' },
      ]);
      expect(applied.map((m) => m.version)).toEqual([1]);
    } finally {
      await pool.end();
      await database.drop();
    }
  });
});
