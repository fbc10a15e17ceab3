import type Database from 'better-sqlite3';

// A connection and what any connection does, apart from opening and migrating a database
// (database.ts): the schema's modules (migrations.ts, catalogue-file.ts) take a connection, and
// database.ts uses them.

/** A better-sqlite3 connection. */
export type SqliteDatabase = Database.Database;

/**
 * Runs `work` without waiting for the write lock: when another connection holds it (a command,
 * another process; an ingest locks only the catalogue file), it fails at once with SQLITE_BUSY
 * instead of blocking the thread.
 */
export function withoutWaiting<T>(db: SqliteDatabase, work: () => T): T {
  const timeout = db.pragma('busy_timeout', { simple: true }) as number;
  db.pragma('busy_timeout = 0');
  try {
    return work();
  } finally {
    db.pragma(`busy_timeout = ${timeout}`);
  }
}
