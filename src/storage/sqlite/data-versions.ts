import type { DataVersions } from '../store.js';
import { CATALOGUE_SCHEMA } from './catalogue-file.js';
import type { SqliteDatabase } from './connection.js';

/** How long a check for other processes' commits holds (ms); see createSqliteDataVersions. */
export const OTHER_PROCESS_CHECK_MS = 1;

/**
 * Reads the data versions of a SQLite store for every request, as cheaply as SQLite allows.
 * `total_changes()` counts this connection's own writes (the account pages, the usage
 * recorder) and is read every time: a write by this process is seen by its next request.
 * `PRAGMA data_version` of each file (accounts and catalogue) moves when another connection
 * commits (the CLI, an ingest's connection, another process); it takes SQLite's shared-memory
 * read lock, which made it the largest single cost of a cached request (5 % of the server's
 * time), so its answer is reused for `maxAgeMs` (1 ms): another process's commit is seen by
 * every request that starts 1 ms after it. Only when either count moved are the counters
 * (`data_versions`, `catalogue_version`; kept by triggers) read again, so writes that change
 * neither version (key use, usage counts) invalidate nothing.
 */
export function createSqliteDataVersions(
  db: SqliteDatabase,
  maxAgeMs = OTHER_PROCESS_CHECK_MS,
): () => DataVersions {
  const accountsData = db.prepare<[], number>('PRAGMA main.data_version').pluck();
  const catalogueData = db.prepare<[], number>(`PRAGMA ${CATALOGUE_SCHEMA}.data_version`).pluck();
  // The two files' marks as one text to compare.
  const dataVersion = () => `${accountsData.get() ?? 0}/${catalogueData.get() ?? 0}`;
  const ownChanges = db.prepare<[], number>('SELECT total_changes()').pluck();
  const counters = db.prepare<[], { catalogue: number; auth: number }>(
    `SELECT
       (SELECT version FROM catalogue_version) AS catalogue,
       (SELECT version FROM data_versions WHERE name = 'auth') AS auth`,
  );
  let seenData = '';
  let seenOwn = -1;
  let checkedAt = Number.NEGATIVE_INFINITY;
  let current: DataVersions = { catalogue: '', auth: '' };

  return function read(): DataVersions {
    const own = ownChanges.get() ?? 0;
    const now = performance.now();
    if (own === seenOwn && now - checkedAt < maxAgeMs) return current;
    checkedAt = now;
    const data = dataVersion();
    if (data !== seenData || own !== seenOwn) {
      // The counters are read after the marks: a commit in between shows up in the counters
      // now and moves the marks, so it is only read twice, never missed.
      seenData = data;
      seenOwn = own;
      const row = counters.get();
      const catalogue = String(row?.catalogue ?? 0);
      const auth = String(row?.auth ?? 0);
      if (catalogue !== current.catalogue || auth !== current.auth) current = { catalogue, auth };
    }
    return current;
  };
}
