import type pg from 'pg';
import type { CatalogueWriter, IngestSession } from '../catalogue-writer.js';
import type { Store } from '../store.js';
import { createPostgresAccountStore } from './account-store.js';
import { createPostgresFeedStore } from './feed-store.js';
import { createPostgresCatalogueReader } from './catalogue-reader.js';
import { createPostgresChangeLog } from './change-log.js';
import { watchPostgresDataVersions } from './data-versions.js';
import { createPostgresChannelAdminStore } from './channel-admin-store.js';
import { connectPostgresClient, createPostgresPool, migratePostgres } from './database.js';
import { createPostgresCatalogueWriter } from './ingest-session.js';
import { createPipelinedConnections } from './pipelined-connections.js';
import { createPostgresPlaygroundStore } from './playground-store.js';
import { createPostgresSignInStore } from './sign-in-store.js';
import { createPostgresSourceStore } from './source-store.js';
import { createPostgresWebhookStore } from './webhook-store.js';

export interface PostgresStoreOptions {
  url: string;
  nowMs: number;
  /** Bound on waiting for a connection or a statement of a request (ms). */
  timeoutMs?: number;
}

/** A Store over PostgreSQL, shared by any number of instances. */
export interface PostgresStore extends Store {
  readonly pool: pg.Pool;
  /** Resolves once changes committed so far (also by other connections) are seen by `versions`. */
  syncVersions(): Promise<void>;
}

/**
 * The writer, with the versions forgotten after each commit: this instance's own ingest is
 * seen by its next request without waiting for the database's notification.
 */
function invalidatingAfterCommit(writer: CatalogueWriter, invalidate: () => void): CatalogueWriter {
  return {
    async beginIngest() {
      const session = await writer.beginIngest();
      const wrapped: IngestSession = {
        stageChannel: (channel) => session.stageChannel(channel),
        stageProgramme: (programme) => session.stageProgramme(programme),
        drain: () => session.drain(),
        analyse: (options) => session.analyse(options),
        async commit(file, options) {
          try {
            return await session.commit(file, options);
          } finally {
            invalidate();
          }
        },
        abort: () => session.abort(),
      };
      return wrapped;
    },
  };
}

/**
 * The programme search's connections (pipelined-connections.ts): as many as the pool has, so a
 * search waits behind walks only when ten are running; and the most queries sent together, so
 * a slow index read holds up no more than seven others (batches of 8 and 16 gave rare titles the
 * same speed at 10 million programmes, `node bench/search.mjs --engines postgres --channels
 * 11112`; bench/RESULTS.md).
 */
const SEARCH_CONNECTIONS = 10;
const SEARCH_BATCH = 8;

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
  // The programme search's statements on connections of their own, each planned once there
  // (catalogue-reader.ts says why), its queries pipelined (pipelined-connections.ts); opened
  // as searches come, like the pool's.
  const searchConnections = createPipelinedConnections({
    url: options.url,
    timeoutMs: options.timeoutMs,
    planOnce: true,
    connections: SEARCH_CONNECTIONS,
    batch: SEARCH_BATCH,
  });
  const versions = await watchPostgresDataVersions({ url: options.url, pool });
  return {
    engine: 'postgres',
    pool,
    catalogue: createPostgresCatalogueReader(pool, searchConnections),
    changes: createPostgresChangeLog(pool),
    accounts: createPostgresAccountStore(pool, () => versions.invalidate()),
    signIn: createPostgresSignInStore(pool),
    playground: createPostgresPlaygroundStore(pool, () => versions.invalidate()),
    ingest: invalidatingAfterCommit(
      createPostgresCatalogueWriter(() => connectPostgresClient(options.url)),
      () => versions.invalidate(),
    ),
    versions() {
      return versions.read();
    },
    syncVersions() {
      return versions.sync();
    },
    channels: createPostgresChannelAdminStore(pool),
    sources: createPostgresSourceStore(pool),
    webhooks: createPostgresWebhookStore(pool),
    feeds: createPostgresFeedStore(pool),
    async ping() {
      await pool.query('SELECT 1');
    },
    async close() {
      await versions.close();
      if (!searchConnections.ended) await searchConnections.end();
      if (!pool.ended) await pool.end();
    },
  };
}
