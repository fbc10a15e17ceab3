import { redactConnectionUrl, type Config } from './config.js';
import { SchemaVersionError } from './storage/errors.js';
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

/**
 * The store could not be opened (the server is unreachable, a password refused, a database
 * missing, a file that cannot be written): the message names the database and DATABASE_URL,
 * without a password, before the driver's own words, which name neither. The driver's `code`
 * is kept for the CLI's description of write failures.
 */
export class StoreOpenError extends Error {
  override name = 'StoreOpenError';
  readonly code: unknown;

  constructor(config: Config, cause: unknown) {
    const database =
      config.database.engine === 'postgres'
        ? `PostgreSQL database ${redactConnectionUrl(config.database.url)}`
        : `SQLite database ${config.database.path}`;
    super(`cannot open the ${database} (DATABASE_URL): ${(cause as Error).message}`, { cause });
    this.code = (cause as { code?: unknown }).code;
  }
}

/** Opens the store the configuration names, migrated and ready; `serving` for the server. */
export async function openStore(
  config: Config,
  now: Clock = systemClock,
  options: { serving?: boolean } = {},
): Promise<Store> {
  try {
    // Only the engine in use is loaded: a CLI command starts without the other's driver.
    if (config.database.engine === 'postgres') {
      const { openPostgresStore } = await import('./storage/postgres/postgres-store.js');
      return await openPostgresStore({ url: config.database.url, nowMs: now() });
    }
    const { openSqliteStore } = await import('./storage/sqlite/sqlite-store.js');
    return await openSqliteStore({
      path: config.database.path,
      nowMs: now(),
      ...(options.serving === true ? { busyTimeoutMs: SERVING_BUSY_TIMEOUT_MS } : {}),
    });
  } catch (error) {
    // Already says what to do (a newer schema than this Onair knows).
    if (error instanceof SchemaVersionError) throw error;
    throw new StoreOpenError(config, error);
  }
}
