import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { openPostgresStore } from '../../src/storage/postgres/postgres-store.js';
import { openSqliteStore } from '../../src/storage/sqlite/sqlite-store.js';
import type { Store } from '../../src/storage/store.js';

export type EngineName = 'sqlite' | 'postgres';

/** Engines the store tests run on: both by default; ONAIR_TEST_ENGINES=sqlite narrows it. */
export const ENGINES: EngineName[] = (process.env.ONAIR_TEST_ENGINES ?? 'sqlite,postgres')
  .split(',')
  .map((e) => e.trim())
  .filter((e): e is EngineName => e === 'sqlite' || e === 'postgres');

/** The machine's PostgreSQL; each test store lives in a database of its own, dropped after. */
export const TEST_POSTGRES_URL =
  process.env.TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

export interface EngineStore {
  engine: EngineName;
  store: Store;
  /** DATABASE_URL of this store, for a server or CLI run over the same data. */
  databaseUrl: string;
  /** Runs raw SQL (tests that reach under the Store interface); returns the rows. */
  sql(text: string): Promise<Record<string, unknown>[]>;
  dispose(): Promise<void>;
}

/** The engine the HTTP and page tests run on (ONAIR_TEST_ENGINE, SQLite by default). */
export const HTTP_TEST_ENGINE: EngineName =
  process.env.ONAIR_TEST_ENGINE === 'postgres' ? 'postgres' : 'sqlite';

function withDatabase(url: string, database: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/${database}`;
  return parsed.href;
}

/** A fresh, empty PostgreSQL database; returns its URL and how to drop it. */
export async function freshPostgresDatabase(): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `onair_test_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: TEST_POSTGRES_URL });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  return {
    url: withDatabase(TEST_POSTGRES_URL, name),
    async drop() {
      const client = new pg.Client({ connectionString: TEST_POSTGRES_URL });
      await client.connect();
      try {
        await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      } finally {
        await client.end();
      }
    },
  };
}

export async function openEngineStore(engine: EngineName, nowMs: number): Promise<EngineStore> {
  if (engine === 'sqlite') {
    const dir = mkdtempSync(join(tmpdir(), 'onair-store-'));
    const path = join(dir, 'onair.db');
    const store = openSqliteStore({ path, nowMs });
    return {
      engine,
      store,
      databaseUrl: path,
      async sql(text) {
        const statement = store.db.prepare(text);
        if (statement.reader) return statement.all() as Record<string, unknown>[];
        statement.run();
        return [];
      },
      async dispose() {
        await store.close();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  }
  const database = await freshPostgresDatabase();
  const store = await openPostgresStore({ url: database.url, nowMs });
  return {
    engine,
    store,
    databaseUrl: database.url,
    async sql(text) {
      const { rows } = await store.pool.query<Record<string, unknown>>(text);
      // Written under the store: wait until its notification is in, as a next request would
      // once it arrives.
      await store.syncVersions();
      return rows;
    },
    async dispose() {
      await store.close();
      await database.drop();
    },
  };
}
