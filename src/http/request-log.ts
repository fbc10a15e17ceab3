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

/** Texts longer than this are escaped each time rather than remembered (URLs can be long). */
const MAX_REMEMBERED_CHARS = 256;
/** Texts remembered per kind; past this the memo starts again (routes and accounts recur). */
const MAX_REMEMBERED_TEXTS = 10_000;
/** What JSON escapes in a string: its quote, backslash, controls and lone surrogates. */
// eslint-disable-next-line no-control-regex -- control characters are what JSON escapes
const NEEDS_ESCAPE = /["\\\u0000-\u001f\ud800-\udfff]/;

/** A string as a JSON string, as JSON.stringify writes it. */
function jsonString(text: string): string {
  return NEEDS_ESCAPE.test(text) ? JSON.stringify(text) : `"${text}"`;
}

/**
 * jsonString for texts that recur from line to line (methods, routes, URLs, accounts), kept
 * once made: escaping in JSON.stringify is a call into V8's runtime, about a quarter of the
 * line's own cost in a server answering tens of thousands of requests a second
 * (`node bench/request-log-cost.mjs`).
 */
function rememberedJson(): (text: string) => string {
  let made = new Map<string, string>();
  return (text) => {
    const known = made.get(text);
    if (known !== undefined) return known;
    const json = jsonString(text);
    if (text.length <= MAX_REMEMBERED_CHARS) {
      if (made.size >= MAX_REMEMBERED_TEXTS) made = new Map();
      made.set(text, json);
    }
    return json;
  };
}

/**
 * Milliseconds to the microsecond, as JSON writes the number `Math.round(ms * 1000) / 1000`
 * (`1.234`, `0.6`, `12`), made from whole numbers: a fraction's shortest decimal form is the
 * line's dearest number to write otherwise. Null when not finite, as pino writes it.
 */
export function millisecondsJson(ms: number): string {
  if (!Number.isFinite(ms)) return 'null';
  const micros = Math.round(Math.abs(ms) * 1000);
  const sign = ms < 0 && micros > 0 ? '-' : '';
  const whole = Math.floor(micros / 1000);
  let fraction = micros % 1000;
  if (fraction === 0) return `${sign}${whole}`;
  let digits = 3;
  while (fraction % 10 === 0) {
    fraction /= 10;
    digits -= 1;
  }
  return `${sign}${whole}.${String(fraction).padStart(digits, '0')}`;
}

/** What the access lines keep of a connection. */
interface ConnectionSeen {
  /** Bytes written on it up to the end of its last answer. */
  written: number;
  /** The client address member of its lines (`,"remoteAddress":"…"`, or nothing). */
  address: string;
}

/**
 * The one access line logged for every answered request, whichever path answered it (Fastify's
 * own lines are off: OneLinePerRequest): request id, method, redacted URL, client address,
 * route, status, bytes sent (headers included), time in milliseconds to the microsecond,
 * account id; never a header or key.
 *
 * Written by hand into the logger's destination, in the JSON pino writes for the same object
 * (`src/logger.test.ts` compares them), because it runs for every request: pino's generic
 * serialisation of the nested `req`/`res` objects takes about twice as long as this, with more
 * fields (`node bench/request-log-cost.mjs`). What recurs is made once: the JSON of methods,
 * routes, URLs and accounts, and each connection's address member (answers on one connection
 * come from one peer; behind trusted proxies the address is read per request).
 */
export function createRequestLog(
  log: Logger | undefined,
  clientAddress: (req: IncomingMessage) => string | undefined,
  { addressPerConnection = true } = {},
): LogRequest {
  if (log === undefined) return () => {};
  const write = lineWriterOf(log);
  const methodJson = rememberedJson();
  const urlJson = rememberedJson();
  const routeJson = rememberedJson();
  const accountJson = rememberedJson();
  const addressMember = (req: IncomingMessage): string => {
    const address = clientAddress(req);
    return address === undefined ? '' : `,"remoteAddress":${jsonString(address)}`;
  };
  // Answers on one connection end one after another (HTTP/1.1), so the difference between the
  // bytes written now and at the end of the last answer is this answer's.
  const connections = new WeakMap<Socket, ConnectionSeen>();
  return ({ reqId, req, route, statusCode, responseTime, accountId }) => {
    if (!log.isLevelEnabled('info')) return;
    const { socket } = req;
    let seen = connections.get(socket);
    if (seen === undefined) {
      seen = { written: 0, address: addressMember(req) };
      // Injected requests (tests, light-my-request) have a socket that counts nothing.
      if (socket !== undefined) connections.set(socket, seen);
    }
    const written = Number(socket?.bytesWritten);
    const bytes = written - seen.written;
    if (Number.isFinite(written)) seen.written = written;
    write(
      30,
      `,"reqId":${jsonString(reqId)},"req":{"method":${methodJson(req.method ?? '')},` +
        `"url":${urlJson(redactUrl(req.url ?? ''))}` +
        (addressPerConnection ? seen.address : addressMember(req)) +
        (route === undefined ? '' : `,"route":${routeJson(route)}`) +
        `},"res":{"statusCode":${statusCode},"bytes":${jsonNumber(bytes)}},` +
        `"responseTime":${millisecondsJson(responseTime)}` +
        (accountId === undefined ? '' : `,"accountId":${accountJson(accountId)}`),
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
