import type { FastifyInstance } from 'fastify';
import type { Registry } from 'prom-client';
import { Type } from 'typebox';
import { errors } from '../domain/errors.js';
import type { Store } from '../storage/store.js';
import { ErrorBody } from './schemas.js';

const StatusBody = Type.Object({ status: Type.String() });

/**
 * /healthz (the process answers) and /readyz (its storage answers too), for load balancers;
 * /metrics in the Prometheus text format.
 */
export function registerOpsRoutes(app: FastifyInstance, store: Store, registry: Registry): void {
  app.get('/metrics', { logLevel: 'warn' }, async (_request, reply) => {
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
}
