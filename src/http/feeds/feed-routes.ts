import type { FastifyInstance } from 'fastify';
import { decideAccess } from '../../domain/access.js';
import { errors } from '../../domain/errors.js';
import { hashFeedToken } from '../../domain/feed.js';
import { retryAfterSeconds } from '../../domain/rate-window.js';
import type { RateLimiter } from '../../ratelimit/types.js';
import type { Store } from '../../storage/store.js';
import { acceptsGzip, type FeedAnswers, type FeedForm } from '../answers/feed-answers.js';
import { sendError } from '../error-handler.js';
import { refuseOtherMethods } from '../method-guard.js';
import { FeedParams } from '../schemas.js';

export interface FeedRouteDeps {
  store: Pick<Store, 'feeds' | 'versions'>;
  answers: FeedAnswers;
  /** Counts fetches per feed in its own windows (FEED_WINDOW_MS), apart from the API's budget. */
  limiter: RateLimiter;
  limit: number;
  now: () => number;
}

export const FEED_PATH = '/feeds/:token/guide.xml';
export const FEED_GZ_PATH = '/feeds/:token/guide.xml.gz';

/**
 * The XMLTV feeds: the token in the path is the only credential (media servers cannot send a
 * key header). Unknown and replaced tokens get the same 404 after the same work (one hash, one
 * indexed read); then the account's access rules (403), the feed's budget (429), the answer.
 */
export function registerFeedRoutes(app: FastifyInstance, deps: FeedRouteDeps): void {
  for (const [url, gzFile] of [
    [FEED_PATH, false],
    [FEED_GZ_PATH, true],
  ] as const) {
    app.get<{ Params: FeedParams }>(
      url,
      { schema: { summary: 'XMLTV guide feed', params: FeedParams } },
      async (request, reply) => {
        const owner = await deps.store.feeds.findFeedByToken(hashFeedToken(request.params.token));
        if (owner === null) return sendError(reply, errors.notFound());
        const nowMs = deps.now();
        const access = decideAccess(owner.account, nowMs);
        if (!access.eligible) return sendError(reply, access.error);
        const decision = await deps.limiter.hit(owner.feed.id, deps.limit);
        if (!decision.allowed) {
          return sendError(reply, errors.feedRateLimited(retryAfterSeconds(decision)));
        }
        const form: FeedForm = gzFile
          ? 'gz-file'
          : acceptsGzip(request.headers['accept-encoding'])
            ? 'gzip'
            : 'plain';
        const versions = await deps.store.versions();
        return deps.answers.send(request, reply, owner.feed, versions.catalogue, form, nowMs);
      },
    );
    // Before the token: the path's methods are no secret.
    refuseOtherMethods(app, url);
  }
}
