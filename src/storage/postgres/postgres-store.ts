import type pg from 'pg';
import type { Store } from '../types.js';
import { createPostgresAccountStore } from './account-store.js';
import { createPostgresCatalogueReader } from './catalogue-reader.js';
import { createPostgresChannelAdminStore } from './channel-admin-store.js';
import { connectPostgresClient, createPostgresPool, migratePostgres } from './database.js';
import { createPostgresCatalogueWriter } from './ingest-session.js';
import { createPostgresSignInStore } from './sign-in-store.js';
import { createPostgresSourceStore } from './source-store.js';

export interface PostgresStoreOptions {
  url: string;
  nowMs: number;
  /** Bound on waiting for a connection or a statement of a request (ms). */
  timeoutMs?: number;
}

/** A Store over PostgreSQL, shared by any number of instances. */
export interface PostgresStore extends Store {
  readonly pool: pg.Pool;
}

/**
 * Opens the PostgreSQL store and brings its schema up to date (under an advisory lock, so
 * instances starting together migrate once).
 */
export async function openPostgresStore(options: PostgresStoreOptions): Promise<PostgresStore> {
  const pool = createPostgresPool({ url: options.url, timeoutMs: options.timeoutMs });
  try {
    await migratePostgres(pool, options.nowMs);
  } catch (error) {
    await pool.end();
    throw error;
  }
  return {
    engine: 'postgres',
    pool,
    catalogue: createPostgresCatalogueReader(pool),
    accounts: createPostgresAccountStore(pool),
    signIn: createPostgresSignInStore(pool),
    channels: createPostgresChannelAdminStore(pool),
    sources: createPostgresSourceStore(pool),
    ingest: createPostgresCatalogueWriter(() => connectPostgresClient(options.url)),
    async ping() {
      await pool.query('SELECT 1');
    },
    async close() {
      if (!pool.ended) await pool.end();
    },
  };
}
