import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import { setWithin } from '../../domain/bounded-map.js';
import { passOnWithVerdict } from '../api-guard.js';
import type { Authorize, Verdict } from '../authorize.js';
import { mergeCorsVary, type Cors } from '../cors.js';
import {
  COMPRESS_FROM_BYTES,
  cachedAnswerHeaders,
  lengthOf,
  pickEncoding,
  type BodySender,
} from './body-sender.js';
import type { KeptAnswer } from './cached-answers.js';

/** URLs remembered; beyond this the oldest is forgotten (an entry is a URL and two closures). */
const MAX_URLS = 10_000;

/** What answering beneath Fastify needs; the same objects the routes and the guard use. */
export interface FastLaneDeps {
  authorize: Authorize;
  /** The client's address, as the guard's hook asks it (see client-address.ts). */
  clientAddress: (req: IncomingMessage) => string | undefined;
  sender: Pick<BodySender, 'compressedNow'>;
  securityHeaders: Readonly<Record<string, string>>;
  /** The CORS headers, as registerCors adds them to the routes' answers. */
  cors: Pick<Cors, 'answerHeaders'>;
  now: () => number;
  /** Counts and logs an answered request, as the app does for the others. */
  answered: (
    req: IncomingMessage,
    route: string,
    statusCode: number,
    responseTime: number,
    accountId: string,
  ) => void;
}

/** Answers repeated requests of cached v1 routes before Fastify sees them. */
export interface FastLane {
  /** Notes that a GET of `url` (of the cached v1 route `route`) is answered by `answer`. */
  remember(url: string, answer: KeptAnswer, route: string): void;
  /** Wraps the server's request listener: answers what it can, passes the rest to `next`. */
  listener(next: RequestListener): RequestListener;
}

/**
 * The cached v1 routes answer from kept bodies, so a repeated request costs only its checks,
 * yet Fastify's request and reply objects, routing, hooks and promise chains took half as much
 * CPU again (`npm run bench`, `/api/v1/countries`: 71–77 µs of server CPU per request through
 * Fastify, 48–58 µs answered here, 23–27 µs for plain node:http sending the bytes with two
 * headers). So each URL a cached route has answered is remembered with the answer it declared
 * (cached-answers.ts), and the next GET of it without `If-None-Match` is authorised here, by the
 * same `authorize` as the guard's hook, and answered straight from the `node:http` listener when
 * the answer is kept at the current catalogue version (for schedules: for the window at this
 * moment) and its compressed form, when the client takes one, is ready. The answer carries the
 * same status, headers and bytes as the route's (`test/http/fast-lane.test.ts` compares them).
 * Anything else goes on to Fastify with its verdict (refusals, answers not kept): it is
 * authorised and counted once, whichever path answers it.
 */
export function createFastLane(deps: FastLaneDeps): FastLane {
  const answers = new Map<string, { answer: KeptAnswer; route: string }>();
  // Names in lower case, as Fastify sends them: the same header lines as the routes' answers.
  const security = Object.entries(deps.securityHeaders).flatMap(([name, value]) => [
    name.toLowerCase(),
    value,
  ]);

  /** True when the request was answered here (then nothing was written otherwise). */
  function answerNow(
    req: IncomingMessage,
    res: ServerResponse,
    verdict: Verdict,
    answer: KeptAnswer,
  ): boolean {
    if (!verdict.admitted || res.headersSent || req.destroyed) return false;
    const prepared = answer.peek(verdict.versions.catalogue, deps.now());
    if (prepared === undefined) return false;
    const length = lengthOf(prepared.body);
    const encoding =
      length >= COMPRESS_FROM_BYTES ? pickEncoding(req.headers['accept-encoding']) : null;
    const body =
      encoding !== null
        ? deps.sender.compressedNow(prepared, encoding)
        : Buffer.isBuffer(prepared.body)
          ? prepared.body
          : undefined; // parts are streamed by the route
    if (body === undefined) return false;

    // In the order the route's answer has them (test/http/fast-lane.test.ts compares the lines):
    // the guard's, the kept answer's, then those set as Fastify sends it.
    const headers: string[] = [];
    for (const [name, value] of verdict.headers) headers.push(name, value);
    const answerHeaders = cachedAnswerHeaders(prepared);
    const cors = mergeCorsVary(answerHeaders, deps.cors.answerHeaders(req.headers.origin));
    for (const [name, value] of answerHeaders) headers.push(name, value);
    headers.push('content-type', 'application/json; charset=utf-8');
    if (encoding !== null) headers.push('content-encoding', encoding);
    headers.push(...security);
    for (const [name, value] of cors) headers.push(name, value);
    headers.push('content-length', String(body.length));
    res.writeHead(200, headers);
    res.end(body);
    return true;
  }

  return {
    remember(url, answer, route) {
      // A URL always declares the same answer: its route and parameters are in it.
      if (answers.has(url)) return;
      setWithin(answers, url, { answer, route }, MAX_URLS);
    },

    listener(next) {
      return (req, res) => {
        const remembered =
          req.method === 'GET' && req.headers['if-none-match'] === undefined
            ? answers.get(req.url ?? '')
            : undefined;
        if (remembered === undefined) {
          next(req, res);
          return;
        }
        const started = performance.now();
        const verdict = deps.authorize(req.headers, () => deps.clientAddress(req));
        const passOn = () => {
          passOnWithVerdict(req, Promise.resolve(verdict));
          next(req, res);
        };
        const answerWith = (decided: Verdict): string | null =>
          decided.admitted && answerNow(req, res, decided, remembered.answer)
            ? decided.owner.account.id
            : null;
        if (!(verdict instanceof Promise)) {
          // Decided at once (embedded mode, everything in memory): answered in this turn. What
          // could not be sent goes on to Fastify, as from the promise below.
          let accountId: string | null;
          try {
            accountId = answerWith(verdict);
          } catch {
            accountId = null;
          }
          if (accountId === null) passOn();
          else deps.answered(req, remembered.route, 200, performance.now() - started, accountId);
          return;
        }
        verdict.then(answerWith).then(
          (accountId) => {
            if (accountId === null) passOn();
            else deps.answered(req, remembered.route, 200, performance.now() - started, accountId);
          },
          // A store that fails (an outage) rejects the verdict: the guard's hook gets the same
          // error, and Fastify answers and logs it.
          passOn,
        );
      };
    },
  };
}
