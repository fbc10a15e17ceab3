import type { FastifyReply, FastifyRequest } from 'fastify';
import { errors } from '../../domain/errors.js';
import type { WindowAt } from '../../domain/schedule-window.js';
import { versionsOf } from '../api-guard.js';
import type { BodyCache } from './body-cache.js';
import type { BodySender, PreparedBody } from './body-sender.js';
import type { MovingAnswer, MovingCache } from './moving-cache.js';
import type { ScheduleCache } from './schedule-cache.js';

/**
 * One request's answer as a cached route declares it, once its parameters are checked: where
 * the answer is kept and how it is made. Both ways give the same bytes.
 */
export interface KeptAnswer {
  /**
   * The answer at catalogue `version` for the time `nowMs`, built and kept when missing; throws
   * the route's error when there is none (404). The route's way.
   */
  fetch(version: string, nowMs: number): Promise<PreparedBody>;
  /**
   * The same answer when it is kept already, else undefined: reads nothing, builds nothing,
   * never waits. The fast lane's way, for a URL the route has answered before.
   */
  peek(version: string, nowMs: number): PreparedBody | undefined;
}

/**
 * When an answer is kept: `always` (the first time it is made), or `when-asked-again` (only once
 * its key has been asked before): for answers most of which are asked once, such as programme
 * searches (the words one user typed), which kept at once would push out the answers asked
 * again and again (the lists, guide grids) and, kept until pushed out, leave V8 more to collect:
 * under "news" searches, 24 full collections in 8 s kept at once against 5 not kept
 * (`node --trace-gc bin/onair serve`), and their p99 a quarter to a half lower since
 * (`node bench/search.mjs --cases frequent`; bench/RESULTS.md).
 */
export type Keeping = 'always' | 'when-asked-again';

/** The cached routes' answers: how a route declares one, and the one way they are sent. */
export interface CachedAnswers {
  /** A body kept under `key` (route and parameters), built by `build` at each catalogue version. */
  body(key: string, build: () => Promise<string | Buffer>, keeping?: Keeping): KeptAnswer;
  /** A window of a channel's schedule, resolved at the time of each answer; 404 without one. */
  schedule(channelId: string, windowAt: WindowAt): KeptAnswer;
  /**
   * An answer for the instant `instantAt` gives at the time of each request (the request's
   * own, or `now`), kept under `key` while the programmes it shows stay the same (moving-cache.ts).
   */
  moving(
    key: string,
    instantAt: (nowMs: number) => number,
    build: (instantMs: number) => Promise<MovingAnswer>,
    keeping?: Keeping,
  ): KeptAnswer;
  /**
   * Sends `answer` at the request's data versions, with its ETag (304 when the client has it),
   * compression and caching headers, and lets the fast lane answer the same URL next time.
   */
  send(request: FastifyRequest, reply: FastifyReply, answer: KeptAnswer): Promise<FastifyReply>;
}

export interface CachedAnswersDeps {
  bodies: BodyCache;
  schedules: ScheduleCache;
  moving: MovingCache;
  sender: BodySender;
  /** Notes that a GET of `url` is answered by `answer`, of `route` (see fast-lane.ts). */
  remember: (url: string, answer: KeptAnswer, route: string) => void;
  now: () => number;
}

/**
 * Routes declare their answer (a kept body by key, or a schedule window) instead of caching by
 * hand, and send it here: so every cached v1 answer gets the same headers, and the fast lane.
 */
export function createCachedAnswers(deps: CachedAnswersDeps): CachedAnswers {
  const { bodies, schedules, moving, sender } = deps;
  const asked = askedBefore();
  /**
   * Whether an answer of `keeping` under `key`, made now, is kept: always, or when its key was
   * asked before (an answer kept under it that has gone stale counts).
   */
  const keeps = (keeping: Keeping, key: string, kept: (key: string) => boolean) =>
    keeping === 'always' || kept(key) || asked(key);
  return {
    body: (key, build, keeping = 'always') => ({
      fetch: (version) =>
        keeps(keeping, key, bodies.has)
          ? bodies.get(key, version, build)
          : bodies.made(key, version, build),
      peek: (version) => bodies.peek(key, version),
    }),

    schedule: (channelId, windowAt) => ({
      async fetch(version, nowMs) {
        const body = await schedules.body(channelId, windowAt(nowMs), version);
        if (body === null) throw errors.channelNotFound();
        return body;
      },
      peek: (version, nowMs) => schedules.peek(channelId, windowAt(nowMs), version),
    }),

    moving: (key, instantAt, build, keeping = 'always') => ({
      fetch: (version, nowMs) =>
        keeps(keeping, key, moving.has)
          ? moving.get(key, version, instantAt(nowMs), build)
          : moving.made(key, version, instantAt(nowMs), build),
      peek: (version, nowMs) => moving.peek(key, version, instantAt(nowMs)),
    }),

    async send(request, reply, answer) {
      const prepared = await answer.fetch(versionsOf(request).catalogue, deps.now());
      const url = request.raw.url;
      if (request.method === 'GET' && url !== undefined) {
        deps.remember(url, answer, request.routeOptions.url ?? '');
      }
      return sender.send(request, reply, prepared);
    },
  };
}

/** Characters of keys remembered as asked once, at most; then they are all forgotten. */
const MAX_ASKED_CHARS = 4 * 1024 * 1024;

/**
 * Whether a key was asked before (since the keys were last forgotten); notes it when not. A key
 * asked again is forgotten here: its answer is kept from then on, until its cache pushes it out.
 */
function askedBefore(): (key: string) => boolean {
  let once = new Set<string>();
  let chars = 0;
  return (key) => {
    if (once.delete(key)) {
      chars -= key.length;
      return true;
    }
    if (chars + key.length > MAX_ASKED_CHARS) {
      once = new Set();
      chars = 0;
    }
    once.add(key);
    chars += key.length;
    return false;
  };
}
