import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import type { FastifyBaseLogger, FastifyRequest } from 'fastify';
import { apiKeyFromHeaders } from '../api-key-header.js';
import { rateLimitHeaders, type ApiGuard } from '../api-guard.js';
import {
  COMPRESS_FROM_BYTES,
  cachedAnswerHeaders,
  pickEncoding,
  type CachedReplies,
  type SendCached,
} from './body-sender.js';
import type { ResponseCache } from './body-cache.js';

/** Log levels at which Fastify logs every request. */
const REQUEST_LOGGING_LEVELS = new Set(['trace', 'debug', 'info']);

/** URLs remembered; beyond this the oldest is forgotten (an entry is two short strings). */
const MAX_URLS = 10_000;

/** What answering beneath Fastify needs; the same objects the routes and the guard use. */
export interface RepeatAnswersDeps {
  guard: ApiGuard;
  responses: ResponseCache;
  replies: CachedReplies;
  securityHeaders: Readonly<Record<string, string>>;
  /** Counts an answered request, as the app's `onResponse` hook does for the others. */
  answered: (statusCode: number) => void;
  /** Where answered requests are logged (at info, as Fastify logs the others); none if absent. */
  log?: FastifyBaseLogger;
}

/** Answers repeated list requests of the v1 API before Fastify sees them. */
export interface RepeatAnswers {
  /** Notes that the URL of `request` (a v1 list route) is answered by the body kept at `key`. */
  remember(request: FastifyRequest, key: string): void;
  /** Wraps the server's request listener: answers what it can, hands the rest to `next`. */
  listener(next: RequestListener): RequestListener;
}

/** What the list routes answer with: kept bodies, their sender, and the memo of their URLs. */
export interface ListRouteDeps {
  cache: ResponseCache;
  sendCached: SendCached;
  remember: RepeatAnswers['remember'];
}

/**
 * The list routes (countries, channels of a country, search) answer from bodies kept in the
 * response cache, so a repeated request costs only its checks, yet Fastify's request and reply
 * objects, routing, hooks and promise chains took half as much CPU again (`npm run bench`,
 * `/api/v1/countries`: 71–77 µs of server CPU per request through Fastify, 48–58 µs answered
 * here, 23–27 µs for plain node:http sending the bytes with two headers). So a URL a list
 * route has answered is remembered with its cache key, and the next request for it is answered
 * straight from the `node:http` listener when every condition of the cheap case holds: GET, no
 * `If-None-Match`, a key the same API guard admits (valid, not revoked, access eligible; from
 * its caches unless keys or accounts changed), the body kept at the current catalogue version,
 * and its compressed form (when the client takes one) ready. The answer carries the same
 * status, headers and bytes as the route's (`test/http/repeat-answers.test.ts` compares them).
 * Anything else goes to Fastify as it came, nothing counted; a request counted here but refused
 * by the rate limit goes with the guard's verdict, so it is counted once.
 */
export function createRepeatAnswers(deps: RepeatAnswersDeps): RepeatAnswers {
  const urls = new Map<string, string>();
  const security = Object.entries(deps.securityHeaders).flat();

  /** True when the request was answered here. */
  async function answer(req: IncomingMessage, res: ServerResponse, key: string): Promise<boolean> {
    const apiKey = apiKeyFromHeaders(req.headers);
    if (apiKey === null) return false;
    const caller = await deps.guard.admissible(apiKey);
    if (caller === null) return false;
    const prepared = deps.responses.peek(key, caller.versions.catalogue);
    if (prepared === undefined || !Buffer.isBuffer(prepared.body)) return false;
    let body: Buffer | undefined = prepared.body;
    const encoding =
      body.length >= COMPRESS_FROM_BYTES ? pickEncoding(req.headers['accept-encoding']) : null;
    if (encoding !== null) body = deps.replies.compressedNow(prepared, encoding);
    if (body === undefined) return false;

    // Counted from here: answered here, or handed over with the verdict.
    const verdict = await deps.guard.admit(caller);
    if (!verdict.decision.allowed || res.headersSent || req.destroyed) {
      deps.guard.handOver(req, verdict);
      return false;
    }
    const headers = ['Content-Type', 'application/json; charset=utf-8'];
    for (const pair of cachedAnswerHeaders(prepared)) headers.push(...pair);
    for (const pair of rateLimitHeaders(verdict.decision)) headers.push(...pair);
    headers.push(...security, 'Content-Length', String(body.length));
    if (encoding !== null) headers.push('Content-Encoding', encoding);
    res.writeHead(200, headers);
    res.end(body);
    deps.answered(200);
    return true;
  }

  return {
    remember(request, key) {
      const url = request.raw.url;
      if (url === undefined || request.method !== 'GET' || urls.get(url) === key) return;
      urls.delete(url);
      urls.set(url, key);
      if (urls.size > MAX_URLS) {
        const oldest = urls.keys().next();
        if (oldest.done !== true) urls.delete(oldest.value);
      }
    },

    listener(next) {
      return (req, res) => {
        const key =
          req.method === 'GET' && req.headers['if-none-match'] === undefined
            ? urls.get(req.url ?? '')
            : undefined;
        if (key === undefined) {
          next(req, res);
          return;
        }
        const started = performance.now();
        answer(req, res, key).then(
          (answered) => {
            if (!answered) next(req, res);
            else if (deps.log !== undefined && REQUEST_LOGGING_LEVELS.has(deps.log.level)) {
              deps.log.info(
                { req, res, responseTime: performance.now() - started },
                'request completed',
              );
            }
          },
          // A store that fails (an outage) fails the route too, which answers and logs it;
          // nothing was counted or sent here (admit and the write do not throw).
          () => next(req, res),
        );
      };
    },
  };
}
