import type { IncomingHttpHeaders } from 'node:http';
import type { KeyOwnerCache } from '../accounts/key-owner-cache.js';
import type { UsageRecorder } from '../accounts/usage-recorder.js';
import { decideAccess } from '../domain/access.js';
import type { KeyOwner } from '../domain/account.js';
import { hashApiKey, isWellFormedApiKey } from '../domain/api-key.js';
import { setWithin } from '../domain/bounded-map.js';
import { errors, type AppError } from '../domain/errors.js';
import { whenSettled, type MaybeAsync } from '../domain/maybe-async.js';
import { DEFAULT_RATE_LIMIT, retryAfterSeconds, type RateDecision } from '../domain/rate-window.js';
import type { RateLimiter } from '../ratelimit/types.js';
import type { DataVersions } from '../storage/store.js';
import { apiKeyFromHeaders } from './api-key-header.js';

/**
 * Response headers as [name, value] pairs, names in lower case as Fastify sends them (the fast
 * lane's answers carry the same header lines as the routes').
 */
export type HeaderPairs = readonly (readonly [string, string])[];

/** The `RateLimit-Policy` and `RateLimit` headers of a decision. */
export function rateLimitHeaders(decision: RateDecision): HeaderPairs {
  return [
    ['ratelimit-policy', `${decision.limit};w=1`],
    [
      'ratelimit',
      `limit=${decision.limit}, remaining=${decision.remaining}, reset=${retryAfterSeconds(decision)}`,
    ],
  ];
}

/** A request the API answers: the data versions read for it, its caller, its counted budget. */
export interface Admitted {
  admitted: true;
  versions: DataVersions;
  owner: KeyOwner;
  decision: RateDecision;
  /** The rate headers every answer to it carries. */
  headers: HeaderPairs;
}

/**
 * A request the API refuses: 401 (no valid key), 429 (too many of those from the address),
 * 403 (no access) or 429 (the account's budget is spent, with the rate headers).
 */
export interface Refused {
  admitted: false;
  error: AppError;
  headers: HeaderPairs;
  /** The key's account, when the key was recognised (403, and 429 for its budget). */
  accountId?: string;
}

export type Verdict = Admitted | Refused;

/**
 * Decides whether a `/api/v1` request may be answered, and counts it. `clientAddress` is asked
 * only when the key is refused (failed keys are counted per address). The verdict comes at once
 * when everything it needs is in memory (see MaybeAsync); a failure is always a rejected promise,
 * never thrown.
 */
export type Authorize = (
  headers: IncomingHttpHeaders,
  clientAddress: () => string | undefined,
) => MaybeAsync<Verdict>;

/** What authorisation needs; chosen once at start-up. */
export interface AuthorizeDeps {
  /** The store's data versions, read once per request (see Store.versions). */
  versions: () => MaybeAsync<DataVersions>;
  keyOwners: KeyOwnerCache;
  /** Per-account budget of every authenticated v1 request. */
  accountLimiter: RateLimiter;
  /** Per-client-address budget of requests whose key is missing or invalid. */
  authFailureLimiter: RateLimiter;
  authFailureLimit: number;
  /** Notes key use and request counts for the account page, off the request path. */
  usage: UsageRecorder;
  now: () => number;
}

const NO_HEADERS: HeaderPairs = [];

/** Well-formed keys whose hashes are kept; beyond this the one kept longest is forgotten. */
export const KEY_HASHES_KEPT = 10_000;

/**
 * The hash of a well-formed key, or null for garbage (shape or checksum), with the hashes of
 * the keys lately presented kept: their checksum and SHA-256 were 4 % of the server's CPU on
 * `/countries` (`perf record` of `bin/onair serve` under `node bench/http.mjs`'s load, 50 keys
 * in turn; bench/RESULTS.md), and a client that opens a connection per request (no keep-alive,
 * as many scripts do) presents the same key again and again. Garbage is not kept, so it cannot
 * push keys out; well-formed keys beyond `maxKeys` push out the one kept longest, which is then
 * only hashed again.
 */
export function createKeyHasher(
  maxKeys = KEY_HASHES_KEPT,
  hash: (key: string) => string = hashApiKey,
): (key: string) => string | null {
  const kept = new Map<string, string>();
  return (key) => {
    const known = kept.get(key);
    if (known !== undefined) return known;
    if (!isWellFormedApiKey(key)) return null;
    const hashed = hash(key);
    setWithin(kept, key, hashed, maxKeys);
    return hashed;
  };
}

/** How to authenticate, on every 401 (RFC 9110 §11.6.1): a Bearer token, the API key. */
const CHALLENGE: HeaderPairs = [['www-authenticate', 'Bearer realm="onair"']];

/**
 * The one authorisation of every `/api/v1` request, whichever path answers it (Fastify's hook
 * or the fast lane beneath it), in the order docs/api.md fixes: key (401), access (403),
 * per-account rate limit (429). Parameters and existence are checked later by the route. Each
 * call counts the request once: against the address when the key is refused, else against the
 * account (and notes the key's use). Keys are looked up through the key-owner cache, valid while
 * the auth version is unchanged, so a request costs no key query unless a key or account
 * changed; the data versions are read once, for the whole request.
 */
export function createAuthorize(deps: AuthorizeDeps): Authorize {
  const hashOf = createKeyHasher();
  function refuseKey(clientAddress: () => string | undefined): MaybeAsync<Refused> {
    const address = clientAddress();
    return whenSettled(
      deps.authFailureLimiter.hit(`ip:${address}`, deps.authFailureLimit),
      (decision): Refused => {
        if (decision.allowed)
          return { admitted: false, error: errors.unauthorized(), headers: CHALLENGE };
        const error = errors.authRateLimited(retryAfterSeconds(decision));
        return { admitted: false, error, headers: NO_HEADERS };
      },
    );
  }

  function decide(
    headers: IncomingHttpHeaders,
    clientAddress: () => string | undefined,
  ): MaybeAsync<Verdict> {
    const key = apiKeyFromHeaders(headers);
    // Garbage is refused on shape and checksum alone, without a database read.
    const keyHash = key === null ? null : hashOf(key);
    if (keyHash === null) return refuseKey(clientAddress);
    return whenSettled(deps.versions(), (versions) =>
      whenSettled(deps.keyOwners.find(keyHash, versions.auth), (owner): MaybeAsync<Verdict> => {
        if (owner === null || owner.revoked) return refuseKey(clientAddress);
        const access = decideAccess(owner.account, deps.now());
        const { account, keyId } = owner;
        if (!access.eligible) {
          const accountId = account.id;
          return { admitted: false, error: access.error, headers: NO_HEADERS, accountId };
        }
        const limit = account.rateLimit ?? DEFAULT_RATE_LIMIT;
        // The account's id as it is held (its hash kept by V8), not a text made anew per request.
        return whenSettled(deps.accountLimiter.hit(account.id, limit), (decision): Verdict => {
          deps.usage.record(keyId, account.id, deps.now(), !decision.allowed);
          const rateHeaders = rateLimitHeaders(decision);
          if (!decision.allowed) {
            const error = errors.rateLimited(retryAfterSeconds(decision));
            return { admitted: false, error, headers: rateHeaders, accountId: account.id };
          }
          return { admitted: true, versions, owner, decision, headers: rateHeaders };
        });
      }),
    );
  }

  return (headers, clientAddress) => {
    try {
      return decide(headers, clientAddress);
    } catch (error) {
      return Promise.reject(error as Error);
    }
  };
}
