import type { Config } from './config.js';
import { systemClock, type Clock } from './open-store.js';
import { createUsageRecorder, type UsageRecorder } from './accounts/usage-recorder.js';
import { FEED_WINDOW_MS } from './domain/feed.js';
import { RATE_WINDOW_MS } from './domain/rate-window.js';
import { createSiteAddress, type MutableSiteAddress } from './http/site-address.js';
import { createMailer } from './mail/create-mailer.js';
import type { MailLog, Mailer } from './mail/types.js';
import {
  createMetrics,
  registerSourceMetrics,
  registerStorageMetrics,
  registerWebhookMetrics,
  type Metrics,
} from './metrics.js';
import { createMemoryRateLimiter } from './ratelimit/memory-limiter.js';
import {
  connectRedis,
  createRedisRateLimiter,
  redisStartProblem,
  type LimiterLog,
  type RedisLink,
} from './ratelimit/redis-limiter.js';
import type { RateLimiter } from './ratelimit/types.js';
import type { Store } from './storage/store.js';

/** Sign-in link requests are counted in 15-minute windows. */
export const SIGN_IN_WINDOW_MS = 15 * 60_000;
/** Webhook test requests sent from the account pages are counted in 15-minute windows. */
export const WEBHOOK_TEST_WINDOW_MS = 15 * 60_000;

/** The limiters of one process: per account, per client IP for failed auth, and for sign-in. */
export interface Limiters {
  accountLimiter: RateLimiter;
  authFailureLimiter: RateLimiter;
  signInLimiter: RateLimiter;
  /** Per client IP on the keyless playground API. */
  playgroundLimiter: RateLimiter;
  /** Per guide feed, in hours: a budget apart from the account's API budget. */
  feedLimiter: RateLimiter;
  /** Per account, the test requests its webhook pages send (WEBHOOK_TEST_WINDOW_MS). */
  webhookTestLimiter: RateLimiter;
}

/** Everything besides the store that the app runs with, chosen once from the configuration. */
export interface Services extends Limiters {
  mailer: Mailer;
  usage: UsageRecorder;
  site: MutableSiteAddress;
  metrics: Metrics;
  /** Flushes and closes every service (not the store). */
  close(): Promise<void>;
}

/**
 * Builds the services: limiters in Redis when REDIS_URL is set (one budget for the whole fleet,
 * each with this instance's memory limiter as fallback), else in memory.
 */
export async function createServices(
  config: Config,
  store: Store,
  log: MailLog & LimiterLog,
  now: Clock = systemClock,
): Promise<Services> {
  const metrics = createMetrics();
  registerSourceMetrics(metrics.registry, () => store.sources.listSources(), now);
  registerWebhookMetrics(metrics.registry, () => store.webhooks.listAllWebhooks());
  registerStorageMetrics(metrics.registry, () => store.ping());
  const redis =
    config.redisUrl === null
      ? null
      : await connectRedis(config.redisUrl, undefined, (problem) =>
          log.warn(
            { error: problem },
            'rate limiter: Redis refuses the database of REDIS_URL; each instance limits on its own until restarted with a database it has',
          ),
        );
  // One link for every limiter of the instance: the switch to its own budgets is logged once.
  const link: RedisLink = { degraded: false };
  if (redis !== null) {
    // Told by the connection too, not only by the limiter's commands: an instance that has
    // answered no request yet, with Redis down or a wrong REDIS_URL, must not show it up.
    const problem = redisStartProblem(redis);
    metrics.limiter.redisUp(problem === null);
    // Said here, with the connection's error; the first request's fallback says it no more.
    link.degraded = problem !== null;
    if (problem !== null) {
      log.warn(
        { error: problem },
        'rate limiter: Redis is not reachable at start; each instance limits on its own until it is',
      );
    }
    redis.on('ready', () => metrics.limiter.redisUp(true));
    redis.on('close', () => metrics.limiter.redisUp(false));
  }
  const limiter = (name: string, windowMs: number): RateLimiter => {
    const local = createMemoryRateLimiter(windowMs, now);
    if (redis === null) return local;
    return createRedisRateLimiter({
      redis,
      windowMs,
      prefix: `${config.redisKeyPrefix}rl:${name}:`,
      fallback: local,
      log,
      metrics: metrics.limiter,
      link,
    });
  };
  const limiters: Limiters = {
    accountLimiter: limiter('account', RATE_WINDOW_MS),
    authFailureLimiter: limiter('auth-failure', config.authFailureWindowMs),
    signInLimiter: limiter('sign-in', SIGN_IN_WINDOW_MS),
    playgroundLimiter: limiter('playground', config.playgroundWindowMs),
    feedLimiter: limiter('feed', FEED_WINDOW_MS),
    webhookTestLimiter: limiter('webhook-test', WEBHOOK_TEST_WINDOW_MS),
  };
  const mailer = createMailer(config, log);
  const usage = createUsageRecorder(store.accounts, { log });
  return {
    ...limiters,
    mailer,
    usage,
    metrics,
    site: createSiteAddress(config.publicUrl),
    async close() {
      await usage.close();
      await mailer.close();
      await limiters.accountLimiter.close();
      await limiters.authFailureLimiter.close();
      await limiters.signInLimiter.close();
      await limiters.playgroundLimiter.close();
      await limiters.feedLimiter.close();
      await limiters.webhookTestLimiter.close();
      redis?.disconnect();
    },
  };
}
