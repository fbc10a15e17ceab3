import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openSqliteStore, type SqliteStore } from '../../src/storage/sqlite/sqlite-store.js';

/** A fresh SQLite store in its own temp directory, and how to throw it away. */
export interface TempStore {
  store: SqliteStore;
  dir: string;
  path: string;
  dispose(): Promise<void>;
}

export function openTempStore(nowMs = Date.now()): TempStore {
  const dir = mkdtempSync(join(tmpdir(), 'onair-test-'));
  const path = join(dir, 'onair.db');
  const store = openSqliteStore({ path, nowMs });
  return {
    store,
    dir,
    path,
    async dispose() {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
