import pg from 'pg';
import { poolSettings, type PostgresPoolOptions } from './database.js';

/** What the programme search asks of its connections: a query, and closing them. */
export interface QueryConnections {
  query<R extends pg.QueryResultRow>(config: pg.QueryConfig): Promise<pg.QueryResult<R>>;
  end(): Promise<void>;
  readonly ended: boolean;
}

/** A connection and the queries sent on it not yet answered. */
interface Lane {
  readonly client: pg.Client;
  connected: boolean;
  broken: boolean;
  pending: number;
  drop(): void;
}

/**
 * A few connections in pipeline mode (node-postgres's `pipeline`: a query is sent without
 * waiting for the one before it), the queries of one turn of the event loop written to one of
 * them together. On the 2-core guests the bench runs on, a search's write of its query to a
 * pooled connection was the largest single cost of the server's thread: each write wakes a
 * backend asleep on another core (`writev` under `Query.submit`, `node bench/search.mjs
 * --engines postgres --cases rare --server-cpu-prof DIR`); here one write and one wake-up carry
 * every query of the turn. The backend answers them in order, each with its own result and
 * error (a Sync each). A lane whose connection fails is dropped and a new one opened for the
 * next turn; a query that outlives `timeoutMs` ends its connection, failing the queries behind
 * it (the pool's rule: a slow database answers 503 soon rather than never).
 */
export function createPipelinedConnections(
  options: PostgresPoolOptions & { connections: number },
): QueryConnections {
  if (!(options.connections >= 1)) throw new Error('At least one search connection is needed');
  const lanes: (Lane | null)[] = Array.from({ length: options.connections }, () => null);
  let ended = false;
  // The lane this turn's queries go to, its stream corked until the turn ends.
  let turn: Lane | null = null;

  const open = (slot: number): Lane => {
    const client = new pg.Client({ ...poolSettings(options), pipeline: true });
    const lane: Lane = {
      client,
      connected: false,
      broken: false,
      pending: 0,
      drop() {
        if (lane.broken) return;
        lane.broken = true;
        if (lanes[slot] === lane) lanes[slot] = null;
        // node-postgres closes a pipelined connection once the queries sent on it are answered.
        client.end().catch(() => {});
      },
    };
    client.on('error', () => lane.drop());
    client.on('end', () => lane.drop());
    client.connect().then(
      () => (lane.connected = true),
      () => lane.drop(),
    );
    lanes[slot] = lane;
    return lane;
  };

  /** The least busy lane, opening one where a slot is free and every open lane is busy. */
  const pick = (): Lane => {
    let best: Lane | null = null;
    let free = -1;
    for (let slot = 0; slot < lanes.length; slot++) {
      const lane = lanes[slot];
      if (lane === null || lane === undefined) {
        if (free < 0) free = slot;
      } else if (best === null || lane.pending < best.pending) {
        best = lane;
      }
    }
    if (free >= 0 && (best === null || best.pending > 0)) return open(free);
    return best as Lane;
  };

  const laneOfTurn = (): Lane => {
    if (turn !== null && !turn.broken) return turn;
    const lane = pick();
    turn = lane;
    const stream = lane.connected ? lane.client.connection.stream : null;
    stream?.cork();
    setImmediate(() => {
      if (turn === lane) turn = null;
      stream?.uncork();
    });
    return lane;
  };

  return {
    async query<R extends pg.QueryResultRow>(config: pg.QueryConfig) {
      if (ended) throw new Error('The search connections are closed');
      const lane = laneOfTurn();
      lane.pending++;
      try {
        return await lane.client.query<R>(config);
      } catch (error) {
        // Not the server's answer (a timeout, a connection lost): the connection is ending, so
        // the next turn's queries go to another even before it says so.
        if (!(error instanceof pg.DatabaseError)) lane.drop();
        throw error;
      } finally {
        lane.pending--;
      }
    },
    get ended() {
      return ended;
    },
    async end() {
      ended = true;
      const open = lanes.filter((lane): lane is Lane => lane !== null);
      lanes.fill(null);
      await Promise.all(open.map((lane) => lane.client.end().catch(() => {})));
    },
  };
}
