import type { IncomingMessage, ServerResponse } from 'node:http';
import { pino, stdSerializers, type Logger } from 'pino';

/** An API key anywhere in a URL, its `_` possibly percent-encoded. */
const API_KEY_IN_URL = /onair(?:_|%5f)[0-9a-z]{38}/gi;

/** A guide feed's token: the path segment after `/feeds/` (its URL is its only credential). */
const FEED_TOKEN_IN_URL = /(\/feeds\/)[^/?#]+/gi;

/**
 * Sign-in tokens travel in the query of e-mailed links, and a customer may paste an API key
 * into a URL by mistake (the query string is ignored for keys, but the URL is logged): neither
 * reaches the log.
 */
export function redactUrl(url: string): string {
  return url
    .replace(/([?&]token=)[^&#]*/gi, '$1[redacted]')
    .replace(API_KEY_IN_URL, 'onair_[redacted]')
    .replace(FEED_TOKEN_IN_URL, '$1[redacted]');
}

/**
 * The process logger (pino, JSON lines), shared by Fastify and the services. Requests are
 * logged with method, redacted URL and client address; headers (API keys, cookies) never are.
 */
export function createLogger(
  level: string,
  destination: NodeJS.WritableStream = process.stdout,
): Logger {
  // A reader of the log that goes away (a closed pipe) must not take the server down: its
  // EPIPE would otherwise be an unhandled 'error' event. The lines after it are lost.
  destination.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EPIPE') throw error;
  });
  return pino(
    {
      level,
      serializers: {
        req: (req: IncomingMessage & { ip?: string }) => ({
          method: req.method,
          url: redactUrl(req.url ?? ''),
          remoteAddress: req.ip ?? req.socket?.remoteAddress,
        }),
        res: (res: ServerResponse) => ({ statusCode: res.statusCode }),
        err: stdSerializers.err,
      },
    },
    destination,
  );
}
