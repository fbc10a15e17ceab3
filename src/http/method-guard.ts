import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { errors } from '../domain/errors.js';

const OTHER_METHODS = ['DELETE', 'OPTIONS', 'PATCH', 'POST', 'PUT'] as const;

/**
 * Answers every method but GET/HEAD on a path that answers GET with 405 (on a v1 path after the
 * key check, like any v1 request; on a feed's before its token), so a wrong method is told apart
 * from a wrong path.
 */
export function refuseOtherMethods(app: FastifyInstance, url: string): void {
  // Fastify's own default (1 MB) unless the app sets one.
  const bodyLimit = app.initialConfig.bodyLimit ?? 1024 * 1024;
  const refuse = async (request: FastifyRequest, reply: FastifyReply): Promise<never> => {
    // A body is left unread. Up to the body limit (or chunked, bounded by REQUEST_TIMEOUT) Node
    // reads it off after the answer and the connection serves the next request. A larger one
    // ends the connection after the answer, as Fastify does when a body is too large: closing
    // while a client still sends can lose the answer to a reset, so only when it is worth it.
    const length = Number(request.headers['content-length'] ?? 0);
    if (length > bodyLimit) reply.header('connection', 'close');
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
