import type pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  watchPostgresDataVersions,
  type PostgresDataVersions,
} from '../../src/storage/postgres/data-versions.js';
import { createPostgresPool, migratePostgres } from '../../src/storage/postgres/database.js';
import { ENGINES, freshPostgresDatabase } from '../helpers/engines.js';

const NOW = Date.UTC(2026, 2, 1);

describe.runIf(ENGINES.includes('postgres'))('PostgreSQL data versions', () => {
  let database: { url: string; drop(): Promise<void> };
  let pool: pg.Pool;
  let writer: pg.Pool;
  let watch: PostgresDataVersions | null = null;

  beforeAll(async () => {
    database = await freshPostgresDatabase();
    pool = createPostgresPool({ url: database.url });
    writer = createPostgresPool({ url: database.url });
    await migratePostgres(pool, NOW);
  });
  afterEach(async () => {
    await watch?.close();
    watch = null;
    vi.restoreAllMocks();
  });
  afterAll(async () => {
    await pool?.end();
    await writer?.end();
    await database?.drop();
  });

  /** Another connection (the CLI, another instance) changes an account. */
  const changeAuth = () =>
    writer.query(
      `INSERT INTO accounts (id, email, email_key, disabled, created_at, updated_at)
       VALUES (gen_random_uuid()::text, 'x', gen_random_uuid()::text, false, 0, 0)`,
    );

  it('answers from memory while nothing changes, and sees another connection’s commit by its notification', async () => {
    watch = await watchPostgresDataVersions({ url: database.url, pool, refreshMs: 60_000 });
    expect(watch.listening).toBe(true);
    const first = await watch.read();
    const queries = vi.spyOn(pool, 'query');
    for (let i = 0; i < 100; i++) expect(await watch.read()).toEqual(first);
    expect(queries).not.toHaveBeenCalled();

    const committedAt = performance.now();
    await changeAuth();
    await expect
      .poll(async () => (await watch?.read())?.auth, { interval: 1 })
      .not.toBe(first.auth);
    const seenAfterMs = performance.now() - committedAt;
    expect((await watch.read()).catalogue).toBe(first.catalogue);
    // One read for the notification; the requests after it share it.
    expect(queries.mock.calls.length).toBeLessThanOrEqual(2);
    console.log(`another connection's commit seen after ${seenAfterMs.toFixed(1)} ms`);
  });

  it('syncs on demand: a commit made before sync() is seen right after it', async () => {
    watch = await watchPostgresDataVersions({ url: database.url, pool, refreshMs: 60_000 });
    for (let i = 0; i < 5; i++) {
      const before = await watch.read();
      await changeAuth();
      await watch.sync();
      expect((await watch.read()).auth).not.toBe(before.auth);
    }
  });

  it('falls back to a read per request while the listener is down, and listens again', async () => {
    watch = await watchPostgresDataVersions({
      url: database.url,
      pool,
      refreshMs: 60_000,
      reconnectMs: { min: 50, max: 50 },
    });
    await writer.query(
      `SELECT pg_terminate_backend(pid) FROM pg_stat_activity
       WHERE datname = current_database() AND query LIKE 'LISTEN%'`,
    );
    await expect.poll(() => watch?.listening, { interval: 5 }).toBe(false);
    const queries = vi.spyOn(pool, 'query');
    const before = await watch.read();
    await changeAuth();
    // Exact without notifications: the very next read sees the commit.
    expect((await watch.read()).auth).not.toBe(before.auth);
    expect(queries.mock.calls.length).toBeGreaterThanOrEqual(2);
    await expect.poll(() => watch?.listening, { timeout: 5_000, interval: 20 }).toBe(true);
    const listening = await watch.read();
    await changeAuth();
    await watch.sync();
    expect((await watch.read()).auth).not.toBe(listening.auth);
  });

  it('re-reads the versions every refreshMs, so even a change that sent no notification is seen', async () => {
    watch = await watchPostgresDataVersions({ url: database.url, pool, refreshMs: 100 });
    const before = await watch.read();
    // Written behind the triggers' back: no notification is sent.
    await writer.query('UPDATE auth_state SET version = version + 1');
    await watch.sync();
    await expect
      .poll(async () => (await watch?.read())?.auth, { timeout: 1_000, interval: 10 })
      .not.toBe(before.auth);
  });
});
