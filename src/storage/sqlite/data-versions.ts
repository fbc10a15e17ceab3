import type { DataVersions } from '../types.js';
import type { SqliteDatabase } from './database.js';

/**
 * Reads the data versions of a SQLite store for every request, as cheaply as SQLite allows:
 * `PRAGMA data_version` moves when another connection (the CLI, an ingest's staging
 * connection) commits, and `total_changes()` counts this connection's own writes; only when
 * either moved are the counters of `data_versions` (kept by triggers) read again. So a commit
 * by any process is seen by the next request, and writes that change neither version (key use,
 * usage counts) cost one small read, not a cache invalidation.
 */
export function createSqliteDataVersions(db: SqliteDatabase): () => DataVersions {
  const dataVersion = db.prepare<[], number>('PRAGMA data_version').pluck();
  const ownChanges = db.prepare<[], number>('SELECT total_changes()').pluck();
  const counters = db.prepare<[], { catalogue: number; auth: number }>(
    `SELECT
       (SELECT version FROM data_versions WHERE name = 'catalogue') AS catalogue,
       (SELECT version FROM data_versions WHERE name = 'auth') AS auth`,
  );
  let seenData = -1;
  let seenOwn = -1;
  let current: DataVersions = { catalogue: '', auth: '' };

  return function read(): DataVersions {
    const data = dataVersion.get() ?? 0;
    const own = ownChanges.get() ?? 0;
    if (data !== seenData || own !== seenOwn) {
      const row = counters.get();
      // The counters read in their own read transaction, after the marks: a commit between the
      // two shows up in the counters now and moves the marks, so it is only read twice.
      seenData = data;
      seenOwn = own;
      const catalogue = String(row?.catalogue ?? 0);
      const auth = String(row?.auth ?? 0);
      if (catalogue !== current.catalogue || auth !== current.auth) current = { catalogue, auth };
    }
    return current;
  };
}
