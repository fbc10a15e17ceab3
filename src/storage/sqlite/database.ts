import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import { pendingMigrations } from '../schema-migration.js';
import { SQLITE_MIGRATIONS, type SqliteMigration } from './migrations.js';

export type SqliteDatabase = Database.Database;

export { SchemaVersionError } from '../errors.js';

/** How long a write waits for another connection's write lock, by default (a command can wait). */
export const DEFAULT_BUSY_TIMEOUT_MS = 10_000;

/**
 * Opens (creating if needed) a SQLite database file with the settings Onair relies on.
 * `busyTimeoutMs` bounds how long a write waits for another connection's write lock: the wait
 * blocks the whole thread, so a server keeps it short (see deps.ts).
 */
export function openSqliteDatabase(
  path: string,
  busyTimeoutMs = DEFAULT_BUSY_TIMEOUT_MS,
): SqliteDatabase {
  if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
  const db = new Database(path);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.pragma('foreign_keys = ON');
  db.pragma(`busy_timeout = ${Math.max(0, Math.floor(busyTimeoutMs))}`);
  return db;
}

/**
 * Runs `work` without waiting for the write lock: when another connection holds it (an ingest
 * merging), it fails at once with SQLITE_BUSY instead of blocking the thread.
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

function ensureMigrationTable(db: SqliteDatabase): void {
  db.exec(`CREATE TABLE IF NOT EXISTS schema_migrations (
    version INTEGER PRIMARY KEY,
    name TEXT NOT NULL,
    applied_at INTEGER NOT NULL
  )`);
}

export function currentSchemaVersion(db: SqliteDatabase): number {
  const table = db
    .prepare(`SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'schema_migrations'`)
    .get();
  if (table === undefined) return 0;
  const row = db.prepare('SELECT max(version) AS version FROM schema_migrations').get() as {
    version: number | null;
  };
  return row.version ?? 0;
}

export const LATEST_SQLITE_VERSION = Math.max(...SQLITE_MIGRATIONS.map((m) => m.version));

/**
 * Applies the migrations the database has not seen yet, each in its own transaction, and
 * returns them. Refuses a database written by a newer Onair.
 */
export function migrateSqlite(
  db: SqliteDatabase,
  nowMs: number,
  migrations: readonly SqliteMigration[] = SQLITE_MIGRATIONS,
): SqliteMigration[] {
  const current = currentSchemaVersion(db);
  const pending = pendingMigrations(current, migrations);
  for (const migration of pending) {
    db.transaction(() => {
      ensureMigrationTable(db);
      db.exec(migration.sql);
      db.prepare('INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)').run(
        migration.version,
        migration.name,
        nowMs,
      );
    }).immediate();
  }
  return pending;
}
