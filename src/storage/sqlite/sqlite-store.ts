import type { Store } from '../store.js';
import { createSqliteAccountStore } from './account-store.js';
import { createSqliteFeedStore } from './feed-store.js';
import { createSqliteCatalogueReader } from './catalogue-reader.js';
import { createSqliteChangeLog } from './change-log.js';
import { createSqliteDataVersions } from './data-versions.js';
import { createSqliteChannelAdminStore } from './channel-admin-store.js';
import type { SqliteDatabase } from './connection.js';
import { isInMemory, migrateSqlite, openSqliteDatabase } from './database.js';
import { createSqliteCatalogueWriter } from './ingest-session.js';
import { createSqlitePlaygroundStore } from './playground-store.js';
import { createSqliteSignInStore } from './sign-in-store.js';
import { createSqliteSourceStore } from './source-store.js';
import { CATALOGUE_CACHE_KIB, cataloguePathFor } from './catalogue-file.js';
import { createSqliteProgrammeSearch } from './programme-search.js';
import { createSearchWorker } from './search-worker.js';
import { createSqliteWebhookStore } from './webhook-store.js';

export interface SqliteStoreOptions {
  path: string;
  nowMs: number;
  /** How long a write waits for another connection's write lock (default 10 s). */
  busyTimeoutMs?: number;
}

/**
 * A Store over a SQLite file and its catalogue file (catalogue-file.ts), migrated to the
 * latest schema.
 */
export interface SqliteStore extends Store {
  readonly db: SqliteDatabase;
}

/**
 * Opens the SQLite store and brings its schema up to date. Every command migrates on open, so a
 * fresh clone needs no separate step; a database from a newer Onair is refused.
 */
export function openSqliteStore(options: SqliteStoreOptions): SqliteStore {
  const db = openSqliteDatabase(options.path, options.busyTimeoutMs);
  try {
    migrateSqlite(db, options.nowMs);
  } catch (error) {
    db.close();
    throw error;
  }
  const ingest = createSqliteCatalogueWriter(db, options.path);
  // Searches run in a thread of their own over the catalogue file (but in memory: isInMemory).
  const searchWorker = isInMemory(db, options.path)
    ? null
    : createSearchWorker(cataloguePathFor(options.path), [`cache_size = -${CATALOGUE_CACHE_KIB}`]);
  const searchProgrammes = searchWorker?.search ?? createSqliteProgrammeSearch(db);
  const readVersions = createSqliteDataVersions(db);
  return {
    engine: 'sqlite',
    db,
    catalogue: createSqliteCatalogueReader(db, searchProgrammes),
    changes: createSqliteChangeLog(db),
    accounts: createSqliteAccountStore(db),
    signIn: createSqliteSignInStore(db),
    playground: createSqlitePlaygroundStore(db),
    channels: createSqliteChannelAdminStore(db),
    sources: createSqliteSourceStore(db),
    webhooks: createSqliteWebhookStore(db),
    feeds: createSqliteFeedStore(db),
    ingest,
    // In memory (see createSqliteDataVersions): read without a promise.
    versions: readVersions,
    async ping() {
      db.prepare('SELECT 1').get();
    },
    async close() {
      await searchWorker?.close();
      if (db.open) db.close();
    },
  };
}
