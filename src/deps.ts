import { ConfigError, type Config } from './config.js';
import { RATE_WINDOW_MS } from './domain/rate-window.js';
import { createMemoryRateLimiter } from './ratelimit/memory-limiter.js';
import type { RateLimiter } from './ratelimit/types.js';
import { openSqliteStore } from './storage/sqlite/sqlite-store.js';
import type { Store } from './storage/types.js';

/** Reads the time; injected so tests can move it. */
export type Clock = () => number;

export const systemClock: Clock = () => Date.now();

/** Opens the store the configuration names, migrated and ready. */
export async function openStore(config: Config, now: Clock = systemClock): Promise<Store> {
  if (config.database.engine === 'postgres') {
    throw new ConfigError('DATABASE_URL: PostgreSQL is not supported by this version of Onair');
  }
  return openSqliteStore({ path: config.database.path, nowMs: now() });
}

/** The limiters of one process: per account, and per client IP for failed authentication. */
export function createLimiters(
  config: Config,
  now: Clock = systemClock,
): { accountLimiter: RateLimiter; authFailureLimiter: RateLimiter } {
  return {
    accountLimiter: createMemoryRateLimiter(RATE_WINDOW_MS, now),
    authFailureLimiter: createMemoryRateLimiter(config.authFailureWindowMs, now),
  };
}
