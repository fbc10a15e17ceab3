import { collectDefaultMetrics, Counter, Gauge, Registry } from 'prom-client';
import { displayLocation } from './catalogue/ingest/guide-download.js';
import { sourceFlags } from './domain/source-health.js';
import type { LimiterMetrics } from './ratelimit/redis-limiter.js';
import type { Source } from './domain/source.js';
import { webhookState, type Webhook } from './domain/webhook.js';

/** The Prometheus metrics of one process, served at /metrics. */
export interface Metrics {
  registry: Registry;
  limiter: LimiterMetrics;
  /** Counts one answered HTTP request by route prefix and status. */
  request(area: string, statusCode: number): void;
  /** Counts one v1 request answered beneath Fastify (see http/answers/fast-lane.ts); `request` too. */
  repeatAnswer(): void;
  /** Counts one webhook delivery of this process by its outcome (webhooks/webhook-delivery.ts). */
  webhookDelivery(outcome: string): void;
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
  // Requests are counted in plain numbers and added to the counters when they are read (a
  // scrape): prom-client's `inc` with labels builds and looks up a key from them, on every
  // request otherwise (bench/RESULTS.md, "A small answer's own work cut by a sixth").
  const answeredCounts = new Map<string, Map<number, number>>();
  let repeats = 0;
  new Counter({
    name: 'onair_http_requests_total',
    help: 'Answered HTTP requests by area (api, pages, ops) and status code',
    labelNames: ['area', 'status'],
    registers: [registry],
    collect() {
      for (const [area, byStatus] of answeredCounts) {
        for (const [status, count] of byStatus) this.inc({ area, status: String(status) }, count);
        byStatus.clear();
      }
    },
  });
  new Counter({
    name: 'onair_http_repeat_answers_total',
    help: 'API requests answered from kept bodies before routing (also in onair_http_requests_total)',
    registers: [registry],
    collect() {
      // inc(0) would still show the counter at 0 before the first repeat, as it did before.
      this.inc(repeats);
      repeats = 0;
    },
  });
  const webhookDeliveries = new Counter({
    name: 'onair_webhook_deliveries_total',
    help: 'Webhook deliveries of this instance by outcome: delivered, failed, disabled (failed for the last time), skipped-ahead, nothing-new, paused (account may not call the API), busy (another instance had it)',
    labelNames: ['outcome'],
    registers: [registry],
  });
  // No Redis (REDIS_URL unset): this instance limits alone. With one, createServices says.
  redisUp.set(0);
  return {
    registry,
    limiter: {
      fallbackDecision: () => fallback.inc(),
      redisUp: (up) => redisUp.set(up ? 1 : 0),
    },
    request: (area, statusCode) => {
      let byStatus = answeredCounts.get(area);
      if (byStatus === undefined) answeredCounts.set(area, (byStatus = new Map()));
      byStatus.set(statusCode, (byStatus.get(statusCode) ?? 0) + 1);
    },
    repeatAnswer: () => {
      repeats += 1;
    },
    webhookDelivery: (outcome) => webhookDeliveries.inc({ outcome }),
  };
}

/**
 * The fleet's webhooks by state (active, retrying, disabled), read from the database at each
 * scrape: a disabled webhook waits for its account or the operator to turn it back on.
 */
export function registerWebhookMetrics(
  registry: Registry,
  listAllWebhooks: () => Promise<Webhook[]>,
): void {
  new Gauge({
    name: 'onair_webhooks',
    help: 'Webhooks by state: active, retrying (its last batch failed), disabled',
    labelNames: ['state'],
    registers: [registry],
    async collect() {
      const webhooks = await listAllWebhooks().catch(() => null);
      // Unread (the database is down: onair_storage_up says so), the counts read last stay: zeros
      // would clear an alert on disabled webhooks for as long as the outage lasts.
      if (webhooks === null) return;
      const counts = { active: 0, retrying: 0, disabled: 0 };
      for (const webhook of webhooks) counts[webhookState(webhook).kind] += 1;
      this.reset();
      for (const [state, count] of Object.entries(counts)) this.set({ state }, count);
    },
  });
}

/**
 * Per-source freshness gauges, read from the database at each scrape (so every instance shows
 * the fleet's sources): last successful refresh, last ingest, the latest programme end the
 * source provided, failures in a row, and whether it is flagged stale.
 */
export function registerSourceMetrics(
  registry: Registry,
  listSources: () => Promise<Source[]>,
  now: () => number,
): void {
  const labelNames = ['source', 'location', 'country'] as const;
  // One read per scrape, shared by the gauges (each collects in turn within a moment).
  let snapshot: { at: number; sources: Promise<Source[] | null> } | null = null;
  const current = () => {
    const at = performance.now();
    if (snapshot === null || at - snapshot.at > 500) {
      snapshot = { at, sources: listSources().catch(() => null) };
    }
    return snapshot.sources;
  };
  const gauge = (name: string, help: string, value: (s: Source, nowMs: number) => number | null) =>
    new Gauge({
      name,
      help,
      labelNames,
      registers: [registry],
      async collect() {
        const sources = await current();
        // Unread, the values read last stay (as the webhooks' above): no series vanishes and no
        // stale flag clears while the database is down.
        if (sources === null) return;
        this.reset();
        const nowMs = now();
        for (const source of sources) {
          const v = value(source, nowMs);
          if (v === null) continue;
          this.set(
            {
              source: source.id,
              location: displayLocation(source.location),
              country: source.country,
            },
            v,
          );
        }
      },
    });
  const seconds = (ms: number | null) => (ms === null ? null : ms / 1000);
  gauge(
    'onair_source_last_success_timestamp_seconds',
    'When the source last refreshed successfully (ingested, or its guide had not changed)',
    (s) => seconds(s.lastSuccessAt),
  );
  gauge(
    'onair_source_last_ingest_timestamp_seconds',
    'When the source last ingested new content',
    (s) => seconds(s.lastIngestAt),
  );
  gauge(
    'onair_source_latest_programme_end_timestamp_seconds',
    'The latest programme end in the guide the source last ingested',
    (s) => seconds(s.latestEndMs),
  );
  gauge(
    'onair_source_consecutive_failures',
    'Failed refreshes of the source in a row',
    (s) => s.failures,
  );
  gauge(
    'onair_source_stale',
    '1 when the source has not refreshed within 2 × its interval or its schedule ends within 24 hours',
    (s, nowMs) => (sourceFlags(s, nowMs).some((f) => f !== 'last-refresh-failed') ? 1 : 0),
  );
}

/**
 * Whether the database answers, asked at each scrape: 0 during an outage, when the gauges read
 * from it (sources, webhooks) keep the values they read last instead of showing none.
 */
export function registerStorageMetrics(registry: Registry, ping: () => Promise<void>): void {
  new Gauge({
    name: 'onair_storage_up',
    help: '1 when the database answered at this scrape, 0 when not (the source and webhook gauges then keep their last values)',
    registers: [registry],
    async collect() {
      this.set(
        await ping().then(
          () => 1,
          () => 0,
        ),
      );
    },
  });
}
