import type { IncomingMessage } from 'node:http';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { decideAccess } from '../domain/access.js';
import { hashApiKey, isWellFormedApiKey } from '../domain/api-key.js';
import { errors } from '../domain/errors.js';
import { DEFAULT_RATE_LIMIT, type RateDecision } from '../domain/rate-window.js';
import type { KeyOwnerCache } from '../accounts/key-owner-cache.js';
import type { UsageRecorder } from '../accounts/usage-recorder.js';
import type { RateLimiter } from '../ratelimit/types.js';
import type { DataVersions } from '../storage/store.js';
import type { KeyOwner } from '../domain/account.js';
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

/** The `RateLimit-Policy` and `RateLimit` headers of a decision, as [name, value] pairs. */
export function rateLimitHeaders(decision: RateDecision): [string, string][] {
  const reset = Math.max(1, Math.ceil(decision.resetMs / 1000));
  return [
    ['RateLimit-Policy', `${decision.limit};w=1`],
    ['RateLimit', `limit=${decision.limit}, remaining=${decision.remaining}, reset=${reset}`],
  ];
}

/** A key's owner who may use the API now, and the data versions read for the request. */
export interface AdmissibleCaller {
  versions: DataVersions;
  owner: KeyOwner;
}

/** What the guard decided for a counted request: the versions it read and the rate decision. */
export interface GuardVerdict {
  versions: DataVersions;
  decision: RateDecision;
}

/**
 * The data versions the guard read for this request: the routes answer from caches built at
 * that catalogue version, so one request sees one state of the data.
 */
export function versionsOf(request: FastifyRequest): DataVersions {
  if (request.dataVersions === null) throw new Error('the API guard has not run for this request');
  return request.dataVersions;
}

/** The guard of the `/api/v1` routes, used by Fastify's hook and by the answers beneath it. */
export interface ApiGuard {
  /** Fastify `onRequest` hook: refuses with 401, 403 or 429, else lets the route answer. */
  hook(request: FastifyRequest, reply: FastifyReply): Promise<void>;
  /**
   * The caller of an API key who may use the API now (valid key, not revoked, access
   * eligible), or null. Counts nothing: a null sends the request through `hook`, whose
   * refusals carry their own limits.
   */
  admissible(key: string): Promise<AdmissibleCaller | null>;
  /** Counts one request against the caller's budget and notes the key's use. */
  admit(caller: AdmissibleCaller): Promise<GuardVerdict>;
  /**
   * Hands a request already counted by `admit` over to `hook`, which then applies `verdict`
   * instead of counting the request a second time.
   */
  handOver(raw: IncomingMessage, verdict: GuardVerdict): void;
}

/**
 * The checks in front of every `/api/v1` route, in the order DESIGN.md fixes: key (401), access
 * (403), per-account rate limit (429). Parameters and existence are checked later by the route.
 * Keys are looked up through the key-owner cache, valid while the auth version is unchanged, so
 * a request costs no key query unless a key or account changed. Register with
 * `app.decorateRequest('dataVersions', null)`.
 */
export function createApiGuard(deps: ApiGuardDeps): ApiGuard {
  const handedOver = new WeakMap<IncomingMessage, GuardVerdict>();

  async function refuseKey(request: FastifyRequest): Promise<never> {
    const decision = await deps.authFailureLimiter.hit(`ip:${request.ip}`, deps.authFailureLimit);
    if (!decision.allowed) {
      throw errors.authRateLimited(Math.max(1, Math.ceil(decision.resetMs / 1000)));
    }
    throw errors.unauthorized();
  }

  /** The data versions for this request, and the key's owner as of its auth version. */
  async function lookUp(key: string): Promise<{ versions: DataVersions; owner: KeyOwner | null }> {
    const versions = await deps.versions();
    return { versions, owner: await deps.keyOwners.find(hashApiKey(key), versions.auth) };
  }

  async function admit(caller: AdmissibleCaller): Promise<GuardVerdict> {
    const { account, keyId } = caller.owner;
    const limit = account.rateLimit ?? DEFAULT_RATE_LIMIT;
    const decision = await deps.accountLimiter.hit(`account:${account.id}`, limit);
    deps.usage.record(keyId, account.id, deps.now(), !decision.allowed);
    return { versions: caller.versions, decision };
  }

  async function decide(request: FastifyRequest): Promise<GuardVerdict> {
    const key = apiKeyFromHeaders(request.headers);
    // Garbage is refused on shape and checksum alone, without a database read.
    if (key === null || !isWellFormedApiKey(key)) return refuseKey(request);
    const { versions, owner } = await lookUp(key);
    request.dataVersions = versions;
    if (owner === null || owner.revoked) return refuseKey(request);

    const access = decideAccess(owner.account, deps.now());
    if (!access.eligible) throw access.error;
    return admit({ versions, owner });
  }

  return {
    async hook(request, reply) {
      const verdict = handedOver.get(request.raw) ?? (await decide(request));
      request.dataVersions = verdict.versions;
      for (const [name, value] of rateLimitHeaders(verdict.decision)) reply.header(name, value);
      if (!verdict.decision.allowed) {
        throw errors.rateLimited(Math.max(1, Math.ceil(verdict.decision.resetMs / 1000)));
      }
    },

    async admissible(key) {
      if (!isWellFormedApiKey(key)) return null;
      const { versions, owner } = await lookUp(key);
      if (owner === null || owner.revoked) return null;
      if (!decideAccess(owner.account, deps.now()).eligible) return null;
      return { versions, owner };
    },

    admit,

    handOver(raw, verdict) {
      handedOver.set(raw, verdict);
    },
  };
}
