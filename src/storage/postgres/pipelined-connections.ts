import pg from 'pg';
import { poolSettings, type PostgresPoolOptions } from './database.js';

/** What the programme search asks of its connections: a query, and closing them. */
export interface QueryConnections {
  /**
   * Runs `config`; `alone`: on a connection of its own rather than in a batch, for a statement
   * that may take long (a walk), so that it holds up no other.
   */
  query<R extends pg.QueryResultRow>(
    config: pg.QueryConfig,
    options?: { alone?: boolean },
  ): Promise<pg.QueryResult<R>>;
  end(): Promise<void>;
  readonly ended: boolean;
}

/** A query not yet sent, and when its caller stops waiting. */
interface Waiting {
  readonly config: pg.QueryConfig;
  readonly deadline: number;
  resolve(result: pg.QueryResult): void;
  reject(error: unknown): void;
}

/** A connection, and how many queries sent on it are not answered yet. */
interface Lane {
  readonly client: pg.Client;
  broken: boolean;
  pending: number;
  drop(): void;
}

/**
 * A pool whose queries go out in batches: the queries waiting at the end of a turn of the event
 * loop are written together, in one write, `batch` at most, to an idle connection in
 * node-postgres's pipeline mode, whose backend answers them in order, each with its own result
 * or error (a Sync each); while every connection is busy they wait, and the first to finish
 * takes the next batch. A query sent `alone` is a batch of one.
 *
 * Why: on the 2-core guests the bench runs on, a search's write of its query to a pooled
 * connection was the largest single cost of the server's thread, as each wakes a backend asleep
 * on the other core (`writev` under `Query.submit` in `node bench/search.mjs --engines postgres
 * --cases rare --server-cpu-prof DIR`). Only idle connections take a batch, so a slow statement
 * holds up the queries of its own batch, never those that come after it; the search sends
 * alone the statements that can be slow (its walks into start times it knows nothing of). A
 * query past `timeoutMs` fails as unavailable (503), and so do the others of its batch, as the
 * connection is ended; the next batch goes to another.
 */
export function createPipelinedConnections(
  options: PostgresPoolOptions & { connections: number; batch: number },
): QueryConnections {
  if (!(options.connections >= 1)) throw new Error('At least one search connection is needed');
  const settings = { ...poolSettings(options), pipeline: true };
  const timeoutMs = settings.query_timeout;
  const lanes: (Lane | null)[] = Array.from({ length: options.connections }, () => null);
  // Queries waiting for an idle connection: those sent in batches, and those sent alone.
  const waiting: Waiting[] = [];
  const waitingAlone: Waiting[] = [];
  let sendScheduled = false;
  let ended = false;

  const open = (slot: number): Lane => {
    const client = new pg.Client(settings);
    const lane: Lane = {
      client,
      broken: false,
      pending: 0,
      drop() {
        if (lane.broken) return;
        lane.broken = true;
        if (lanes[slot] === lane) lanes[slot] = null;
        // node-postgres closes a pipelined connection once the queries sent on it are answered.
        client.end().catch(() => {});
        send();
      },
    };
    client.on('error', () => lane.drop());
    client.on('end', () => lane.drop());
    client.connect().catch(() => lane.drop());
    lanes[slot] = lane;
    return lane;
  };

  /** An idle connection, opened if need be; null while every one is busy. */
  const idleLane = (): Lane | null => {
    let free = -1;
    for (let slot = 0; slot < lanes.length; slot++) {
      const lane = lanes[slot];
      if (lane === null || lane === undefined) {
        if (free < 0) free = slot;
      } else if (lane.pending === 0) {
        return lane;
      }
    }
    return free < 0 ? null : open(free);
  };

  const run = async (lane: Lane, item: Waiting, remainingMs: number) => {
    lane.pending++;
    try {
      // What is left of the caller's wait (node-postgres reads a query's own `query_timeout`).
      const config: pg.QueryConfig & { query_timeout: number } = {
        ...item.config,
        query_timeout: remainingMs,
      };
      item.resolve(await lane.client.query(config));
    } catch (error) {
      // Not the server's answer (a timeout, a connection lost): the connection is ending, so
      // the next batch goes to another even before it says so.
      if (!(error instanceof pg.DatabaseError)) lane.drop();
      item.reject(error);
    } finally {
      lane.pending--;
      if (lane.pending === 0) send();
    }
  };

  /** The waiting queries, together, to an idle connection (if there is one). */
  const send = () => {
    while (!ended && waiting.length + waitingAlone.length > 0) {
      const lane = idleLane();
      if (lane === null) return;
      // The queue whose first query has waited longer goes first.
      const alone = waitingAlone[0];
      const batched = waiting[0];
      const aloneFirst =
        alone !== undefined && (batched === undefined || alone.deadline <= batched.deadline);
      sendBatch(lane, aloneFirst ? waitingAlone.splice(0, 1) : waiting.splice(0, options.batch));
    }
  };

  const sendBatch = (lane: Lane, batch: Waiting[]) => {
    const now = Date.now();
    // Before the connection is open node-postgres holds the queries and sends them on opening.
    const stream = lane.client.connection.stream;
    stream.cork();
    try {
      for (const item of batch) {
        const remainingMs = item.deadline - now;
        if (remainingMs > 0) void run(lane, item, remainingMs);
        else item.reject(new Error('Query read timeout: every search connection stayed busy'));
      }
    } finally {
      stream.uncork();
    }
  };

  return {
    query<R extends pg.QueryResultRow>(config: pg.QueryConfig, options?: { alone?: boolean }) {
      if (ended) return Promise.reject(new Error('The search connections are closed'));
      return new Promise<pg.QueryResult<R>>((resolve, reject) => {
        (options?.alone === true ? waitingAlone : waiting).push({
          config,
          deadline: Date.now() + timeoutMs,
          resolve: resolve as (result: pg.QueryResult) => void,
          reject,
        });
        if (!sendScheduled) {
          sendScheduled = true;
          setImmediate(() => {
            sendScheduled = false;
            send();
          });
        }
      });
    },
    get ended() {
      return ended;
    },
    async end() {
      ended = true;
      for (const item of [...waiting.splice(0), ...waitingAlone.splice(0)]) {
        item.reject(new Error('The search connections are closed'));
      }
      const open = lanes.filter((lane): lane is Lane => lane !== null);
      lanes.fill(null);
      await Promise.all(open.map((lane) => lane.client.end().catch(() => {})));
    },
  };
}
