import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { currentSchemaVersion, migrateSqlite, openSqliteDatabase } from './database.js';
import { SQLITE_MIGRATIONS, type SqliteMigration } from './migrations.js';

const NOW = Date.UTC(2026, 10, 1);
let dir: string;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'onair-migrate-'));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

const broken: SqliteMigration = {
  version: 3,
  name: 'a step that fails half-way',
  sql: 'CREATE TABLE half_made (a INTEGER); SELECT no_such_column FROM half_made',
};

describe('migrateSqlite', () => {
  it('applies the pending steps together: a failing step leaves the database as it was', () => {
    const db = openSqliteDatabase(join(dir, 'onair.db'));
    try {
      const firstTwo = SQLITE_MIGRATIONS.filter((m) => m.version <= 2);
      // From nothing: steps 1 and 2 would succeed, 3 fails, so none of them stays.
      expect(() => migrateSqlite(db, NOW, [...firstTwo, broken])).toThrow(/no_such_column/);
      expect(currentSchemaVersion(db)).toBe(0);
      const tables = () =>
        db.prepare(`SELECT name FROM main.sqlite_master WHERE type = 'table'`).pluck().all();
      expect(tables()).toEqual([]);

      // From version 2: it stays at 2, without the failed step's table.
      expect(migrateSqlite(db, NOW, firstTwo).map((m) => m.version)).toEqual([1, 2]);
      expect(() => migrateSqlite(db, NOW, [...firstTwo, broken])).toThrow(/no_such_column/);
      expect(currentSchemaVersion(db)).toBe(2);
      expect(tables()).not.toContain('half_made');

      // Then the real steps go on from there, and a second run finds nothing to do.
      const applied = migrateSqlite(db, NOW).map((m) => m.version);
      expect(applied[0]).toBe(3);
      expect(migrateSqlite(db, NOW)).toEqual([]);
    } finally {
      db.close();
    }
  });
});

describe('openSqliteDatabase', () => {
  it('makes new files, their WAL included, and their folder for this user only', () => {
    const path = join(dir, 'data', 'onair.db');
    const db = openSqliteDatabase(path);
    try {
      db.exec('CREATE TABLE t (a); INSERT INTO t VALUES (1)');
      const modes = ['onair.db', 'onair.catalogue.db', 'onair.db-wal'].map(
        (name) => statSync(join(dir, 'data', name)).mode & 0o777,
      );
      expect(modes).toEqual([0o600, 0o600, 0o600]);
      expect(statSync(join(dir, 'data')).mode & 0o777).toBe(0o700);
    } finally {
      db.close();
    }
  });

  it('says which of its two files is not a database, so the right one is restored', () => {
    const path = join(dir, 'onair.db');
    openSqliteDatabase(path).close();
    const garbage = Buffer.alloc(8192, 0x5a);
    for (const name of ['onair.catalogue.db', 'onair.db']) {
      const file = join(dir, name);
      const kept = readFileSync(file);
      writeFileSync(file, garbage);
      expect(() => openSqliteDatabase(path)).toThrow(
        expect.objectContaining({
          message: `${file} is not a SQLite database (restore it from a backup)`,
          code: 'SQLITE_NOTADB',
        }),
      );
      writeFileSync(file, kept);
    }
    openSqliteDatabase(path).close();
  });

  // Switching a new file to WAL needs it to itself, and SQLite does not wait for that on its
  // own: another process writing the file at that moment (commands started together on a new
  // file) made the open fail at once with "database is locked".
  it('waits for another process writing a new file before switching it to WAL', async () => {
    const path = join(dir, 'onair.catalogue.db');
    new Database(path).exec('CREATE TABLE t (a INTEGER)').close();
    // A writer in another process (the wait blocks this thread) holds the lock for 300 ms.
    const holder = fileURLToPath(
      new URL('../../../test/helpers/hold-sqlite-write-lock.mjs', import.meta.url),
    );
    const writer = spawn(process.execPath, [holder, path, '300'], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    await once(writer.stdout, 'data');
    const db = openSqliteDatabase(join(dir, 'onair.db'), 5_000);
    try {
      expect(db.pragma('catalogue.journal_mode', { simple: true })).toBe('wal');
    } finally {
      db.close();
      await once(writer, 'exit');
    }
  });
});
