import { Redis } from 'ioredis';
import type { RateDecision } from '../domain/rate-window.js';
import type { RateLimiter } from './types.js';

/**
 * One atomic step per turn of the event loop: the window comes from Redis's own clock (so every
 * instance agrees on it whatever their clocks say), and each key's counter is raised by the
 * hits it had in the turn and, when new, given an expiry of one window, in the same call.
 * KEYS are the counters' names, ARGV the window then each key's hits; returns the milliseconds
 * left in the window, then each key's count.
 */
const HITS_SCRIPT = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local window = tonumber(ARGV[1])
local start = now - (now % window)
local answer = { start + window - now }
for i, name in ipairs(KEYS) do
  local hits = tonumber(ARGV[i + 1])
  local key = name .. ':' .. start
  local count = redis.call('INCRBY', key, hits)
  if count == hits then redis.call('PEXPIRE', key, window) end
  answer[i + 1] = count
end
return answer
`;

/** Where the limiter reports that it left Redis, and came back. */
export interface LimiterLog {
  warn(obj: object, msg: string): void;
  info(obj: object, msg: string): void;
}

/** Counters of the fallback, for /metrics. */
export interface LimiterMetrics {
  /** One per request decided by the local limiter because Redis did not answer. */
  fallbackDecision(): void;
  /** 1 while Redis answers, 0 while the local limiter decides. */
  redisUp(up: boolean): void;
}

export interface RedisLimiterOptions {
  /** A connected-or-connecting client shared by the limiters of this process. */
  redis: Redis;
  windowMs: number;
  /** Key namespace, e.g. `onair:rl:account:` (deps.ts); a test run uses its own. */
  prefix: string;
  /** Decides while Redis is unreachable or slow: this instance's own budget. */
  fallback: RateLimiter;
  log: LimiterLog;
  metrics?: LimiterMetrics;
  /**
   * Whether this instance decides without Redis, shared by its limiters (deps.ts) so that the
   * switch is logged once for all of them, and started as degraded when Redis was not reachable
   * at start (which was logged then). A limiter alone keeps its own.
   */
  link?: RedisLink;
}

/** The state of an instance's limiters' link to Redis (RedisLimiterOptions.link). */
export interface RedisLink {
  degraded: boolean;
}

/**
 * Fleet-wide fixed-window limiter in Redis. The hits of one turn of the event loop go to Redis
 * as one command: a key's counter is raised by its hits at once, and each hit gets the count it
 * would have had alone, so the decisions are those of one command per hit, for a fraction of
 * the client's and Redis's work: a command per request (ioredis's command, promise and reply)
 * took a quarter of the server's CPU for a small answer in scaled mode (`node bench/http.mjs
 * --engines sqlite,postgres`, server CPU per `/countries` request; bench/RESULTS.md). When
 * Redis is unreachable or slower than the client's command timeout, each instance decides with
 * its local limiter, logs the switch once, counts it, and uses Redis again as soon as a call
 * succeeds.
 */
export function createRedisRateLimiter(options: RedisLimiterOptions): RateLimiter {
  const redis = options.redis as Redis & {
    onairHits(keysThenArgs: (string | number)[]): Promise<number[]>;
  };
  redis.defineCommand('onairHits', { lua: HITS_SCRIPT });
  const link = options.link ?? { degraded: false };
  /** The hits of this turn, by key, in the order they came; null: none yet. */
  let turn: Map<string, WaitingHit[]> | null = null;

  const answered = (sent: Map<string, WaitingHit[]>, answer: number[]) => {
    if (link.degraded) {
      link.degraded = false;
      options.log.info({}, 'rate limiter: Redis answers again; the fleet-wide budget is back');
      options.metrics?.redisUp(true);
    }
    const resetMs = answer[0] ?? options.windowMs; // the reply has a count per key (send)
    let i = 1;
    for (const hits of sent.values()) {
      // The key's count after the turn's hits: each hit has the count it would have had alone,
      // in the order the hits came.
      let count = (answer[i++] ?? 0) - hits.length;
      for (const hit of hits) {
        count++;
        hit.resolve({
          allowed: count <= hit.limit,
          limit: hit.limit,
          remaining: Math.max(0, hit.limit - count),
          resetMs,
        });
      }
    }
  };

  const failed = (sent: Map<string, WaitingHit[]>, error: Error) => {
    if (!link.degraded) {
      link.degraded = true;
      options.log.warn(
        { error: error.message },
        'rate limiter: Redis did not answer; each instance limits on its own until it does',
      );
      options.metrics?.redisUp(false);
    }
    for (const [key, hits] of sent) {
      for (const hit of hits) {
        options.metrics?.fallbackDecision();
        Promise.resolve(options.fallback.hit(key, hit.limit)).then(hit.resolve, hit.reject);
      }
    }
  };

  const send = () => {
    const sent = turn;
    turn = null;
    if (sent === null) return;
    // In calls of at most KEYS_PER_CALL keys: each runs alone in Redis, holding up its other
    // clients, and a turn may read thousands of requests (pipelined, or from many addresses).
    const entries = [...sent];
    for (let from = 0; from < entries.length; from += KEYS_PER_CALL) {
      const part = new Map(entries.slice(from, from + KEYS_PER_CALL));
      const args: (string | number)[] = [part.size];
      for (const key of part.keys()) args.push(`${options.prefix}${key}`);
      args.push(options.windowMs);
      for (const hits of part.values()) args.push(hits.length);
      // One argument, an array: ioredis spreads it into the command's arguments. Called in a
      // promise, so that a client that throws (rather than rejects) cannot take the server down
      // from this callback of the event loop: its hits fall back like any failed call's.
      Promise.resolve(args)
        .then((keysThenArgs) => redis.onairHits(keysThenArgs))
        .then(
          (answer) =>
            Array.isArray(answer) && answer.length === part.size + 1
              ? answered(part, answer)
              : failed(part, new Error(`Redis answered ${String(answer)} for ${part.size} keys`)),
          (error: Error) => failed(part, error),
        );
    }
  };

  return {
    hit(key, limit): Promise<RateDecision> {
      return new Promise((resolve, reject) => {
        if (turn === null) {
          turn = new Map();
          // After every request this turn reads: their hits go to Redis together.
          setImmediate(send);
        }
        const hits = turn.get(key);
        if (hits === undefined) turn.set(key, [{ limit, resolve, reject }]);
        else hits.push({ limit, resolve, reject });
      });
    },
    async close() {
      await options.fallback.close();
    },
  };
}

/** Keys counted by one call to Redis at most. */
const KEYS_PER_CALL = 1_000;

/** A request's hit waiting for the end of its turn. */
interface WaitingHit {
  limit: number;
  resolve(decision: RateDecision): void;
  reject(error: Error): void;
}

/** The last connection error of each client connectRedis made. */
const lastErrors = new WeakMap<Redis, string>();
/** Clients connectRedis ended because Redis refused the URL's database, with why. */
const refusedDatabases = new WeakMap<Redis, string>();

/**
 * Why a client from connectRedis is not connected now, or null when it is: the last
 * connection error (refused, a wrong password, an unknown host) when there was one.
 */
export function redisStartProblem(redis: Redis): string | null {
  const refused = refusedDatabases.get(redis);
  if (refused !== undefined) return refused;
  if (redis.status === 'ready') return null;
  return lastErrors.get(redis) ?? `not connected within 1 s (${redis.status})`;
}

/**
 * The Redis client of one process: commands time out after `commandTimeoutMs` and fail at once
 * while disconnected (no offline queue), so a request never waits on a dead Redis; the client
 * keeps reconnecting in the background. Resolves once connected, or after a second without.
 * A database Redis refuses ends the client for good: at start redisStartProblem says so, later
 * `onLaterRefusal` does.
 */
export async function connectRedis(
  url: string,
  commandTimeoutMs = 100,
  onLaterRefusal: (problem: string) => void = () => {},
): Promise<Redis> {
  const redis = new Redis(url, {
    commandTimeout: commandTimeoutMs,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    connectTimeout: 1_000,
    lazyConnect: false,
    // The limiter sends one command per turn of the event loop itself, at its end: written at
    // once, not held for ioredis's own next turn.
    enableAutoPipelining: false,
    // Reconnect forever, backing off to one attempt per second.
    retryStrategy: (times) => Math.min(times * 50, 1_000),
  });
  // Connection errors surface as failed commands, which the limiter reports once; without a
  // listener ioredis would print every reconnection attempt. The last one is kept for
  // redisStartProblem: a failed command only says the stream was not writeable.
  let refused: (problem: string) => void = () => {};
  redis.on('error', (error: Error) => {
    lastErrors.set(redis, error.message);
    // ioredis selects the URL's database in its handshake and, when Redis refuses it (`/99` of
    // 16), only emits this error and goes on ready in database 0: a budget apart from the
    // fleet's, in a database the operator never chose. Ending the connection instead makes the
    // instance limit on its own, say why at start, and show Redis down. Told by ioredis on
    // every (re)connection, so a Redis that was down at start, or restarted with fewer
    // databases, is caught too; no command of ours that could time out is involved.
    if (/\bDB index\b/i.test(error.message)) {
      const problem = `REDIS_URL names database ${redis.options.db ?? 0}, which this Redis refuses (${error.message})`;
      refusedDatabases.set(redis, problem);
      redis.disconnect();
      refused(problem);
    }
  });
  // Without an offline queue, commands fail until the connection is up: wait for it at start
  // (bounded), so a healthy Redis is used from the first request.
  await new Promise<void>((resolve) => {
    const done = () => {
      clearTimeout(timer);
      resolve();
    };
    const timer = setTimeout(done, 1_000);
    redis.once('ready', done);
    refused = done;
  });
  // After start (Redis was down, or restarted with fewer databases) the caller is told.
  refused = onLaterRefusal;
  return redis;
}
