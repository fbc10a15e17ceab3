import type { FastifyInstance } from 'fastify';
import { errors } from '../domain/errors.js';

const OTHER_METHODS = ['DELETE', 'OPTIONS', 'PATCH', 'POST', 'PUT'] as const;

/**
 * Answers every method but GET/HEAD on a path that answers GET with 405 (on a v1 path after the
 * key check, like any v1 request; on a feed's before its token), so a wrong method is told apart
 * from a wrong path.
 */
export function refuseOtherMethods(app: FastifyInstance, url: string): void {
  const refuse = async (): Promise<never> => {
    throw errors.methodNotAllowed();
  };
  app.route({
    method: [...OTHER_METHODS],
    url,
    // Before the body is read: a POST of 5 MB is told its method is wrong (405), not that its
    // body is too large (413), and its body is not read at all.
    preParsing: refuse,
    handler: refuse,
  });
}
