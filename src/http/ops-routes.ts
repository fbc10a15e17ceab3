import type { FastifyInstance } from 'fastify';
import type { Registry } from 'prom-client';
import { Type } from 'typebox';
import { errors } from '../domain/errors.js';
import { sha256Hex } from '../domain/sha256.js';
import type { Store } from '../storage/store.js';
import { ErrorBody } from './schemas.js';
import { refuseOtherMethods } from './method-guard.js';

const StatusBody = Type.Object({ status: Type.String() });

/**
 * /healthz (the process answers) and /readyz (its storage answers too), for load balancers;
 * /metrics in the Prometheus text format, to the holder of `metricsToken` when one is set: it
 * names the operator's guide sources and counts the fleet's webhooks, which the public site
 * should not tell anyone who asks.
 */
export function registerOpsRoutes(
  app: FastifyInstance,
  store: Store,
  registry: Registry,
  metricsToken: string | null,
): void {
  // Digests compared, not the texts: how long the comparison takes tells nothing of the token.
  const expected = metricsToken === null ? null : sha256Hex(`Bearer ${metricsToken}`);
  app.get('/metrics', { logLevel: 'warn' }, async (request, reply) => {
    if (expected !== null && sha256Hex(request.headers.authorization ?? '') !== expected) {
      reply.header('www-authenticate', 'Bearer realm="metrics"');
      throw errors.metricsUnauthorized();
    }
    reply.type(registry.contentType);
    return registry.metrics();
  });

  app.get(
    '/healthz',
    { schema: { response: { 200: StatusBody } }, logLevel: 'warn' },
    async () => ({ status: 'ok' }),
  );

  app.get(
    '/readyz',
    { schema: { response: { 200: StatusBody, 503: ErrorBody } }, logLevel: 'warn' },
    async (request) => {
      try {
        await store.ping();
      } catch (error) {
        request.log.warn({ err: error }, 'storage is not reachable');
        throw errors.serviceUnavailable('Storage is not reachable');
      }
      return { status: 'ready' };
    },
  );
  for (const url of ['/metrics', '/healthz', '/readyz']) refuseOtherMethods(app, url);
}
