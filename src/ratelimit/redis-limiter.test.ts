import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  SHARED_REDIS_URL,
  throwAwayRedis,
  type RedisProcess,
} from '../../test/helpers/redis-process.js';
import { createMemoryRateLimiter } from './memory-limiter.js';
import {
  connectRedis,
  createRedisRateLimiter,
  redisStartProblem,
  type LimiterLog,
  type RedisLink,
} from './redis-limiter.js';
import type { RateLimiter } from './types.js';

function recordingLog() {
  const lines: string[] = [];
  const log: LimiterLog = {
    warn: (_obj, msg) => lines.push(`warn ${msg}`),
    info: (_obj, msg) => lines.push(`info ${msg}`),
  };
  return { log, lines };
}

/** Waits until the start of the next 1-second window, with margin, so a burst fits in one. */
async function atWindowStart(): Promise<void> {
  await new Promise((r) => setTimeout(r, 1000 - (Date.now() % 1000) + 30));
}

const clients: Redis[] = [];
/**
 * A client as the server makes it; `commandTimeoutMs` as the server's (100 ms) unless given. The
 * tests that watch what Redis receives give a long one: a turn of thousands of hits, watched by
 * MONITOR on a loaded 2-core machine, once kept a command sent after it waiting over 100 ms.
 */
async function client(url: string, commandTimeoutMs?: number): Promise<Redis> {
  const redis = await connectRedis(url, commandTimeoutMs);
  clients.push(redis);
  return redis;
}
afterAll(() => {
  for (const redis of clients) redis.disconnect();
});

/**
 * Watches what Redis receives (MONITOR, which also shows the commands a script runs): returns a
 * function that gives the script calls naming a key of `prefix` received so far, after every
 * command `redis` sent before it (Redis runs commands in order, so a marker sent last is seen
 * last).
 */
async function callsReceived(redis: Redis, prefix: string): Promise<() => Promise<string[][]>> {
  const monitor = await redis.monitor();
  clients.push(monitor);
  const received: string[][] = [];
  const marker = `end ${prefix}`;
  let markerSeen = false;
  monitor.on('monitor', (_time: string, args: string[]) => {
    if (args.includes(marker)) markerSeen = true;
    else if (/^eval/i.test(args[0] ?? '') && args.some((arg) => arg.startsWith(prefix))) {
      received.push(args);
    }
  });
  return async () => {
    await redis.echo(marker);
    await expect.poll(() => markerSeen).toBe(true);
    return received;
  };
}

/** A limiter over `redis` with a window of a minute, long enough for a test's turns. */
function minuteLimiter(redis: Redis, prefix: string): RateLimiter {
  return createRedisRateLimiter({
    redis,
    windowMs: 60_000,
    prefix,
    fallback: createMemoryRateLimiter(60_000, () => Date.now()),
    log: recordingLog().log,
  });
}

async function instance(
  url: string,
  prefix: string,
  log: LimiterLog,
  metrics?: { fallback: number },
) {
  return createRedisRateLimiter({
    redis: await client(url),
    windowMs: 1000,
    prefix,
    fallback: createMemoryRateLimiter(1000, () => Date.now()),
    log,
    metrics: metrics && {
      fallbackDecision: () => metrics.fallback++,
      redisUp: () => {},
    },
  });
}

describe('Redis limiter (shared Redis)', () => {
  it('admits exactly the limit per window across instances, window after window', async () => {
    const prefix = `onair-test:${randomUUID()}:`;
    const { log, lines } = recordingLog();
    const a = await instance(SHARED_REDIS_URL, prefix, log);
    const b = await instance(SHARED_REDIS_URL, prefix, log);
    for (let round = 0; round < 3; round++) {
      await atWindowStart();
      const decisions = await Promise.all(
        Array.from({ length: 20 }, (_, i) => (i % 2 === 0 ? a : b).hit('account:1', 3)),
      );
      expect(decisions.filter((d) => d.allowed)).toHaveLength(3);
      for (const d of decisions) {
        expect(d.resetMs).toBeGreaterThan(0);
        expect(d.resetMs).toBeLessThanOrEqual(1000);
      }
      // Another account has its own budget.
      expect((await b.hit('account:2', 3)).allowed).toBe(true);
    }
    expect(lines).toEqual([]);
  });

  it('sends the hits of one turn of the event loop as one command, each with its own answer', async () => {
    const prefix = `onair-test:${randomUUID()}:`;
    const redis = await client(SHARED_REDIS_URL, 10_000);
    const calls = await callsReceived(redis, prefix);
    const limiter = minuteLimiter(redis, prefix);
    const hits = Array.from({ length: 5 }, (_, i) => limiter.hit(`account:${i % 2}`, 2));
    const decisions = await Promise.all(hits);
    // Each hit has the count it would have had alone, in the order the hits came.
    expect(decisions.map((d) => [d.allowed, d.remaining])).toEqual([
      [true, 1],
      [true, 1],
      [true, 0],
      [true, 0],
      [false, 0],
    ]);
    for (const d of decisions) {
      expect(d.resetMs).toBeGreaterThan(0);
      expect(d.resetMs).toBeLessThanOrEqual(60_000);
    }
    // The next turn goes on from the counts of the one before.
    expect(await limiter.hit('account:1', 3)).toMatchObject({ allowed: true, remaining: 0 });
    const received = await calls();
    expect(received).toHaveLength(2);
    expect(received[0]).toEqual(
      expect.arrayContaining([`${prefix}account:0`, `${prefix}account:1`, '3', '2']),
    );
  });

  it('splits a turn of thousands of keys into calls of a thousand', async () => {
    const prefix = `onair-test:${randomUUID()}:`;
    const redis = await client(SHARED_REDIS_URL, 10_000);
    const calls = await callsReceived(redis, prefix);
    const limiter = minuteLimiter(redis, prefix);
    // 2,500 addresses, one of them three times among the others.
    const keys = Array.from({ length: 2_500 }, (_, i) => `ip:${i}`);
    keys.splice(1_200, 0, 'ip:7');
    keys.splice(2_400, 0, 'ip:7');
    const decisions = await Promise.all(keys.map((key) => limiter.hit(key, 2)));
    const seven = decisions.filter((_, i) => keys[i] === 'ip:7');
    expect(seven.map((d) => [d.allowed, d.remaining])).toEqual([
      [true, 1],
      [true, 0],
      [false, 0],
    ]);
    expect(decisions.filter((d) => d.allowed && d.remaining === 1)).toHaveLength(2_500);
    expect((await calls()).map((args) => args[2])).toEqual(['1000', '1000', '500']);
  });

  it('keeps counters only for one window', async () => {
    const prefix = `onair-test:${randomUUID()}:`;
    const { log } = recordingLog();
    const limiter = await instance(SHARED_REDIS_URL, prefix, log);
    await limiter.hit('account:x', 3);
    const admin = await client(SHARED_REDIS_URL);
    const keys = await admin.keys(`${prefix}*`);
    expect(keys).toHaveLength(1);
    const ttl = await admin.pttl(keys[0] ?? '');
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(1000);
  });
});

describe('Redis limiter when Redis fails (throw-away redis-server)', () => {
  let redis: RedisProcess;
  let limiter: RateLimiter;
  const { log, lines } = recordingLog();
  const metrics = { fallback: 0 };

  beforeAll(async () => {
    redis = await throwAwayRedis();
    await redis.start();
    limiter = await instance(redis.url, 'onair-test:', log, metrics);
  });
  afterEach(() => {
    lines.length = 0;
    metrics.fallback = 0;
  });
  afterAll(async () => {
    await redis.stop();
  });

  it('falls back to the local limiter when Redis stops, logs once, and returns when it is back', async () => {
    expect((await limiter.hit('a', 3)).allowed).toBe(true);
    await redis.stop();
    await atWindowStart();
    const started = Date.now();
    const decisions = [];
    for (let i = 0; i < 5; i++) decisions.push(await limiter.hit('a', 3));
    expect(Date.now() - started).toBeLessThan(1000); // no request waits on the dead Redis
    expect(decisions.map((d) => d.allowed)).toEqual([true, true, true, false, false]);
    expect(lines).toEqual([
      'warn rate limiter: Redis did not answer; each instance limits on its own until it does',
    ]);
    expect(metrics.fallback).toBe(5);

    await redis.start();
    await expect
      .poll(
        async () => {
          await limiter.hit('probe', 1000);
          return lines.at(-1);
        },
        { timeout: 5_000, interval: 100 },
      )
      .toBe('info rate limiter: Redis answers again; the fleet-wide budget is back');
  });

  it('falls back when Redis is slow (CLIENT PAUSE), within the 100 ms command timeout', async () => {
    const admin = await client(redis.url);
    await expect.poll(() => admin.ping().catch(() => 'down')).toBe('PONG');
    await limiter.hit('b', 3);
    await admin.call('CLIENT', 'PAUSE', '1500', 'ALL');
    const started = Date.now();
    const decision = await limiter.hit('b', 3);
    expect(Date.now() - started).toBeLessThan(600);
    expect(decision.allowed).toBe(true);
    expect(metrics.fallback).toBe(1);
    // A turn's hits fall back together, each counted by the local limiter in turn.
    const burst = await Promise.all([1, 2, 3].map(() => limiter.hit('b', 3)));
    expect(burst.map((d) => [d.allowed, d.remaining])).toEqual([
      [true, 1],
      [true, 0],
      [false, 0],
    ]);
    expect(metrics.fallback).toBe(4);
    expect(lines[0]).toMatch(/^warn /);
  });
});

describe("an instance's limiters and their link to Redis", () => {
  /** A client whose every call fails while `down`, else counts each key's hits from zero. */
  function flakyClient() {
    const state = { down: true };
    const client = {
      defineCommand: () => {},
      onairHits: async (args: (string | number)[]) => {
        if (state.down) throw new Error('connect ECONNREFUSED');
        const keys = Number(args[0]);
        return [1000, ...args.slice(2 + keys).map(Number)];
      },
    } as unknown as Redis;
    return { state, client };
  }
  const limiterOver = (client: Redis, log: LimiterLog, link?: RedisLink) =>
    createRedisRateLimiter({
      redis: client,
      windowMs: 60_000,
      prefix: 'onair-test:',
      fallback: createMemoryRateLimiter(60_000, () => Date.now()),
      log,
      link,
    });

  it('say the switch once for all of them, and the return once', async () => {
    const { state, client } = flakyClient();
    const { log, lines } = recordingLog();
    const link: RedisLink = { degraded: false };
    const [a, b] = [limiterOver(client, log, link), limiterOver(client, log, link)];
    await a.hit('k', 5);
    await b.hit('k', 5);
    await a.hit('k', 5);
    expect(lines).toEqual([
      'warn rate limiter: Redis did not answer; each instance limits on its own until it does',
    ]);
    state.down = false;
    expect((await b.hit('k', 5)).remaining).toBe(4);
    await a.hit('k', 5);
    expect(lines.slice(1)).toEqual([
      'info rate limiter: Redis answers again; the fleet-wide budget is back',
    ]);
  });

  it('started without Redis (said at start), say only its return', async () => {
    const { state, client } = flakyClient();
    const { log, lines } = recordingLog();
    const limiter = limiterOver(client, log, { degraded: true });
    expect((await limiter.hit('k', 1)).allowed).toBe(true);
    expect((await limiter.hit('k', 1)).allowed).toBe(false);
    expect(lines).toEqual([]);
    state.down = false;
    await limiter.hit('k', 1);
    expect(lines).toEqual([
      'info rate limiter: Redis answers again; the fleet-wide budget is back',
    ]);
  });
});

describe('connectRedis', () => {
  it('says a database the Redis does not have, and does not count in database 0', async () => {
    const url = new URL(SHARED_REDIS_URL);
    url.pathname = '/99';
    const redis = await client(url.href);
    expect(redisStartProblem(redis)).toMatch(
      /^REDIS_URL names database 99, which this Redis refuses \(ERR .*index.*\)$/i,
    );
    // Its commands fail (the limiter falls back) rather than land in another database.
    await expect(redis.ping()).rejects.toThrow();
    url.pathname = '/1';
    expect(redisStartProblem(await client(url.href))).toBeNull();
  });

  it('says a refused database when Redis comes up after the start', async () => {
    const server = await throwAwayRedis(['--databases', '4']);
    try {
      const told: string[] = [];
      const redis = await connectRedis(`${server.url}/9`, undefined, (problem) =>
        told.push(problem),
      );
      clients.push(redis);
      expect(redisStartProblem(redis)).toMatch(/ECONNREFUSED/);
      await server.start();
      const deadline = Date.now() + 5_000;
      while (told.length === 0 && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 50));
      }
      expect(told).toEqual([
        expect.stringMatching(
          /^REDIS_URL names database 9, which this Redis refuses \(ERR .*index.*\)$/i,
        ),
      ]);
      expect(redisStartProblem(redis)).toBe(told[0]);
      expect(redis.status).toBe('end');
    } finally {
      await server.stop();
    }
  });
});

describe('Redis limiter over a client that misbehaves', () => {
  it.each([
    [
      'throws instead of rejecting',
      () => {
        throw new Error('the client broke');
      },
    ],
    ['answers fewer counts than keys', async () => [1000]],
  ])('falls back for the turn when the client %s, logs once, and goes on', async (_, call) => {
    const client = { defineCommand: () => {}, onairHits: call } as unknown as Redis;
    const { log, lines } = recordingLog();
    const limiter = createRedisRateLimiter({
      redis: client,
      windowMs: 60_000,
      prefix: 'onair-test:',
      fallback: createMemoryRateLimiter(60_000, () => Date.now()),
      log,
    });
    const decisions = await Promise.all([limiter.hit('k', 1), limiter.hit('k', 1)]);
    expect(decisions.map((d) => d.allowed)).toEqual([true, false]);
    expect(lines).toEqual([
      'warn rate limiter: Redis did not answer; each instance limits on its own until it does',
    ]);
  });
});
