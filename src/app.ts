import { createServer } from 'node:http';
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import { createKeyOwnerCache } from './accounts/key-owner-cache.js';
import { createSignInService } from './accounts/sign-in-service.js';
import type { UsageRecorder } from './accounts/usage-recorder.js';
import type { Config } from './config.js';
import { createCachedAnswers } from './http/answers/cached-answers.js';
import { apiGuard } from './http/api-guard.js';
import { createAuthorize } from './http/authorize.js';
import { clientAddressOf, proxyTrust } from './http/client-address.js';
import { onceCompiledSerializers } from './http/compiled-serializers.js';
import { applyCors, createCors, registerCors } from './http/cors.js';
import {
  clientErrorHandler,
  isJsonArea,
  registerErrorHandling,
  sendError,
} from './http/error-handler.js';
import { registerOpenApi } from './http/openapi/openapi-document.js';
import { registerOpsRoutes } from './http/ops-routes.js';
import { registerPlaygroundApi } from './http/playground/playground-routes.js';
import {
  applySecurityHeaders,
  registerSecurityHeaders,
  securityHeaders,
} from './http/security-headers.js';
import { registerChannelsRoutes } from './http/v1/channels-routes.js';
import { registerGuideRoutes } from './http/v1/guide-routes.js';
import { registerCountriesRoutes } from './http/v1/countries-routes.js';
import { registerChangesRoutes } from './http/v1/changes-routes.js';
import { registerProgrammeSearchRoutes } from './http/v1/programme-search-routes.js';
import { createEntryCache } from './http/answers/entry-cache.js';
import { createProgrammeSearchAnswers } from './http/answers/programme-search-answers.js';
import { createBodySender } from './http/answers/body-sender.js';
import { createFastLane } from './http/answers/fast-lane.js';
import { createFeedAnswers } from './http/answers/feed-answers.js';
import { registerFeedRoutes } from './http/feeds/feed-routes.js';
import { createBodyCache } from './http/answers/body-cache.js';
import { createMovingCache } from './http/answers/moving-cache.js';
import { createScheduleCache } from './http/answers/schedule-cache.js';
import {
  createRequestIds,
  createRequestLog,
  OneLinePerRequest,
  type AnsweredRequest,
} from './http/request-log.js';
import type { SiteAddress } from './http/site-address.js';
import { errors } from './domain/errors.js';
import type { Mailer } from './mail/types.js';
import type { Metrics } from './metrics.js';
import type { RateLimiter } from './ratelimit/types.js';
import type { Store } from './storage/store.js';
import { registerDeveloperPages } from './web/developer-pages.js';
import { createErrorPages } from './web/error-pages.js';
import { registerWebRoutes } from './web/web-routes.js';

/** Everything the HTTP app needs, built once at start-up (or by a test). */
export interface AppDeps {
  config: Config;
  store: Store;
  accountLimiter: RateLimiter;
  authFailureLimiter: RateLimiter;
  signInLimiter: RateLimiter;
  playgroundLimiter: RateLimiter;
  feedLimiter: RateLimiter;
  webhookTestLimiter: RateLimiter;
  mailer: Mailer;
  usage: UsageRecorder;
  site: SiteAddress;
  metrics: Metrics;
  now: () => number;
}

/** Which part of the service a URL belongs to, for the request counter. */
function areaOf(url: string): string {
  if (url.startsWith('/api/')) return 'api';
  if (url.startsWith('/playground/api/')) return 'playground';
  if (url.startsWith('/feeds/')) return 'feeds';
  if (url === '/healthz' || url === '/readyz' || url === '/metrics') return 'ops';
  return 'pages';
}

/** Builds the Fastify app without listening; `server.ts` listens, tests inject. */
export async function buildApp(deps: AppDeps, loggerInstance?: Logger): Promise<FastifyInstance> {
  const security = securityHeaders(deps.config.publicUrl.startsWith('https:'));
  const schedules = createScheduleCache(deps.store.catalogue);
  const bodies = createBodyCache();
  const sender = createBodySender();
  const clientAddress = clientAddressOf(deps.config.trustProxy);
  const cors = createCors(deps.config.corsOrigins);
  const authorize = createAuthorize({
    versions: () => deps.store.versions(),
    keyOwners: createKeyOwnerCache(deps.store.accounts),
    accountLimiter: deps.accountLimiter,
    authFailureLimiter: deps.authFailureLimiter,
    authFailureLimit: deps.config.authFailureLimit,
    usage: deps.usage,
    now: deps.now,
  });
  // Every answered request is counted and logged here, whichever path answered it.
  const requestIds = createRequestIds();
  const logRequest = createRequestLog(loggerInstance, clientAddress, {
    // Behind trusted proxies the address is the request's X-Forwarded-For, not the peer's.
    addressPerConnection: deps.config.trustProxy.kind === 'none',
  });
  const answered = (request: AnsweredRequest) => {
    deps.metrics.request(areaOf(request.req.url ?? ''), request.statusCode);
    logRequest(request);
  };
  const fastLane = createFastLane({
    authorize,
    clientAddress,
    sender,
    securityHeaders: security,
    cors,
    now: deps.now,
    answered: (req, route, statusCode, responseTime, accountId) => {
      answered({ reqId: requestIds(), req, route, statusCode, responseTime, accountId });
      deps.metrics.repeatAnswer();
    },
  });
  const app = Fastify({
    ...(loggerInstance === undefined
      ? { logger: false }
      : { loggerInstance: loggerInstance as FastifyBaseLogger }),
    // Requests are logged by `answered`, in the same line as the fast lane's answers.
    logController: new OneLinePerRequest(),
    genReqId: requestIds,
    // Fastify's own HTTP/1 server, with repeated requests of cached routes answered before
    // routing (the fast lane).
    // A request must arrive whole within REQUEST_TIMEOUT (408 after), its body too: Fastify's
    // default, none, let a client that sent headers and a Content-Length hold a connection for
    // ever by never sending the body.
    requestTimeout: deps.config.requestTimeoutMs,
    serverFactory: (handler, options) => {
      // As Fastify sets up the server it makes itself.
      const setting = (value: unknown) => (typeof value === 'number' ? value : 0);
      const server = createServer(
        // Node looks for requests past their time this often (by default every 30 s).
        { connectionsCheckingInterval: Math.min(5_000, deps.config.requestTimeoutMs / 2) },
        fastLane.listener(handler),
      );
      server.keepAliveTimeout = setting(options.keepAliveTimeout);
      server.requestTimeout = setting(options.requestTimeout);
      server.headersTimeout = Math.min(server.headersTimeout, server.requestTimeout);
      server.setTimeout(setting(options.connectionTimeout));
      const perSocket = setting(options.maxRequestsPerSocket);
      if (perSocket > 0) server.maxRequestsPerSocket = perSocket;
      return server;
    },
    trustProxy: proxyTrust(deps.config.trustProxy),
    clientErrorHandler,
    schemaController: { compilersFactory: { buildSerializer: onceCompiledSerializers } },
    routerOptions: {
      ignoreTrailingSlash: true,
      // Long path values must reach the route to get their 400/404, not the router's 404.
      maxParamLength: 2048,
    },
    frameworkErrors: (error, request, reply) => {
      // Fastify runs no hooks for these answers: logged and counted here, like every other.
      reply.raw.once('finish', () =>
        answered({
          reqId: request.id,
          req: request.raw,
          route: undefined,
          statusCode: reply.statusCode,
          responseTime: reply.elapsedTime,
          accountId: undefined,
        }),
      );
      // An address of the pages answers as a page (the error pages set their own headers).
      if (!isJsonArea(request.url)) return errorPages.badAddress(request, reply);
      // Fastify's messages quote the URL, which may hold a secret pasted by mistake.
      const message =
        error.code === 'FST_ERR_MAX_PARAM_LENGTH'
          ? 'Malformed request: a path segment is longer than 2048 characters'
          : 'Malformed request: the URL is not validly percent-encoded';
      applySecurityHeaders(reply, security);
      applyCors(cors, request, reply);
      return sendError(reply, errors.badRequest(message));
    },
  });
  const signIn = createSignInService({
    store: deps.store,
    mailer: deps.mailer,
    now: deps.now,
    log: app.log,
    siteUrl: () => deps.site.url,
  });
  // Outside /api/, /playground/api/ and /feeds/: the site's 404 and 400 pages.
  const errorPages = createErrorPages({ signIn, site: deps.site });
  registerErrorHandling(app, errorPages);
  // Before any route: the document is made from the routes as they are registered.
  await registerOpenApi(app, { site: deps.site });
  registerSecurityHeaders(app, security);
  // Before the API's routes, so its preflight hook runs ahead of their guards.
  registerCors(app, cors);
  registerOpsRoutes(app, deps.store, deps.metrics.registry, deps.config.metricsToken);
  app.addHook('onResponse', async (request, reply) => {
    answered({
      reqId: request.id,
      req: request.raw,
      route: request.routeOptions.url,
      statusCode: reply.statusCode,
      responseTime: reply.elapsedTime,
      accountId: request.accountId ?? undefined,
    });
  });

  await registerWebRoutes(app, {
    store: deps.store,
    signIn,
    signInLimiter: deps.signInLimiter,
    webhookTestLimiter: deps.webhookTestLimiter,
    site: deps.site,
    now: deps.now,
    webhooks: deps.config.webhooks,
  });

  const moving = createMovingCache();
  const answers = createCachedAnswers({
    bodies,
    schedules,
    moving,
    sender,
    remember: fastLane.remember,
    now: deps.now,
  });
  // Programmes' rich entries as JSON, shared by every answer made of them.
  const entries = createEntryCache();
  const programmeSearch = createProgrammeSearchAnswers(deps.store.catalogue, entries);
  // Set per request by the API guard and the playground: one state of the data per answer.
  app.decorateRequest('dataVersions', null);
  app.decorateRequest('accountId', null);
  await app.register(
    async (v1) => {
      v1.addHook('onRequest', apiGuard(authorize, clientAddress));
      // Unknown /api/v1 paths pass the guard first: 401 without a valid key, else 404.
      v1.setNotFoundHandler((_request, reply) => sendError(reply, errors.notFound()));
      registerCountriesRoutes(v1, deps.store.catalogue, answers);
      registerChannelsRoutes(v1, deps.store.catalogue, answers);
      registerGuideRoutes(v1, deps.store.catalogue, answers, entries);
      registerProgrammeSearchRoutes(v1, programmeSearch, answers, deps.now);
      registerChangesRoutes(v1, deps.store.changes, answers);
    },
    { prefix: '/api/v1' },
  );

  // The keyless preview of the v1 routes, over the same caches, and the pages for developers.
  await registerPlaygroundApi(app, {
    versions: () => deps.store.versions(),
    playground: deps.store.playground,
    catalogue: deps.store.catalogue,
    schedules,
    bodies,
    moving,
    entries,
    sendBody: sender.send,
    limiter: deps.playgroundLimiter,
    limit: deps.config.playgroundLimit,
    now: deps.now,
  });
  // XMLTV feeds for media servers: the token in the URL is the credential.
  registerFeedRoutes(app, {
    store: deps.store,
    answers: createFeedAnswers(deps.store.feeds),
    limiter: deps.feedLimiter,
    limit: deps.config.feedFetchLimit,
    now: deps.now,
  });
  await registerDeveloperPages(app, {
    site: deps.site,
    playgroundLimit: deps.config.playgroundLimit,
    playgroundWindowMs: deps.config.playgroundWindowMs,
  });

  return app;
}
