import pg from 'pg';
import type { DataVersions } from '../store.js';
import { int8AsNumber } from './database.js';

/** The channel the version triggers notify on (migration 3). */
export const DATA_CHANGED_CHANNEL = 'onair_data_changed';

export interface PostgresDataVersionsOptions {
  url: string;
  /** Where versions are read when they must be (the store's pool). */
  pool: pg.Pool;
  /** Versions are read again this often even without a notification: the backstop. */
  refreshMs?: number;
  /** First and longest wait before the listener reconnects (ms). */
  reconnectMs?: { min: number; max: number };
}

/** The data versions of a PostgreSQL store, kept in memory while notifications arrive. */
export interface PostgresDataVersions {
  read(): Promise<DataVersions>;
  /** Forgets the versions held: this instance has just written (it may not wait for its own notification). */
  invalidate(): void;
  /**
   * Resolves once every change committed before the call has been notified here: one round trip
   * on the listening connection, which PostgreSQL answers only after delivering the
   * notifications pending for it. For writes made under the store (tests, tools).
   */
  sync(): Promise<void>;
  /** True while the listener connection is up and versions come from memory. */
  readonly listening: boolean;
  close(): Promise<void>;
}

const VERSIONS_SQL = `SELECT (SELECT version FROM catalogue_state) AS catalogue,
  (SELECT version FROM auth_state) AS auth`;

/**
 * Keeps the catalogue and auth versions in memory so that a request costs no round trip: one
 * connection LISTENs on `onair_data_changed`, which the version triggers notify at every
 * commit, by any writer. A notification (or this instance's own write) makes the next request
 * read the versions once (requests arriving meanwhile share that read). While the listener is
 * down every request reads the versions itself, as exact as before, and the listener
 * reconnects with backoff. As a backstop against a notification lost in a way nobody noticed,
 * the versions are also re-read every `refreshMs` in the background; when that read fails,
 * requests go back to reading the versions themselves, so an instance that lost its database
 * answers 503 within `refreshMs` at most (at once when the listener's connection drops).
 *
 * The bound: another instance's change is seen once its notification arrives (a fraction of a
 * millisecond on one network; measured by test/cluster/two-instances.test.ts), and at the latest
 * after `refreshMs`. This instance's own writes are seen by its next request.
 */
export async function watchPostgresDataVersions(
  options: PostgresDataVersionsOptions,
): Promise<PostgresDataVersions> {
  const refreshMs = options.refreshMs ?? 1_000;
  const reconnect = options.reconnectMs ?? { min: 100, max: 5_000 };
  let listener: pg.Client | null = null;
  let closed = false;
  let reconnectDelay = reconnect.min;
  let reconnectTimer: NodeJS.Timeout | null = null;
  /** Counts notifications (and own writes); held versions are good only if read after the last. */
  let changes = 0;
  let held: { versions: Promise<DataVersions>; asOf: number } | null = null;
  let reading: { versions: Promise<DataVersions>; asOf: number } | null = null;

  async function query(): Promise<DataVersions> {
    const { rows } = await options.pool.query<{ catalogue: number; auth: number }>(VERSIONS_SQL);
    const row = rows[0];
    return { catalogue: String(row?.catalogue ?? 0), auth: String(row?.auth ?? 0) };
  }

  /** Reads the versions as of now, sharing a read that started after the last change. */
  function refresh(): Promise<DataVersions> {
    const asOf = changes;
    if (reading !== null && reading.asOf === asOf) return reading.versions;
    const versions = query();
    const attempt = { versions, asOf };
    reading = attempt;
    versions.then(
      () => {
        if (held === null || asOf >= held.asOf) held = attempt;
        if (reading === attempt) reading = null;
      },
      () => {
        if (reading === attempt) reading = null;
      },
    );
    return versions;
  }

  function drop(client: pg.Client): void {
    if (listener !== client) return;
    listener = null;
    held = null;
    client.removeAllListeners('notification');
    void client.end().catch(() => undefined);
    scheduleReconnect();
  }

  function scheduleReconnect(): void {
    if (closed || reconnectTimer !== null) return;
    reconnectTimer = setTimeout(() => {
      reconnectTimer = null;
      void listen();
    }, reconnectDelay);
    reconnectTimer.unref();
    reconnectDelay = Math.min(reconnect.max, reconnectDelay * 2);
  }

  async function listen(): Promise<void> {
    const client = new pg.Client({
      connectionString: options.url,
      connectionTimeoutMillis: 3_000,
      keepAlive: true,
      types: int8AsNumber,
    });
    client.on('error', () => drop(client));
    client.on('end', () => drop(client));
    client.on('notification', () => {
      changes++;
    });
    try {
      await client.connect();
      await client.query(`LISTEN ${DATA_CHANGED_CHANNEL}`);
    } catch {
      void client.end().catch(() => undefined);
      scheduleReconnect();
      return;
    }
    if (closed) {
      await client.end().catch(() => undefined);
      return;
    }
    // Anything read before the LISTEN took effect may be stale.
    changes++;
    listener = client;
    reconnectDelay = reconnect.min;
  }

  const backstop = setInterval(() => {
    if (listener === null) return;
    refresh().catch(() => {
      // The database does not answer: until it does, every request asks it (and gets its 503).
      held = null;
    });
  }, refreshMs);
  backstop.unref();

  await listen();

  return {
    read() {
      if (listener === null) return query();
      if (held !== null && held.asOf === changes) return held.versions;
      return refresh();
    },
    invalidate() {
      changes++;
    },
    async sync() {
      const client = listener;
      if (client === null) return;
      try {
        await client.query('SELECT 1');
      } catch {
        changes++;
      }
    },
    get listening() {
      return listener !== null;
    },
    async close() {
      closed = true;
      clearInterval(backstop);
      if (reconnectTimer !== null) clearTimeout(reconnectTimer);
      const client = listener;
      listener = null;
      if (client !== null) await client.end().catch(() => undefined);
    },
  };
}
