import type { IncomingMessage, ServerResponse } from 'node:http';
import { pino, stdSerializers, type Logger } from 'pino';

/** Sign-in tokens travel in the query of e-mailed links: they never reach the log. */
export function redactUrl(url: string): string {
  return url.replace(/([?&]token=)[^&#]*/gi, '$1[redacted]');
}

/**
 * The process logger (pino, JSON lines), shared by Fastify and the services. Requests are
 * logged with method, redacted URL and client address; headers (API keys, cookies) never are.
 */
export function createLogger(level: string, destination?: NodeJS.WritableStream): Logger {
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
    destination ?? process.stdout,
  );
}
