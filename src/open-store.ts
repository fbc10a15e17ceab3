import type { Config } from './config.js';
import type { Store } from './storage/store.js';

/** Reads the time; injected so tests can move it. */
export type Clock = () => number;

export const systemClock: Clock = () => Date.now();

/**
 * How long the server's SQLite writes (a sign-in link, a new key) wait for another process's
 * write lock on the accounts file (an ingest locks only the catalogue file). The wait blocks
 * every request of the process, and a command or a backup may hold the lock for a while: past
 * this, the write answers 503 and the client tries again.
 */
export const SERVING_BUSY_TIMEOUT_MS = 250;

/** Opens the store the configuration names, migrated and ready; `serving` for the server. */
export async function openStore(
  config: Config,
  now: Clock = systemClock,
  options: { serving?: boolean } = {},
): Promise<Store> {
  // Only the engine in use is loaded: a CLI command starts without the other's driver.
  if (config.database.engine === 'postgres') {
    const { openPostgresStore } = await import('./storage/postgres/postgres-store.js');
    return openPostgresStore({ url: config.database.url, nowMs: now() });
  }
  const { openSqliteStore } = await import('./storage/sqlite/sqlite-store.js');
  return openSqliteStore({
    path: config.database.path,
    nowMs: now(),
    ...(options.serving === true ? { busyTimeoutMs: SERVING_BUSY_TIMEOUT_MS } : {}),
  });
}
