import { describe, expect, it } from 'vitest';
import { createKeyOwnerCache } from '../accounts/key-owner-cache.js';
import type { UsageRecorder } from '../accounts/usage-recorder.js';
import type { KeyOwner } from '../domain/account.js';
import { generateApiKey, hashApiKey } from '../domain/api-key.js';
import type { RateLimiter } from '../ratelimit/types.js';
import { createMemoryRateLimiter } from '../ratelimit/memory-limiter.js';
import type { DataVersions } from '../storage/store.js';
import { createAuthorize, createKeyHasher, type AuthorizeDeps, type Verdict } from './authorize.js';

const NOW = Date.UTC(2026, 10, 30, 12);
const KEY = generateApiKey();
const OWNER: KeyOwner = {
  keyId: 'key-1',
  revoked: false,
  account: {
    id: 'account-1',
    email: 'a@example.com',
    verifiedAt: NOW - 1_000,
    accessUntil: null,
    rateLimit: 2,
    disabled: false,
    createdAt: NOW - 1_000,
  },
};
const VERSIONS: DataVersions = { catalogue: '7', auth: '3' };

/** Deps with everything in memory, as embedded mode has them; `over` replaces any. */
function deps(over: Partial<AuthorizeDeps> = {}) {
  const reads: string[] = [];
  const recorded: string[] = [];
  const usage: UsageRecorder = {
    record: (keyId) => void recorded.push(keyId),
    flush: async () => {},
    close: async () => {},
  };
  const all: AuthorizeDeps = {
    versions: () => VERSIONS,
    keyOwners: createKeyOwnerCache({
      findKeyOwner: async (hash) => {
        reads.push(hash);
        return hash === hashApiKey(KEY) ? OWNER : null;
      },
    }),
    accountLimiter: createMemoryRateLimiter(1_000, () => NOW),
    authFailureLimiter: createMemoryRateLimiter(1_000, () => NOW),
    authFailureLimit: 10,
    usage,
    now: () => NOW,
    ...over,
  };
  return { authorize: createAuthorize(all), reads, recorded };
}

const withKey = { 'x-api-key': KEY };
const address = () => '203.0.113.9';

describe('createAuthorize', () => {
  it('decides at once when the owner is held and the budget is in memory, counting once', async () => {
    const { authorize, reads, recorded } = deps();
    // The first request reads the owner from the store: a promise.
    const first = authorize(withKey, address);
    expect(first).toBeInstanceOf(Promise);
    expect(await first).toMatchObject({ admitted: true, versions: VERSIONS, owner: OWNER });
    // The next is decided in this turn, from memory, with the budget left after both.
    const second = authorize(withKey, address);
    expect(second).not.toBeInstanceOf(Promise);
    expect(second).toMatchObject({
      admitted: true,
      headers: [
        ['ratelimit-policy', '2;w=1'],
        ['ratelimit', 'limit=2, remaining=0, reset=1'],
      ],
    });
    // The third is over the account's budget of two a second: refused at once, as a 429.
    const third = authorize(withKey, address) as Verdict;
    expect(third.admitted).toBe(false);
    expect(!third.admitted && third.error.code).toBe('RATE_LIMITED');
    expect(reads).toEqual([hashApiKey(KEY)]);
    expect(recorded).toEqual(['key-1', 'key-1', 'key-1']);
  });

  it('refuses a missing or unknown key at once, counting the address', () => {
    const { authorize } = deps({ authFailureLimit: 1 });
    const missing = authorize({}, address) as Verdict;
    expect(missing).toMatchObject({
      admitted: false,
      headers: [['www-authenticate', 'Bearer realm="onair"']],
    });
    // The address's second failure in the second is over its limit of one.
    const again = authorize({ 'x-api-key': 'nonsense' }, address) as Verdict;
    expect(again).toMatchObject({ admitted: false, headers: [] });
    expect(!again.admitted && again.error.message).toMatch(/missing or invalid API key/);
  });

  it('waits for what is not in memory, with the same verdict', async () => {
    const inMemory = createMemoryRateLimiter(1_000, () => NOW);
    const shared: RateLimiter = {
      hit: async (key, limit) => inMemory.hit(key, limit),
      close: async () => {},
    };
    const { authorize } = deps({ versions: async () => VERSIONS, accountLimiter: shared });
    await authorize(withKey, address);
    const verdict = authorize(withKey, address);
    expect(verdict).toBeInstanceOf(Promise);
    expect(await verdict).toMatchObject({
      admitted: true,
      headers: [
        ['ratelimit-policy', '2;w=1'],
        ['ratelimit', 'limit=2, remaining=0, reset=1'],
      ],
    });
  });

  it('judges each key on its own, the hashes of recent keys kept', async () => {
    const { authorize, reads } = deps({ authFailureLimit: 100 });
    const other = generateApiKey();
    const verdicts = [];
    // The last character changed: a random KEY ending in x was the same key (1 run in 62).
    const changed = KEY.slice(0, -1) + (KEY.endsWith('x') ? 'y' : 'x');
    for (const key of [KEY, KEY, other, 'onair_garbage', changed, KEY, other]) {
      verdicts.push(await authorize({ 'x-api-key': key }, address));
    }
    expect(verdicts.map((verdict) => (verdict.admitted ? 'ok' : verdict.error.code))).toEqual([
      'ok',
      'ok',
      'UNAUTHORIZED', // well formed, but no account has it
      'UNAUTHORIZED', // garbage
      'UNAUTHORIZED', // a changed checksum
      'RATE_LIMITED', // recognised again: the account's third request in the second
      'UNAUTHORIZED',
    ]);
    // Each well-formed key looked up once while the auth version holds.
    expect(reads).toEqual([hashApiKey(KEY), hashApiKey(other)]);
    // A kept key (`other`) is not taken for a key of the same length.
    const near = other.slice(0, -2) + (other.endsWith('a') ? 'bb' : 'aa');
    const verdict = await authorize({ 'x-api-key': near }, address);
    expect(!verdict.admitted && verdict.error.code).toBe('UNAUTHORIZED');
  });

  it('gives a failure of the store as a rejected promise, never thrown', async () => {
    const outage = new Error('database is locked');
    const { authorize } = deps({
      versions: () => {
        throw outage;
      },
    });
    let verdict: unknown;
    expect(() => (verdict = authorize(withKey, address))).not.toThrow();
    await expect(verdict).rejects.toBe(outage);
  });
});

describe('createKeyHasher', () => {
  it('hashes a well-formed key once while it is kept, garbage never, the oldest forgotten first', () => {
    const hashed: string[] = [];
    const hashOf = createKeyHasher(2, (key) => {
      hashed.push(key);
      return hashApiKey(key);
    });
    const [a, b, c] = [generateApiKey(), generateApiKey(), generateApiKey()];
    expect(hashOf(a)).toBe(hashApiKey(a));
    expect(hashOf(a)).toBe(hashApiKey(a));
    expect(hashOf(b)).toBe(hashApiKey(b));
    expect(hashed).toEqual([a, b]);
    // Garbage is refused each time and keeps no place: a and b are still kept.
    const badChecksum = a.slice(0, -1) + (a.endsWith('x') ? 'y' : 'x');
    for (const garbage of ['onair_garbage', badChecksum, badChecksum]) {
      expect(hashOf(garbage)).toBeNull();
    }
    hashOf(a);
    hashOf(b);
    expect(hashed).toEqual([a, b]);
    // A third key pushes out the first kept, which is then hashed again.
    hashOf(c);
    hashOf(b);
    hashOf(a);
    expect(hashed).toEqual([a, b, c, a]);
  });
});
