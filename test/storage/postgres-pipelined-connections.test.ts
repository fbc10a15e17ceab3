import { createServer, Socket, type AddressInfo } from 'node:net';
import { setImmediate as nextTurn } from 'node:timers/promises';
import pg from 'pg';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { isStorageUnavailable } from '../../src/storage/errors.js';
import {
  createPipelinedConnections,
  type QueryConnections,
} from '../../src/storage/postgres/pipelined-connections.js';
import { ENGINES, TEST_POSTGRES_URL } from '../helpers/engines.js';

/**
 * The programme search's connections (pipelined-connections.ts): the queries of one turn of
 * the event loop pipelined on one connection, each answered on its own; a busy connection
 * passed over for the next turn; a failed or slow one replaced.
 */
describe.runIf(ENGINES.includes('postgres'))('pipelined search connections', () => {
  const opened: QueryConnections[] = [];
  const admin = new pg.Client({ connectionString: TEST_POSTGRES_URL });
  const connections = (timeoutMs = 3_000, count = 4, batch = 8) => {
    const made = createPipelinedConnections({
      url: TEST_POSTGRES_URL,
      timeoutMs,
      connections: count,
      batch,
    });
    opened.push(made);
    return made;
  };
  const pidOf = async (
    c: QueryConnections,
    sql = 'SELECT pg_backend_pid() AS pid',
    alone = false,
  ) => (await c.query<{ pid: number }>({ text: sql }, { alone })).rows[0]?.pid;
  afterEach(async () => {
    await Promise.all(opened.splice(0).map((c) => c.end()));
  });
  afterAll(async () => {
    await admin.end().catch(() => {});
  });

  it('sends the queries of one turn on one connection, each with its own answer', async () => {
    const c = connections();
    const answers = await Promise.all(
      [1, 2, 3, 4, 5, 6].map((n) =>
        c.query<{ pid: number; n: number }>({
          name: 'pid-and-n',
          text: 'SELECT pg_backend_pid() AS pid, $1::int AS n',
          values: [n],
        }),
      ),
    );
    expect(answers.map((a) => a.rows[0]?.n)).toEqual([1, 2, 3, 4, 5, 6]);
    expect(new Set(answers.map((a) => a.rows[0]?.pid)).size).toBe(1);
  });

  it('sends at most `batch` queries together, and those sent alone each on its own', async () => {
    const c = connections(3_000, 4, 4);
    const batched = Promise.all(Array.from({ length: 6 }, () => pidOf(c)));
    const alone = Promise.all(Array.from({ length: 2 }, () => pidOf(c, undefined, true)));
    const [b, a] = await Promise.all([batched, alone]);
    // Four together and two together; each alone on another connection.
    expect(new Set(b.slice(0, 4)).size).toBe(1);
    expect(new Set(b.slice(4)).size).toBe(1);
    expect(new Set([...b, ...a]).size).toBe(4);
  });

  it('writes the queries of one turn to the database together', async () => {
    // Writes to sockets whose far end is the database, as their streams hand them over (each
    // `_write` or `_writev` of a socket is one system call).
    const port = Number(new URL(TEST_POSTGRES_URL).port || 5432);
    let writes = 0;
    const proto = Socket.prototype as unknown as Record<
      '_write' | '_writev',
      (...args: unknown[]) => unknown
    >;
    const originals = { _write: proto._write, _writev: proto._writev };
    for (const method of ['_write', '_writev'] as const) {
      proto[method] = function (this: Socket, ...args: unknown[]) {
        if (this.remotePort === port) writes++;
        return Reflect.apply(originals[method], this, args);
      };
    }
    try {
      const c = connections(3_000, 1);
      await pidOf(c);
      const n = (i: number) =>
        c.query<{ n: number }>({ name: 'n', text: 'SELECT $1::int AS n', values: [i] });
      writes = 0;
      const answers = await Promise.all([1, 2, 3, 4, 5, 6].map(n));
      expect(answers.map((a) => a.rows)).toEqual([1, 2, 3, 4, 5, 6].map((i) => [{ n: i }]));
      expect(writes).toBe(1);
      // Queries of separate turns, each waiting for the one before: a write each.
      writes = 0;
      for (const i of [1, 2, 3]) await n(i);
      expect(writes).toBe(3);
    } finally {
      Object.assign(proto, originals);
    }
  });

  it('sends a turn to an idle connection; while none is, its queries wait for the first free', async () => {
    const c = connections(3_000, 2);
    const timed = async (sql: string) => {
      const pid = await pidOf(c, sql);
      return { pid, at: Date.now() };
    };
    const started = Date.now();
    const slow = timed('SELECT pg_backend_pid() AS pid FROM pg_sleep(1)');
    await nextTurn();
    const short = timed('SELECT pg_backend_pid() AS pid FROM pg_sleep(0.1)');
    await nextTurn();
    // Both are busy: it waits, then goes to the one that is free first, not behind the slow one.
    const third = timed('SELECT pg_backend_pid() AS pid');
    const [a, b, t] = await Promise.all([slow, short, third]);
    expect(a.pid).not.toBe(b.pid);
    expect(t.pid).toBe(b.pid);
    expect(t.at - started).toBeLessThan(800);
    expect(a.at - started).toBeGreaterThanOrEqual(1_000);
  });

  it('answers each query of a turn on its own when one of them fails', async () => {
    const c = connections();
    const results = await Promise.allSettled([
      c.query<{ n: number }>({ text: 'SELECT 1 AS n' }),
      c.query({ text: 'SELECT 1 / 0' }),
      c.query<{ n: number }>({ text: 'SELECT 2 AS n' }),
    ]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect(results[1]?.status === 'rejected' && results[1].reason.code).toBe('22012');
    expect(results[2]?.status === 'fulfilled' && results[2].value.rows).toEqual([{ n: 2 }]);
  });

  it('fails a query past its time as unavailable, and goes on on a new connection', async () => {
    const c = connections(200, 1);
    const before = await pidOf(c);
    const slow = c.query({ text: 'SELECT pg_sleep(1)' });
    const behind = c.query({ text: 'SELECT 1' });
    await expect(slow).rejects.toSatisfy(isStorageUnavailable);
    await expect(behind).rejects.toSatisfy(isStorageUnavailable);
    const after = await pidOf(c);
    expect(after).toEqual(expect.any(Number));
    expect(after).not.toBe(before);
  });

  it('replaces a connection the server ended', async () => {
    const c = connections(3_000, 1);
    const before = await pidOf(c);
    await admin.connect();
    await admin.query('SELECT pg_terminate_backend($1)', [before]);
    await expect
      .poll(async () => pidOf(c).catch((error: unknown) => isStorageUnavailable(error)), {
        timeout: 3_000,
        interval: 20,
      })
      .toSatisfy((pid) => typeof pid === 'number' && pid !== before);
  });

  it('fails quickly as unavailable where nothing answers, and after it is closed', async () => {
    // A port that accepts and never answers, and one that refuses.
    const silent = createServer(() => {});
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const { port } = silent.address() as AddressInfo;
    try {
      for (const url of [`postgres://x@127.0.0.1:${port}/x`, 'postgres://x@127.0.0.1:1/x']) {
        const c = createPipelinedConnections({ url, timeoutMs: 200, connections: 2, batch: 8 });
        opened.push(c);
        const started = Date.now();
        await expect(c.query({ text: 'SELECT 1' })).rejects.toSatisfy(isStorageUnavailable);
        expect(Date.now() - started).toBeLessThan(2_000);
      }
    } finally {
      silent.close();
    }
    const c = connections();
    await pidOf(c);
    await c.end();
    expect(c.ended).toBe(true);
    await expect(c.query({ text: 'SELECT 1' })).rejects.toThrow(/closed/);
  });
});
