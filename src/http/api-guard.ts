import type { FastifyReply, FastifyRequest } from 'fastify';
import { decideAccess } from '../domain/access.js';
import { hashApiKey, isWellFormedApiKey } from '../domain/api-key.js';
import { errors } from '../domain/errors.js';
import { DEFAULT_RATE_LIMIT, type RateDecision } from '../domain/rate-window.js';
import type { KeyOwnerCache } from '../accounts/key-owner-cache.js';
import type { UsageRecorder } from '../accounts/usage-recorder.js';
import type { RateLimiter } from '../ratelimit/types.js';
import type { DataVersions } from '../storage/types.js';
import { apiKeyFromHeaders } from './api-key-header.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The data versions read for this request by the API guard (null before it ran). */
    dataVersions: DataVersions | null;
  }
}

/** What the guard needs; chosen once at start-up. */
export interface ApiGuardDeps {
  /** The store's data versions, read once per request (see Store.versions). */
  versions: () => Promise<DataVersions>;
  keyOwners: KeyOwnerCache;
  /** Per-account budget of every authenticated v1 request. */
  accountLimiter: RateLimiter;
  /** Per-client-IP budget of requests whose key is missing or invalid. */
  authFailureLimiter: RateLimiter;
  authFailureLimit: number;
  /** Notes key use and request counts for the account page, off the request path. */
  usage: UsageRecorder;
  now: () => number;
}

function setRateLimitHeaders(reply: FastifyReply, decision: RateDecision): void {
  const reset = Math.max(1, Math.ceil(decision.resetMs / 1000));
  reply.header('RateLimit-Policy', `${decision.limit};w=1`);
  reply.header(
    'RateLimit',
    `limit=${decision.limit}, remaining=${decision.remaining}, reset=${reset}`,
  );
}

/**
 * The data versions the guard read for this request: the routes answer from caches built at
 * that catalogue version, so one request sees one state of the data.
 */
export function versionsOf(request: FastifyRequest): DataVersions {
  if (request.dataVersions === null) throw new Error('the API guard has not run for this request');
  return request.dataVersions;
}

/**
 * The checks in front of every `/api/v1` route, in the order DESIGN.md fixes: key (401), access
 * (403), per-account rate limit (429). Parameters and existence are checked later by the route.
 * Keys are looked up through the key-owner cache, valid while the auth version is unchanged, so
 * a request costs no key query unless a key or account changed. Register with
 * `app.decorateRequest('dataVersions', null)`.
 */
export function createApiGuard(deps: ApiGuardDeps) {
  async function refuseKey(request: FastifyRequest): Promise<never> {
    const decision = await deps.authFailureLimiter.hit(`ip:${request.ip}`, deps.authFailureLimit);
    if (!decision.allowed) {
      throw errors.authRateLimited(Math.max(1, Math.ceil(decision.resetMs / 1000)));
    }
    throw errors.unauthorized();
  }

  return async function apiGuard(request: FastifyRequest, reply: FastifyReply): Promise<void> {
    const key = apiKeyFromHeaders(request.headers);
    // Garbage is refused on shape and checksum alone, without a database read.
    if (key === null || !isWellFormedApiKey(key)) return refuseKey(request);
    const versions = await deps.versions();
    request.dataVersions = versions;
    const owner = await deps.keyOwners.find(hashApiKey(key), versions.auth);
    if (owner === null || owner.revoked) return refuseKey(request);

    const access = decideAccess(owner.account, deps.now());
    if (!access.eligible) throw access.error;

    const limit = owner.account.rateLimit ?? DEFAULT_RATE_LIMIT;
    const decision = await deps.accountLimiter.hit(`account:${owner.account.id}`, limit);
    deps.usage.record(owner.keyId, owner.account.id, deps.now(), !decision.allowed);
    setRateLimitHeaders(reply, decision);
    if (!decision.allowed) {
      throw errors.rateLimited(Math.max(1, Math.ceil(decision.resetMs / 1000)));
    }
  };
}
