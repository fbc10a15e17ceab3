import { ConfigError, type Config } from './config.js';
import { createUsageRecorder, type UsageRecorder } from './accounts/usage-recorder.js';
import { RATE_WINDOW_MS } from './domain/rate-window.js';
import { createSiteAddress, type MutableSiteAddress } from './http/site-address.js';
import { createMailer } from './mail/create-mailer.js';
import type { MailLog, Mailer } from './mail/types.js';
import { createMemoryRateLimiter } from './ratelimit/memory-limiter.js';
import type { RateLimiter } from './ratelimit/types.js';
import { openSqliteStore } from './storage/sqlite/sqlite-store.js';
import type { Store } from './storage/types.js';

/** Reads the time; injected so tests can move it. */
export type Clock = () => number;

export const systemClock: Clock = () => Date.now();

/** Sign-in link requests are counted in 15-minute windows. */
export const SIGN_IN_WINDOW_MS = 15 * 60_000;

/** Opens the store the configuration names, migrated and ready. */
export async function openStore(config: Config, now: Clock = systemClock): Promise<Store> {
  if (config.database.engine === 'postgres') {
    throw new ConfigError('DATABASE_URL: PostgreSQL is not supported by this version of Onair');
  }
  return openSqliteStore({ path: config.database.path, nowMs: now() });
}

/** The limiters of one process: per account, per client IP for failed auth, and for sign-in. */
export interface Limiters {
  accountLimiter: RateLimiter;
  authFailureLimiter: RateLimiter;
  signInLimiter: RateLimiter;
}

export function createLimiters(config: Config, now: Clock = systemClock): Limiters {
  return {
    accountLimiter: createMemoryRateLimiter(RATE_WINDOW_MS, now),
    authFailureLimiter: createMemoryRateLimiter(config.authFailureWindowMs, now),
    signInLimiter: createMemoryRateLimiter(SIGN_IN_WINDOW_MS, now),
  };
}

/** Everything besides the store that the app runs with, chosen once from the configuration. */
export interface Services extends Limiters {
  mailer: Mailer;
  usage: UsageRecorder;
  site: MutableSiteAddress;
  /** Flushes and closes every service (not the store). */
  close(): Promise<void>;
}

export function createServices(
  config: Config,
  store: Store,
  log: MailLog,
  now: Clock = systemClock,
): Services {
  const limiters = createLimiters(config, now);
  const mailer = createMailer(config, log);
  const usage = createUsageRecorder(store.accounts, { log });
  return {
    ...limiters,
    mailer,
    usage,
    site: createSiteAddress(config.publicUrl),
    async close() {
      await usage.close();
      await mailer.close();
      await limiters.accountLimiter.close();
      await limiters.authFailureLimiter.close();
      await limiters.signInLimiter.close();
    },
  };
}
