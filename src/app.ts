import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify';
import type { Config } from './config.js';
import { createApiGuard } from './http/api-guard.js';
import { clientErrorHandler, registerErrorHandling, sendError } from './http/error-handler.js';
import { registerOpsRoutes } from './http/ops-routes.js';
import { registerChannelsRoutes } from './http/v1/channels-routes.js';
import { registerCountriesRoutes } from './http/v1/countries-routes.js';
import { errors } from './domain/errors.js';
import type { RateLimiter } from './ratelimit/types.js';
import type { Store } from './storage/types.js';

/** Everything the HTTP app needs, built once at start-up (or by a test). */
export interface AppDeps {
  config: Config;
  store: Store;
  accountLimiter: RateLimiter;
  authFailureLimiter: RateLimiter;
  now: () => number;
}

/** Builds the Fastify app without listening; `server.ts` listens, tests inject. */
export async function buildApp(
  deps: AppDeps,
  logger: FastifyServerOptions['logger'] = false,
): Promise<FastifyInstance> {
  const app = Fastify({
    logger,
    trustProxy: deps.config.trustProxy,
    clientErrorHandler,
    routerOptions: {
      ignoreTrailingSlash: true,
      // Long path values must reach the route to get their 400/404, not the router's 404.
      maxParamLength: 2048,
    },
    frameworkErrors: (error, _request, reply) => {
      sendError(reply, errors.badRequest(`Malformed request: ${error.message}`));
    },
  });
  registerErrorHandling(app);
  registerOpsRoutes(app, deps.store);

  app.get('/', { logLevel: 'warn' }, async () => ({
    service: 'onair',
    api: `${deps.config.publicUrl}/api/v1`,
  }));

  await app.register(
    async (v1) => {
      v1.addHook(
        'onRequest',
        createApiGuard({
          accounts: deps.store.accounts,
          accountLimiter: deps.accountLimiter,
          authFailureLimiter: deps.authFailureLimiter,
          authFailureLimit: deps.config.authFailureLimit,
          now: deps.now,
        }),
      );
      // Unknown /api/v1 paths pass the guard first: 401 without a valid key, else 404.
      v1.setNotFoundHandler((_request, reply) => sendError(reply, errors.notFound()));
      registerCountriesRoutes(v1, deps.store.catalogue);
      registerChannelsRoutes(v1, deps.store.catalogue, deps.now);
    },
    { prefix: '/api/v1' },
  );

  return app;
}
