import { closeSync, mkdirSync, openSync, readSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import { pendingMigrations } from '../schema-migration.js';
import {
  CATALOGUE_CACHE_KIB,
  CATALOGUE_PAGE_SIZE,
  CATALOGUE_SCHEMA,
  cataloguePathFor,
  ensureCatalogueSchema,
} from './catalogue-file.js';
import type { SqliteDatabase } from './connection.js';
import { CATALOGUE_FILE_VERSION, SQLITE_MIGRATIONS, type SqliteMigration } from './migrations.js';

export { SchemaVersionError } from '../errors.js';

/** How long a write waits for another connection's write lock, by default (a command can wait). */
export const DEFAULT_BUSY_TIMEOUT_MS = 10_000;

/**
 * Opens (creating if needed) a SQLite database file with the settings Onair relies on, with its
 * catalogue file (catalogue-file.ts) attached as the schema `catalogue`. `busyTimeoutMs` bounds
 * how long a write waits for another connection's write lock: the wait blocks the whole thread,
 * so a server keeps it short (see deps.ts).
 */
export function openSqliteDatabase(
  path: string,
  busyTimeoutMs = DEFAULT_BUSY_TIMEOUT_MS,
): SqliteDatabase {
  if (path !== ':memory:') {
    mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
    createPrivately(path);
    createPrivately(cataloguePathFor(path));
  }
  const db = new Database(path);
  try {
    db.pragma(`busy_timeout = ${Math.max(0, Math.floor(busyTimeoutMs))}`);
    db.prepare(`ATTACH DATABASE ? AS ${CATALOGUE_SCHEMA}`).run(cataloguePathFor(path));
    // Takes effect in a new catalogue file only (one made before keeps its pages): see
    // CATALOGUE_PAGE_SIZE.
    db.pragma(`${CATALOGUE_SCHEMA}.page_size = ${CATALOGUE_PAGE_SIZE}`);
    db.pragma(`${CATALOGUE_SCHEMA}.cache_size = -${CATALOGUE_CACHE_KIB}`);
    for (const schema of ['main', CATALOGUE_SCHEMA]) {
      useWriteAheadLog(db, schema, busyTimeoutMs);
      db.pragma(`${schema}.synchronous = NORMAL`);
    }
    db.pragma('foreign_keys = ON');
  } catch (error) {
    db.close();
    throw whichFileIsNotADatabase(error, [path, cataloguePathFor(path)]);
  }
  return db;
}

/** The first 16 bytes of every SQLite database file. */
const SQLITE_HEADER = Buffer.from('SQLite format 3\0', 'latin1');

/**
 * SQLite's "file is not a database" names no file, and an Onair database is two (accounts and
 * catalogue): the error says which one it is, so an operator restores the right one. Other
 * errors are returned as they are.
 */
function whichFileIsNotADatabase(error: unknown, paths: readonly string[]): unknown {
  if (!(error instanceof Database.SqliteError) || error.code !== 'SQLITE_NOTADB') return error;
  for (const path of paths) {
    const head = Buffer.alloc(SQLITE_HEADER.length);
    let read = 0;
    try {
      const fd = openSync(path, 'r');
      try {
        read = readSync(fd, head, 0, head.length, 0);
      } finally {
        closeSync(fd);
      }
    } catch {
      continue;
    }
    // An empty file is an empty database; anything else must start with the header.
    if (read > 0 && !head.equals(SQLITE_HEADER)) {
      return Object.assign(
        new Error(`${path} is not a SQLite database (restore it from a backup)`, { cause: error }),
        { code: error.code },
      );
    }
  }
  return error;
}

/**
 * Creates `path` empty, readable and writable by this user only, unless it exists: the accounts
 * file holds the webhooks' signing secrets (as it must, to sign), and SQLite gives its WAL and
 * shared-memory files the permissions of the database file. An empty file is an empty database.
 */
function createPrivately(path: string): void {
  try {
    closeSync(openSync(path, 'wx', 0o600));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
}

/**
 * Puts a file of the connection in WAL mode. A new file (a first start, a lost catalogue file)
 * switches once, which needs the file to itself: when another process is writing it (commands
 * started together on a new file), SQLite answers SQLITE_BUSY at once, without waiting through
 * the busy timeout (seen 1 in 120 with four `onair` commands started together on a lost
 * catalogue file; src/storage/sqlite/database.test.ts holds the lock on purpose). So the switch is
 * tried again, briefly, until that timeout; a file in WAL mode already takes no lock here.
 */
function useWriteAheadLog(db: SqliteDatabase, schema: string, busyTimeoutMs: number): void {
  const deadline = Date.now() + busyTimeoutMs;
  for (;;) {
    try {
      db.pragma(`${schema}.journal_mode = WAL`);
      return;
    } catch (error) {
      const busy = error instanceof Database.SqliteError && error.code === 'SQLITE_BUSY';
      if (!busy || Date.now() >= deadline) throw error;
      Atomics.wait(PAUSE, 0, 0, 5);
    }
  }
}

/** Waited on for a synchronous pause between tries (never notified). */
const PAUSE = new Int32Array(new SharedArrayBuffer(4));

/**
 * Whether the database at `path` lives in memory: it cannot be opened a second time, so work
 * that would run on a connection of its own (staging, search) runs on the store's.
 */
export function isInMemory(db: SqliteDatabase, path: string): boolean {
  return path === ':memory:' || path === '' || db.memory;
}

/**
 * Opens the catalogue file of the database at `path` on its own, as the main schema: an
 * ingest's connection, whose write transaction then locks the catalogue and nothing else.
 */
export function openCatalogueFile(path: string): SqliteDatabase {
  return new Database(cataloguePathFor(path), { fileMustExist: true });
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
 * Applies the migrations the database has not seen yet and returns them. Refuses a database
 * written by a newer Onair. Several processes may start on a new database at once: SQLite has
 * no lock to hold between transactions (PostgreSQL's advisory lock), so every pending step runs
 * in one write transaction and the version is read again under its lock; the others then find
 * nothing to do. A failing step leaves the database as it was.
 */
export function migrateSqlite(
  db: SqliteDatabase,
  nowMs: number,
  migrations: readonly SqliteMigration[] = SQLITE_MIGRATIONS,
): SqliteMigration[] {
  // Read first without the lock: an up-to-date database (every start) takes no write lock.
  let applied: SqliteMigration[] = [];
  if (pendingMigrations(currentSchemaVersion(db), migrations).length > 0) {
    applied = db
      .transaction(() => {
        const pending = pendingMigrations(currentSchemaVersion(db), migrations);
        ensureMigrationTable(db);
        for (const migration of pending) {
          if ('sql' in migration) db.exec(migration.sql);
          else migration.apply(db);
          db.prepare(
            'INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)',
          ).run(migration.version, migration.name, nowMs);
        }
        return pending;
      })
      .immediate();
  }
  if (currentSchemaVersion(db) >= CATALOGUE_FILE_VERSION) ensureCatalogueSchema(db);
  return applied;
}
