import { collectDefaultMetrics, Counter, Gauge, Registry } from 'prom-client';
import type { LimiterMetrics } from './ratelimit/redis-limiter.js';

/** The Prometheus metrics of one process, served at /metrics. */
export interface Metrics {
  registry: Registry;
  limiter: LimiterMetrics;
  /** Counts one answered HTTP request by route prefix and status. */
  request(area: string, statusCode: number): void;
}

/** A registry of its own per app, so several apps in one test process do not collide. */
export function createMetrics(): Metrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: 'onair_' });
  const fallback = new Counter({
    name: 'onair_ratelimit_fallback_decisions_total',
    help: 'Requests whose rate limit was decided by the local limiter because Redis did not answer',
    registers: [registry],
  });
  const redisUp = new Gauge({
    name: 'onair_ratelimit_redis_up',
    help: '1 while the fleet-wide limiter in Redis answers, 0 while this instance limits alone',
    registers: [registry],
  });
  const requests = new Counter({
    name: 'onair_http_requests_total',
    help: 'Answered HTTP requests by area (api, pages, ops) and status code',
    labelNames: ['area', 'status'],
    registers: [registry],
  });
  redisUp.set(1);
  return {
    registry,
    limiter: {
      fallbackDecision: () => fallback.inc(),
      redisUp: (up) => redisUp.set(up ? 1 : 0),
    },
    request: (area, statusCode) => requests.inc({ area, status: String(statusCode) }),
  };
}
