import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openSqliteStore, type SqliteStore } from '../../src/storage/sqlite/sqlite-store.js';

/** A fresh SQLite store in its own temp directory, raw SQL under it, and how to throw it away. */
export interface TempStore {
  engine: 'sqlite';
  store: SqliteStore;
  dir: string;
  path: string;
  /** DATABASE_URL of this store: its file. */
  databaseUrl: string;
  /** Runs one raw statement; returns its rows as better-sqlite3 gives them (none for a write). */
  sql(text: string): Promise<Record<string, unknown>[]>;
  dispose(): Promise<void>;
}

export function openTempStore(nowMs = Date.now()): TempStore {
  const dir = mkdtempSync(join(tmpdir(), 'onair-test-'));
  const path = join(dir, 'onair.db');
  const store = openSqliteStore({ path, nowMs });
  return {
    engine: 'sqlite',
    store,
    dir,
    path,
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
