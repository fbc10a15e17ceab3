import type { FastifyInstance } from 'fastify';
import { errors } from '../domain/errors.js';

const OTHER_METHODS = ['DELETE', 'OPTIONS', 'PATCH', 'POST', 'PUT'] as const;

/**
 * Answers every method but GET/HEAD on a path that answers GET with 405 (on a v1 path after the
 * key check, like any v1 request; on a feed's before its token), so a wrong method is told apart
 * from a wrong path.
 */
export function refuseOtherMethods(app: FastifyInstance, url: string): void {
  app.route({
    method: [...OTHER_METHODS],
    url,
    handler: async () => {
      throw errors.methodNotAllowed();
    },
  });
}
