import type { IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import { LogController } from 'fastify';
import type { Logger } from 'pino';
import { REQUEST_COMPLETED, lineWriterOf, redactUrl } from '../logger.js';

/** What the access line of one answered request says, from whichever path answered it. */
export interface AnsweredRequest {
  reqId: string;
  req: IncomingMessage;
  /** The path pattern of the route that answered (`/api/v1/countries/:countryCode/channels`). */
  route: string | undefined;
  statusCode: number;
  /** Milliseconds from the request's arrival to the end of its answer. */
  responseTime: number;
  /** The account the key belongs to, once the key was recognised; never the key. */
  accountId: string | undefined;
}

/** Logs one answered request; see createRequestLog. */
export type LogRequest = (answered: AnsweredRequest) => void;

/**
 * The one access line logged for every answered request, whichever path answered it (Fastify's
 * own lines are off: OneLinePerRequest): request id, method, redacted URL, client address,
 * route, status, bytes sent (headers included), time, account id; never a header or key.
 *
 * Written by hand into the logger's destination, in the JSON pino writes for the same object
 * (`src/logger.test.ts` compares them), because it runs for every request: pino's generic
 * serialisation of the nested `req`/`res` objects took 2.1–3.3 µs a line against 1.6–2.5 µs
 * for this, with more fields (`node bench/request-log-cost.mjs`).
 */
export function createRequestLog(
  log: Logger | undefined,
  clientAddress: (req: IncomingMessage) => string | undefined,
): LogRequest {
  if (log === undefined) return () => {};
  const write = lineWriterOf(log);
  // Bytes written on each connection up to the end of its last answer: answers on one
  // connection end one after another (HTTP/1.1), so the difference is this answer's bytes.
  const writtenBefore = new WeakMap<Socket, number>();
  return ({ reqId, req, route, statusCode, responseTime, accountId }) => {
    if (!log.isLevelEnabled('info')) return;
    const { socket } = req;
    // Injected requests (tests, light-my-request) have a socket that counts nothing.
    const written = Number(socket?.bytesWritten);
    const bytes = written - (writtenBefore.get(socket) ?? 0);
    if (Number.isFinite(written)) writtenBefore.set(socket, written);
    const address = clientAddress(req);
    write(
      30,
      `,"reqId":${JSON.stringify(reqId)},"req":{"method":${JSON.stringify(req.method ?? '')},` +
        `"url":${JSON.stringify(redactUrl(req.url ?? ''))}` +
        (address === undefined ? '' : `,"remoteAddress":${JSON.stringify(address)}`) +
        (route === undefined ? '' : `,"route":${JSON.stringify(route)}`) +
        `},"res":{"statusCode":${statusCode},"bytes":${jsonNumber(bytes)}},` +
        `"responseTime":${jsonNumber(responseTime)}` +
        (accountId === undefined ? '' : `,"accountId":${JSON.stringify(accountId)}`),
      REQUEST_COMPLETED,
    );
  };
}

/** A number in JSON as pino writes it: null when it is not finite (JSON has no NaN). */
function jsonNumber(value: number): string {
  return Number.isFinite(value) ? String(value) : 'null';
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
