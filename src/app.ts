import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import { createSignInService } from './accounts/sign-in-service.js';
import type { UsageRecorder } from './accounts/usage-recorder.js';
import type { Config } from './config.js';
import { createApiGuard } from './http/api-guard.js';
import { clientErrorHandler, registerErrorHandling, sendError } from './http/error-handler.js';
import { registerOpsRoutes } from './http/ops-routes.js';
import {
  applySecurityHeaders,
  registerSecurityHeaders,
  securityHeaders,
} from './http/security-headers.js';
import { registerChannelsRoutes } from './http/v1/channels-routes.js';
import { registerCountriesRoutes } from './http/v1/countries-routes.js';
import { createCachedReplies } from './http/v1/cached-reply.js';
import { createResponseCache } from './http/v1/response-cache.js';
import { createScheduleCache } from './http/v1/schedule-cache.js';
import type { SiteAddress } from './http/site-address.js';
import { errors } from './domain/errors.js';
import type { Mailer } from './mail/types.js';
import type { Metrics } from './metrics.js';
import type { RateLimiter } from './ratelimit/types.js';
import type { Store } from './storage/types.js';
import { registerWebRoutes } from './web/web-routes.js';

/** Everything the HTTP app needs, built once at start-up (or by a test). */
export interface AppDeps {
  config: Config;
  store: Store;
  accountLimiter: RateLimiter;
  authFailureLimiter: RateLimiter;
  signInLimiter: RateLimiter;
  mailer: Mailer;
  usage: UsageRecorder;
  site: SiteAddress;
  metrics: Metrics;
  now: () => number;
}

/** Which part of the service a URL belongs to, for the request counter. */
function areaOf(url: string): string {
  if (url.startsWith('/api/')) return 'api';
  if (url === '/healthz' || url === '/readyz' || url === '/metrics') return 'ops';
  return 'pages';
}

/** Builds the Fastify app without listening; `server.ts` listens, tests inject. */
export async function buildApp(
  deps: AppDeps,
  loggerInstance?: FastifyBaseLogger,
): Promise<FastifyInstance> {
  const security = securityHeaders(deps.config.publicUrl.startsWith('https:'));
  const app = Fastify({
    ...(loggerInstance === undefined ? { logger: false } : { loggerInstance }),
    trustProxy: deps.config.trustProxy,
    clientErrorHandler,
    routerOptions: {
      ignoreTrailingSlash: true,
      // Long path values must reach the route to get their 400/404, not the router's 404.
      maxParamLength: 2048,
    },
    frameworkErrors: (error, _request, reply) => {
      // Fastify's messages quote the URL, which may hold a secret pasted by mistake.
      const message =
        error.code === 'FST_ERR_MAX_PARAM_LENGTH'
          ? 'Malformed request: a path segment is longer than 2048 characters'
          : 'Malformed request: the URL is not validly percent-encoded';
      applySecurityHeaders(reply, security);
      sendError(reply, errors.badRequest(message));
    },
  });
  registerErrorHandling(app);
  registerSecurityHeaders(app, security);
  registerOpsRoutes(app, deps.store, deps.metrics.registry);
  app.addHook('onResponse', async (request, reply) => {
    deps.metrics.request(areaOf(request.url), reply.statusCode);
  });

  await registerWebRoutes(app, {
    store: deps.store,
    signIn: createSignInService({
      store: deps.store,
      mailer: deps.mailer,
      now: deps.now,
      log: app.log,
      siteUrl: () => deps.site.url,
    }),
    signInLimiter: deps.signInLimiter,
    site: deps.site,
    now: deps.now,
  });

  const schedules = createScheduleCache(deps.store.catalogue);
  const responses = createResponseCache(deps.store.catalogue);
  const sendCached = createCachedReplies();
  await app.register(
    async (v1) => {
      v1.addHook(
        'onRequest',
        createApiGuard({
          accounts: deps.store.accounts,
          accountLimiter: deps.accountLimiter,
          authFailureLimiter: deps.authFailureLimiter,
          authFailureLimit: deps.config.authFailureLimit,
          usage: deps.usage,
          now: deps.now,
        }),
      );
      // Unknown /api/v1 paths pass the guard first: 401 without a valid key, else 404.
      v1.setNotFoundHandler((_request, reply) => sendError(reply, errors.notFound()));
      registerCountriesRoutes(v1, deps.store.catalogue, responses, sendCached);
      registerChannelsRoutes(v1, deps.store.catalogue, schedules, responses, sendCached, deps.now);
    },
    { prefix: '/api/v1' },
  );

  return app;
}
