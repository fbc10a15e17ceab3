import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError, errors } from '../domain/errors.js';
import { isStorageUnavailable } from '../storage/errors.js';
import { securityHeaders } from './security-headers.js';
import type { ErrorBody } from './schemas.js';

/** Sends an AppError as the JSON body every error of the service has. */
export function sendError(reply: FastifyReply, error: AppError): FastifyReply {
  if (error.retryAfterSeconds !== undefined && (error.status === 429 || error.status === 503)) {
    reply.header('Retry-After', String(error.retryAfterSeconds));
  }
  if (error.status === 405) reply.header('Allow', 'GET, HEAD');
  const body: ErrorBody = { error: error.message, code: error.code };
  return reply.code(error.status).type('application/json; charset=utf-8').send(body);
}

/**
 * Turns anything thrown while handling a request into a contract error. AppErrors pass as they
 * are; Fastify's own client errors (validation, bad URL, body problems) become 400s; the rest
 * is logged and answered 500 without details.
 */
export function toAppError(error: unknown): AppError {
  if (error instanceof AppError) return error;
  if (isStorageUnavailable(error)) {
    return errors.serviceUnavailable('The service cannot reach its database; try again shortly');
  }
  const fastifyError = error as Partial<FastifyError>;
  if (fastifyError.validation !== undefined) {
    return errors.invalidParameters(describeValidationFailure(fastifyError));
  }
  const status = fastifyError.statusCode;
  if (status === 413) return errors.payloadTooLarge();
  if (typeof status === 'number' && status >= 400 && status < 500) {
    return errors.badRequest(fastifyError.message ?? 'Bad request');
  }
  return errors.internal();
}

/**
 * Query parameters arrive as strings, or as an array when a parameter is repeated: a string
 * parameter that fails its type check was given more than once, and the message says so.
 */
function describeValidationFailure(error: Partial<FastifyError>): string {
  const first = error.validation?.[0];
  if (error.validationContext === 'querystring' && first?.keyword === 'type') {
    const name = first.instancePath.replace(/^\//, '');
    if (name !== '') return `Parameter ${name} is given more than once`;
  }
  return `Invalid request: ${error.message ?? 'bad parameters'}`;
}

/** The areas whose unknown paths answer with the JSON error: the API, its preview, the feeds. */
const JSON_AREAS = ['/api', '/playground/api', '/feeds'];

/** Whether an unknown URL is the API's (or a feed's) to answer, rather than the pages'. */
export function isJsonArea(url: string): boolean {
  const path = url.split('?', 1)[0] ?? '';
  return JSON_AREAS.some((area) => path === area || path.startsWith(`${area}/`));
}

/** An answer outside the JSON areas: one of the site's error pages. */
export type ErrorPage = (request: FastifyRequest, reply: FastifyReply) => Promise<FastifyReply>;

/** The site's error pages (web/error-pages.ts): an unknown path, an unreadable address. */
export interface ErrorPages {
  notFound: ErrorPage;
  badAddress: ErrorPage;
}

/**
 * Installs the one place where errors become HTTP responses. Unknown paths get the JSON error
 * in the JSON areas, and the site's 404 page elsewhere (when given).
 */
export function registerErrorHandling(app: FastifyInstance, pages?: ErrorPages): void {
  app.setErrorHandler((error: unknown, request: FastifyRequest, reply: FastifyReply) => {
    const appError = toAppError(error);
    if (appError.status >= 500 && appError.code === 'INTERNAL_ERROR') {
      request.log.error({ err: error }, 'request failed');
    } else if (appError.code === 'SERVICE_UNAVAILABLE') {
      request.log.warn({ error: (error as Error).message }, 'storage unavailable');
    }
    return sendError(reply, appError);
  });
  app.setNotFoundHandler((request, reply) =>
    pages === undefined || isJsonArea(request.url)
      ? sendError(reply, errors.notFound())
      : pages.notFound(request, reply),
  );
}

/** The security headers as raw header lines (the plain-http set: the raw path cannot know). */
const RAW_SECURITY_HEADERS = Object.entries(securityHeaders(false)).map(
  ([name, value]) => `${name}: ${value}`,
);

function rawErrorResponse(error: AppError): string {
  const body = JSON.stringify({ error: error.message, code: error.code });
  return [
    `HTTP/1.1 ${error.status} ${STATUS_CODES[error.status] ?? 'Error'}`,
    'Content-Type: application/json; charset=utf-8',
    `Content-Length: ${Buffer.byteLength(body)}`,
    ...RAW_SECURITY_HEADERS,
    'Connection: close',
    '',
    body,
  ].join('\r\n');
}

/**
 * Errors Node's HTTP parser raises before Fastify sees a request (oversized headers, malformed
 * request lines) are answered on the raw socket, still as JSON with a code.
 */
export function clientErrorHandler(error: Error & { code?: string }, socket: Socket): void {
  if (error.code === 'ECONNRESET' || !socket.writable) return;
  const response =
    error.code === 'HPE_HEADER_OVERFLOW'
      ? rawErrorResponse(errors.headersTooLarge())
      : error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? rawErrorResponse(errors.requestTimeout())
        : error.code === 'HPE_INVALID_URL'
          ? rawErrorResponse(errors.unencodedUrl())
          : rawErrorResponse(errors.malformedHttp());
  socket.end(response);
}
