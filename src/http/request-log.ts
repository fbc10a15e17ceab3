import type { IncomingMessage } from 'node:http';
import { LogController, type FastifyBaseLogger } from 'fastify';
import { REQUEST_COMPLETED } from '../logger.js';

/** Log levels at which every answered request is logged (its line is at info). */
const REQUEST_LOGGING_LEVELS = new Set(['trace', 'debug', 'info']);

/** Logs one answered request; see createRequestLog. */
export type LogRequest = (
  reqId: string,
  req: IncomingMessage,
  statusCode: number,
  /** Milliseconds from the request's arrival to the end of its answer. */
  responseTime: number,
) => void;

/**
 * The one line logged for every answered request, whichever path answered it (Fastify's own
 * lines are off: OneLinePerRequest): request id, method, redacted URL and client address (by the
 * logger's `req` serializer), status and time, never a header. None without a logger.
 */
export function createRequestLog(
  log: FastifyBaseLogger | undefined,
  clientAddress: (req: IncomingMessage) => string | undefined,
): LogRequest {
  return (reqId, req, statusCode, responseTime) => {
    if (log === undefined || !REQUEST_LOGGING_LEVELS.has(log.level)) return;
    const { method, url } = req;
    log.info(
      { reqId, req: { method, url, ip: clientAddress(req) }, res: { statusCode }, responseTime },
      REQUEST_COMPLETED,
    );
  };
}

/**
 * Fastify's own logging (errors, streams), without its two lines per request: createRequestLog
 * writes the one line, for both paths.
 */
export class OneLinePerRequest extends LogController {
  override incomingRequest(): void {}
  override requestCompleted(): void {}
}

/**
 * Request ids as Fastify makes them by default (`req-1`, `req-2`… in base 36, wrapping below
 * 2^31), from one counter shared by Fastify (its `genReqId`) and the fast lane.
 */
export function createRequestIds(): () => string {
  let next = 0;
  return () => {
    next = (next + 1) & 0x7fffffff;
    return `req-${next.toString(36)}`;
  };
}
