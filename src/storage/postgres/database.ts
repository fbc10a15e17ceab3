import pg from 'pg';
import { pendingMigrations } from '../schema-migration.js';
import { POSTGRES_MIGRATIONS, type PostgresMigration } from './migrations.js';

// BIGINT (int8) columns hold epoch milliseconds and counts, all far below 2^53: read them as
// numbers rather than pg's default strings.
export const int8AsNumber = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
    oid === pg.types.builtins.INT8
      ? (value: string) => Number(value)
      : pg.types.getTypeParser(oid, format ?? 'text')) as typeof pg.types.getTypeParser,
};

export interface PostgresPoolOptions {
  url: string;
  /** How long a request waits for a connection or a statement before it fails (ms). */
  timeoutMs?: number;
  max?: number;
  /**
   * Every statement with parameters is planned once per connection and the plan reused
   * whatever the values (`plan_cache_mode = force_generic_plan`): for the search's statements
   * only, whose plans were checked to keep their shape for any values (catalogue-reader.ts).
   */
  planOnce?: boolean;
}

/**
 * The settings of every connection that serves requests (the pool's, the search's): each
 * fails within a bounded time, so an unreachable database turns into a quick 503 rather than a
 * hanging request.
 */
export function poolSettings(
  options: PostgresPoolOptions,
): pg.ClientConfig & { query_timeout: number } {
  const timeoutMs = options.timeoutMs ?? 3_000;
  return {
    connectionString: options.url,
    connectionTimeoutMillis: timeoutMs,
    query_timeout: timeoutMs,
    types: int8AsNumber,
    // The reads are short and indexed, but a guide grid's many channels make the planner expect
    // tens of thousands of rows: it then compiles the query (JIT) and starts parallel workers,
    // which took 45 ms of a 10 ms read (a 500-channel grid on the bench catalogue, EXPLAIN
    // ANALYZE; bench/http.mjs --engines postgres, cold guide). A URL's own `options` wins.
    options: `-c jit=off -c max_parallel_workers_per_gather=0${
      options.planOnce === true ? ' -c plan_cache_mode=force_generic_plan' : ''
    }`,
  };
}

/** A pool of connections with poolSettings; it reconnects by itself. */
export function createPostgresPool(options: PostgresPoolOptions): pg.Pool {
  const pool = new pg.Pool({
    ...poolSettings(options),
    max: options.max ?? 10,
    idleTimeoutMillis: 30_000,
  });
  // An idle connection that dies (database restart) is dropped; the next query makes a new one.
  pool.on('error', () => {});
  return pool;
}

/** A connection of its own, without a statement timeout (ingest merges can take a while). */
export async function connectPostgresClient(url: string, timeoutMs = 3_000): Promise<pg.Client> {
  const client = new pg.Client({
    connectionString: url,
    connectionTimeoutMillis: timeoutMs,
    types: int8AsNumber,
  });
  client.on('error', () => {});
  await client.connect();
  return client;
}

/** A lock number of our own, so only one instance migrates at a time. */
const MIGRATION_LOCK = 0x6f6e6169; // "onai"

/**
 * Applies the migrations the database has not seen yet, each in its own transaction, under an
 * advisory lock (several instances may start at once). Refuses a database from a newer Onair.
 */
export async function migratePostgres(
  pool: pg.Pool,
  nowMs: number,
  migrations: readonly PostgresMigration[] = POSTGRES_MIGRATIONS,
): Promise<PostgresMigration[]> {
  // A connection of their own with the pool's settings but not its statement timeout: a step
  // over a large catalogue (an index built, a column filled for 2 million programmes) takes
  // minutes, not the seconds a request may wait.
  const client = new pg.Client({ ...pool.options, query_timeout: undefined });
  client.on('error', () => {});
  await client.connect();
  try {
    await client.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK]);
    await client.query(`CREATE TABLE IF NOT EXISTS schema_migrations (
      version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at BIGINT NOT NULL)`);
    const { rows } = await client.query<{ version: number | null }>(
      'SELECT max(version) AS version FROM schema_migrations',
    );
    const current = rows[0]?.version ?? 0;
    const pending = pendingMigrations(current, migrations);
    for (const migration of pending) {
      await client.query('BEGIN');
      try {
        await client.query(migration.sql);
        if (migration.fill !== undefined) await migration.fill(client);
        await client.query(
          'INSERT INTO schema_migrations (version, name, applied_at) VALUES ($1, $2, $3)',
          [migration.version, migration.name, nowMs],
        );
        await client.query('COMMIT');
      } catch (error) {
        await client.query('ROLLBACK');
        throw error;
      }
    }
    return pending;
  } finally {
    await client.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK]).catch(() => {});
    await client.end();
  }
}
