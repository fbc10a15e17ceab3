import { describe, expect, it } from 'vitest';
import type { KeyOwner } from '../domain/account.js';
import { createKeyOwnerCache } from './key-owner-cache.js';

function owner(keyId: string, revoked = false): KeyOwner {
  return {
    keyId,
    revoked,
    account: {
      id: 'a',
      email: 'a@example.com',
      verifiedAt: 1,
      accessUntil: null,
      rateLimit: null,
      disabled: false,
      createdAt: 1,
    },
  };
}

/** An account store that answers from a map and counts its reads. */
function countingAccounts(owners: Map<string, KeyOwner>) {
  const store = {
    reads: 0,
    async findKeyOwner(hash: string) {
      store.reads++;
      return owners.get(hash) ?? null;
    },
  };
  return store;
}

describe('key owner cache', () => {
  it('reads a key once per auth version, unknown keys included', async () => {
    const owners = new Map([['h1', owner('k1')]]);
    const accounts = countingAccounts(owners);
    const cache = createKeyOwnerCache(accounts);
    expect(await cache.find('h1', 'v1')).toEqual(owner('k1'));
    expect(await cache.find('h1', 'v1')).toEqual(owner('k1'));
    expect(await cache.find('nope', 'v1')).toBeNull();
    expect(await cache.find('nope', 'v1')).toBeNull();
    expect(accounts.reads).toBe(2);

    // A revocation moves the auth version: the next lookup reads the store again.
    owners.set('h1', owner('k1', true));
    expect(await cache.find('h1', 'v1')).toEqual(owner('k1'));
    expect(await cache.find('h1', 'v2')).toEqual(owner('k1', true));
    expect(accounts.reads).toBe(3);
    // A key created since is found, not remembered as unknown.
    owners.set('nope', owner('k2'));
    expect(await cache.find('nope', 'v2')).toEqual(owner('k2'));
  });

  it('holds at most maxEntries, dropping the one loaded longest ago', async () => {
    const owners = new Map(['a', 'b', 'c'].map((k) => [k, owner(k)]));
    const accounts = countingAccounts(owners);
    const cache = createKeyOwnerCache(accounts, 2);
    await cache.find('a', 'v');
    await cache.find('b', 'v');
    await cache.find('c', 'v'); // drops a
    expect(accounts.reads).toBe(3);
    await cache.find('b', 'v');
    await cache.find('c', 'v');
    expect(accounts.reads).toBe(3);
    await cache.find('a', 'v');
    expect(accounts.reads).toBe(4);
  });
});
