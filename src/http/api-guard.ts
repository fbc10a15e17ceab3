import type { FastifyReply, FastifyRequest } from 'fastify';
import { decideAccess } from '../domain/access.js';
import { hashApiKey, isWellFormedApiKey } from '../domain/api-key.js';
import { errors } from '../domain/errors.js';
import { DEFAULT_RATE_LIMIT, type RateDecision } from '../domain/rate-window.js';
import type { UsageRecorder } from '../accounts/usage-recorder.js';
import type { RateLimiter } from '../ratelimit/types.js';
import type { AccountStore } from '../storage/types.js';
import { apiKeyFromHeaders } from './api-key-header.js';

/** What the guard needs; chosen once at start-up. */
export interface ApiGuardDeps {
  accounts: AccountStore;
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
 * The checks in front of every `/api/v1` route, in the order DESIGN.md fixes: key (401), access
 * (403), per-account rate limit (429). Parameters and existence are checked later by the route.
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
    const owner = await deps.accounts.findKeyOwner(hashApiKey(key));
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
