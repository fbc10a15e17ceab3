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
  const logger = createLogger(config.logLevel, process.stdout, config.logFormat);
  const store = await openStore(config, now, { serving: true });
  try {
    await options.beforeListen?.(store);
    const services = await createServices(config, store, logger, now);
    const app = await buildApp({ config, store, now, ...services }, logger);
    app.addHook('onClose', async () => {
      await services.close();
    });
    const connections = trackConnections(app.server);
    await app.listen({ host: config.host, port: config.port });
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
            holder: leaseHolderName(),
          },
          config.sourceCheckMs,
        )
      : null;
    return {
      app,
      store,
      url,
      async close() {
        await sources?.stop();
        const drained = await connections.drain(config.shutdownTimeoutMs);
        await app.close();
        await store.close();
        return drained;
      },
      cutConnections: () => connections.cutAll(),
    };
  } catch (error) {
    await store.close();
    throw error;
  }
}
