import { Redis } from 'ioredis';
import type { RateDecision } from '../domain/rate-window.js';
import type { RateLimiter } from './types.js';

/**
 * One atomic step per request: the window comes from Redis's own clock (so every instance
 * agrees on it whatever their clocks say), the counter is incremented and, when new, given an
 * expiry of one window, in the same call. Returns the count and the milliseconds left.
 */
const HIT_SCRIPT = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local window = tonumber(ARGV[1])
local start = now - (now % window)
local key = KEYS[1] .. ':' .. start
local count = redis.call('INCR', key)
if count == 1 then redis.call('PEXPIRE', key, window) end
return { count, start + window - now }
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
  /** Key namespace, e.g. `onair:rl:account:`; a test run uses its own. */
  prefix: string;
  /** Decides while Redis is unreachable or slow: this instance's own budget. */
  fallback: RateLimiter;
  log: LimiterLog;
  metrics?: LimiterMetrics;
}

/**
 * Fleet-wide fixed-window limiter in Redis. When Redis is unreachable or slower than the
 * client's command timeout, each instance decides with its local limiter, logs the switch
 * once, counts it, and uses Redis again as soon as a call succeeds.
 */
export function createRedisRateLimiter(options: RedisLimiterOptions): RateLimiter {
  const { redis } = options;
  redis.defineCommand('onairHit', { numberOfKeys: 1, lua: HIT_SCRIPT });
  let degraded = false;

  return {
    async hit(key, limit): Promise<RateDecision> {
      try {
        const [count, resetMs] = (await (
          redis as Redis & { onairHit(key: string, windowMs: number): Promise<[number, number]> }
        ).onairHit(`${options.prefix}${key}`, options.windowMs)) as [number, number];
        if (degraded) {
          degraded = false;
          options.log.info({}, 'rate limiter: Redis answers again; the fleet-wide budget is back');
          options.metrics?.redisUp(true);
        }
        return { allowed: count <= limit, limit, remaining: Math.max(0, limit - count), resetMs };
      } catch (error) {
        if (!degraded) {
          degraded = true;
          options.log.warn(
            { error: (error as Error).message },
            'rate limiter: Redis did not answer; each instance limits on its own until it does',
          );
          options.metrics?.redisUp(false);
        }
        options.metrics?.fallbackDecision();
        return options.fallback.hit(key, limit);
      }
    },
    async close() {
      await options.fallback.close();
    },
  };
}

/**
 * The Redis client of one process: commands time out after `commandTimeoutMs` and fail at once
 * while disconnected (no offline queue), so a request never waits on a dead Redis; the client
 * keeps reconnecting in the background. Resolves once connected, or after a second without.
 */
export async function connectRedis(url: string, commandTimeoutMs = 100): Promise<Redis> {
  const redis = new Redis(url, {
    commandTimeout: commandTimeoutMs,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    connectTimeout: 1_000,
    lazyConnect: false,
    // The commands of the requests one turn of the event loop reads go to Redis in one write:
    // a write per command cost the server ~18 µs of kernel time each (waking Redis). Server
    // CPU per request of GET /api/v1/countries in scaled mode, median 70.5 → 61 µs, and Redis's
    // own CPU halved (alternating runs of `node bench/http.mjs --engines postgres --routes
    // countries`; bench/RESULTS.md).
    enableAutoPipelining: true,
    // Reconnect forever, backing off to one attempt per second.
    retryStrategy: (times) => Math.min(times * 50, 1_000),
  });
  // Connection errors surface as failed commands, which the limiter reports once; without a
  // listener ioredis would print every reconnection attempt.
  redis.on('error', () => {});
  // Without an offline queue, commands fail until the connection is up: wait for it at start
  // (bounded), so a healthy Redis is used from the first request.
  await new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, 1_000);
    redis.once('ready', () => {
      clearTimeout(timer);
      resolve();
    });
  });
  return redis;
}
