import { createServer } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { buildApp } from './app.js';
import { downloadLimits } from './catalogue/ingest/guide-download.js';
import { leaseHolderName, startSourceScheduler } from './sources/source-scheduler.js';
import { trackConnections, type DrainResult } from './http/connection-drain.js';
import type { Config } from './config.js';
import { createServices } from './deps.js';
import { openStore, systemClock, type Clock } from './open-store.js';
import { createLogger } from './logger.js';
import type { Store } from './storage/store.js';
import { startWebhookScheduler } from './webhooks/webhook-scheduler.js';

/** A listening server and how to stop it. */
export interface RunningServer {
  app: FastifyInstance;
  store: Store;
  url: string;
  /**
   * Stops gracefully: no new connections, responses in flight delivered (cut after
   * SHUTDOWN_TIMEOUT), then the services and the database closed.
   */
  close(): Promise<DrainResult>;
  /** Cuts the connections still open at once, so a running `close()` finishes now. */
  cutConnections(): void;
}

export interface StartOptions {
  now?: Clock;
  /** Runs on the open store before the server listens (demo seeding). */
  beforeListen?: (store: Store) => Promise<void>;
}

/** Opens the storage, builds the app and listens on HOST:PORT. */
export async function startServer(
  config: Config,
  options: StartOptions = {},
): Promise<RunningServer> {
  const now = options.now ?? systemClock;
  // A busy port is found before the storage is opened and demo data loaded, not after.
  await checkCanListen(config.host, config.port);
  const logger = createLogger(config.logLevel, 'stdout', config.logFormat);
  const store = await openStore(config, now, { serving: true });
  let app: FastifyInstance | null = null;
  try {
    await options.beforeListen?.(store);
    const services = await createServices(config, store, logger, now);
    // Fastify logs through a logger of its own (same lines), so that its start is quiet: below.
    const appLogger = logger.child({});
    app = await buildApp({ config, store, now, ...services }, appLogger);
    app.addHook('onClose', async () => {
      await services.close();
    });
    const connections = trackConnections(app.server);
    // Fastify says "Server listening at" for every address, before `serve` can print its
    // banner; the banner says where it listens first, and `serve` logs it after.
    appLogger.level = 'warn';
    try {
      await app.listen({ host: config.host, port: config.port });
    } finally {
      appLogger.level = logger.level;
    }
    const address = app.server.address();
    const port = typeof address === 'object' && address !== null ? address.port : config.port;
    const host = config.host.includes(':') ? `[${config.host}]` : config.host;
    const url = `http://${host === '0.0.0.0' ? '127.0.0.1' : host}:${port}`;
    if (!config.publicUrlExplicit) services.site.listeningAt(url);
    const sources = config.sourceRefresh
      ? startSourceScheduler(
          {
            store,
            now,
            log: logger,
            limits: downloadLimits(config.sourceTimeoutMs, config.sourceMaxBytes),
            retentionDays: config.retentionDays,
            changesRetentionDays: config.changesRetentionDays,
            holder: leaseHolderName(),
          },
          config.sourceCheckMs,
        )
      : null;
    const webhooks = config.webhooks.delivery
      ? startWebhookScheduler(
          {
            store,
            now,
            log: logger,
            holder: leaseHolderName(),
            policy: config.webhooks,
            timeoutMs: config.webhooks.timeoutMs,
            retryBaseMs: config.webhooks.retryBaseMs,
            observe: (outcome) => services.metrics.webhookDelivery(outcome),
          },
          {
            checkMs: config.webhooks.checkMs,
            catalogueVersion: async () => (await store.versions()).catalogue,
          },
        )
      : null;
    const listening = app;
    return {
      app: listening,
      store,
      url,
      async close() {
        await sources?.stop();
        await webhooks?.stop();
        const drained = await connections.drain(config.shutdownTimeoutMs);
        await listening.close();
        await store.close();
        return drained;
      },
      cutConnections: () => connections.cutAll(),
    };
  } catch (error) {
    // The app's services (limiters, Redis, caches) would otherwise keep the process alive.
    await app?.close().catch(() => undefined);
    await store.close();
    throw error;
  }
}

/**
 * Binds HOST:PORT for a moment and lets go: fails with the error `listen` would give
 * (EADDRINUSE, EACCES, EADDRNOTAVAIL). Port 0 always binds.
 */
async function checkCanListen(host: string, port: number): Promise<void> {
  if (port === 0) return;
  await new Promise<void>((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen({ host, port, exclusive: true }, () => probe.close(() => resolve()));
  });
}
