import type { IncomingHttpHeaders } from 'node:http';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { CorsOrigins } from '../config.js';
import type { HeaderPairs } from './authorize.js';

/**
 * The paths a web page of another origin may call: the keyed v1 API and the keyless playground
 * API. The HTML pages and the feeds are not for scripts of other sites.
 */
const CROSS_ORIGIN_PATH = /^\/(?:api\/v1|playground\/api)(?:[/?]|$)/;

/** Whether `url` (a request's path and query) is one of the API's. */
export function isCrossOriginApiUrl(url: string): boolean {
  return CROSS_ORIGIN_PATH.test(url);
}

/** The request headers a page may send: the key (either header) and a cached answer's tag. */
const ALLOW_HEADERS = 'Authorization, X-API-Key, If-None-Match';
/**
 * The answer headers a page's script may read beyond the safelisted ones: the budget, when to
 * retry, and the tag it may send back in If-None-Match.
 */
const EXPOSE_HEADERS = 'RateLimit, RateLimit-Policy, Retry-After, ETag';
/**
 * How long a browser may keep a preflight's answer: two hours, the most Chromium keeps one
 * (Firefox keeps a day), so a page calling many URLs is not held up by a preflight before each.
 */
const PREFLIGHT_MAX_AGE_SECONDS = 7200;

const NONE: HeaderPairs = Object.freeze([]);

/**
 * Which cross-origin headers the API's answers carry, decided once from CORS_ORIGINS, and used by
 * every path that answers an API request: Fastify's routes, refusals and errors (registerCors),
 * and the fast lane beneath Fastify (answers/fast-lane.ts).
 */
export interface Cors {
  /** False without CORS_ORIGINS: then nothing is added anywhere and OPTIONS is as before. */
  readonly enabled: boolean;
  /** The CORS headers of an API answer to a request with this `Origin` header. */
  answerHeaders(origin: string | undefined): HeaderPairs;
  /**
   * The headers of the 204 that answers a CORS preflight (an OPTIONS with `Origin` and
   * `Access-Control-Request-Method`), or null when the request is not one or CORS is off.
   */
  preflightHeaders(method: string | undefined, headers: IncomingHttpHeaders): HeaderPairs | null;
}

/**
 * The API's CORS policy. With `*`, every answer lets any page read it, whatever the `Origin`
 * (so the answer does not vary by it). With a list, a listed `Origin` is named back and any other
 * gets no CORS header; since that makes the answer depend on `Origin`, every answer says
 * `Vary: Origin`, or a cache could give one origin's answer to another. Nothing is allowed with
 * credentials: the key travels in a header the page sets, never in a cookie.
 */
export function createCors(origins: CorsOrigins): Cors {
  const any = origins === '*';
  const listed = new Set(any ? [] : origins);
  const enabled = any || listed.size > 0;

  const allowed = (origin: string | undefined): string | null => {
    if (any) return '*';
    return origin !== undefined && listed.has(origin) ? origin : null;
  };

  const everyOrigin: HeaderPairs = Object.freeze([
    ['access-control-allow-origin', '*'],
    ['access-control-expose-headers', EXPOSE_HEADERS],
  ]);
  const unlisted: HeaderPairs = Object.freeze([['vary', 'Origin']]);

  return {
    enabled,

    answerHeaders(origin) {
      if (!enabled) return NONE;
      if (any) return everyOrigin;
      const allow = allowed(origin);
      if (allow === null) return unlisted;
      return [
        ['access-control-allow-origin', allow],
        ['access-control-expose-headers', EXPOSE_HEADERS],
        ['vary', 'Origin'],
      ];
    },

    preflightHeaders(method, headers) {
      if (!enabled || method !== 'OPTIONS') return null;
      const origin = headers.origin;
      if (origin === undefined || headers['access-control-request-method'] === undefined) {
        return null;
      }
      const allow = allowed(origin);
      // An unlisted origin's preflight is answered too, without permission: its page's request
      // is then not sent, and the refusal costs no key check.
      if (allow === null) return unlisted;
      return [
        ['access-control-allow-origin', allow],
        ['access-control-allow-methods', 'GET, HEAD'],
        ['access-control-allow-headers', ALLOW_HEADERS],
        ['access-control-max-age', String(PREFLIGHT_MAX_AGE_SECONDS)],
        ['vary', 'Origin'],
      ];
    },
  };
}

/** `Vary` with `token` added to what it lists already (one header, as the cached answers send). */
export function varyWith(current: string | undefined, token: string): string {
  if (current === undefined || current === '') return token;
  const listed = current.split(',').map((part) => part.trim().toLowerCase());
  return listed.includes(token.toLowerCase()) ? current : `${current}, ${token}`;
}

/**
 * Merges the `Vary` of `cors` into the one of an answer's header pairs (or adds it) and returns
 * the other CORS headers, which a route's answer carries after its security headers (applyCors
 * runs as the answer is sent).
 */
export function mergeCorsVary(pairs: [string, string][], cors: HeaderPairs): HeaderPairs {
  const rest: (readonly [string, string])[] = [];
  for (const pair of cors) {
    const [name, value] = pair;
    if (name !== 'vary') rest.push(pair);
    else {
      const vary = pairs.find(([existing]) => existing === 'vary');
      if (vary !== undefined) vary[1] = varyWith(vary[1], value);
      else pairs.push([name, value]);
    }
  }
  return rest;
}

/** Sets the CORS headers of an API answer on a Fastify reply (see Cors.answerHeaders). */
export function applyCors(cors: Cors, request: FastifyRequest, reply: FastifyReply): void {
  if (!cors.enabled || !isCrossOriginApiUrl(request.url)) return;
  // A preflight's 204 has its own headers (registerCors).
  if (cors.preflightHeaders(request.method, request.headers) !== null) return;
  for (const [name, value] of cors.answerHeaders(request.headers.origin)) {
    if (name === 'vary') {
      const current = reply.getHeader('vary');
      reply.header('vary', varyWith(typeof current === 'string' ? current : undefined, value));
    } else {
      reply.header(name, value);
    }
  }
}

/**
 * The Fastify side of CORS, for the API's paths: a preflight is answered 204 before any other
 * hook (before the API guard: a browser sends no key with it, and it reads no data), and every
 * other answer (routes, 304s, the guard's refusals, errors, 404s) gets the CORS headers as it is
 * sent. Nothing is registered when CORS is off, so answers stay as they are.
 */
export function registerCors(app: FastifyInstance, cors: Cors): void {
  if (!cors.enabled) return;
  app.addHook('onRequest', async (request, reply) => {
    if (!isCrossOriginApiUrl(request.url)) return;
    const preflight = cors.preflightHeaders(request.method, request.headers);
    if (preflight === null) return;
    for (const [name, value] of preflight) reply.header(name, value);
    return reply.code(204).send();
  });
  // A callback hook, as the security headers' one: it runs for every response.
  app.addHook('onSend', (request, reply, payload, done) => {
    applyCors(cors, request, reply);
    done(null, payload);
  });
}
