import type { FastifyReply, FastifyRequest } from 'fastify';

/**
 * Sends a body serialised ahead of time (with the route's response schema) with its `ETag`;
 * a client that sends the tag back in `If-None-Match` gets 304 without the body.
 * `reply` is the untyped reply: the typed one expects the response object, not its bytes.
 */
export function sendCached(
  request: FastifyRequest,
  reply: FastifyReply,
  cached: { body: Buffer; tag: string },
): FastifyReply {
  const etag = `W/"${cached.tag.replace(/[^\x21\x23-\x7e]/g, '_')}"`;
  reply.header('ETag', etag).header('Cache-Control', 'private, max-age=60');
  if (request.headers['if-none-match'] === etag) return reply.code(304).send();
  return reply.type('application/json; charset=utf-8').send(cached.body);
}
